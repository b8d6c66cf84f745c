"""cardjax play: a person's game in the terminal, driven by scripted input."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

import cardjax
from cardjax import agents
from cardjax.commands import play
from cardjax.games.tractor import cards as tc
from cardjax.games.tractor import table as tractor_ids  # the action ids
from cardjax.table import compiled_step
from cardjax.table.text import grouped, listing, show, show_hand


class Player:
    """Asks for the legal cards ('?'), then plays the first one, written the people's way."""

    def __init__(self):
        self.out, self.legal, self.asked = [], None, False

    def input(self, prompt):
        if not self.asked:
            self.asked = True
            return "?"
        self.asked = False
        card = self.legal[0]
        return card[-1] + card[:-1] if len(self.out) % 2 else card  # "Q♠" or "♠Q"

    def print(self, text=""):
        self.out.append(text)
        if text.startswith("legal: "):
            self.legal = text[len("legal: "):].split()


class Mover:
    """Any game: asks '?', then types the first listed legal move (the last listed declaration
    at Tractor's declare?/overturn? prompts, so declaring is played too)."""

    def __init__(self):
        self.out, self.prompts, self.legal, self.asked = [], [], None, False

    def input(self, prompt):
        self.prompts.append(prompt)
        if not self.asked:
            self.asked = True
            return "?"
        self.asked = False
        return self.legal[-1] if prompt.startswith(("declare?", "overturn?")) else self.legal[0]

    def print(self, text=""):
        for line in text.split("\n"):
            self.out.append(line)
            if line.startswith("legal: "):
                body = line[len("legal: "):]
                self.legal = body.split(", ") if ", " in body else body.split()


def game(argv):
    p = Mover()
    result = play.play(play.parse_args(argv), p.input, p.print)
    return p, result


def test_show():
    from cardjax import cards

    assert show(cards.card_index("SQ")) == "Q♠"
    assert show(cards.card_index("H10")) == "10♥"
    assert show_hand(cards.cards_mask("SA S3 SQ D10")) == "♠ A Q 3   ♦ 10"
    assert grouped("3334456") == "333 44 5 6"
    assert listing(map(str, range(45)), limit=40).endswith("39 ... and 5 more")


def test_a_whole_game_against_random():
    p = Player()
    result = play.play(play.parse_args(["--partner", "random", "--opponents", "random",
                                        "--seat", "1", "--seed", "3"]), p.input, p.print)
    assert result is not None
    s = result["scores"]
    assert result["margin"] == (s[1] + s[3]) - (s[0] + s[2])
    assert result["rewards"][1] == result["margin"] == -result["rewards"][0]
    tricks = [line for line in p.out if line.startswith("trick ")]
    assert len(tricks) == 13 and "West:" in " ".join(tricks)
    # the running score after every trick: the last one agrees with the final scores
    scores = [line for line in p.out if "pig Q♠" in line]
    assert len(scores) == 13
    assert f"points: yours {s[1] + s[3]:+.0f}, theirs {s[0] + s[2]:+.0f}" in scores[-1]
    assert re.search(r"hearts: yours (\d+), theirs (\d+)", scores[-1])


def test_bad_input_is_explained_and_quit_ends():
    answers = iter(["ZZ", "quit"])
    out = []
    result = play.play(play.parse_args(["--partner", "random", "--opponents", "random"]),
                       lambda _: next(answers), out.append)
    assert result is None
    assert any("unknown card 'ZZ'" in line for line in out)
    assert out[-1] == "game abandoned"


def test_unknown_agent_is_an_error():
    with pytest.raises(SystemExit, match="neither a baseline"):
        play.play(play.parse_args(["--opponents", "no/such/run"]))


def test_unknown_game_and_bad_seat_are_errors():
    with pytest.raises(SystemExit, match="error: unknown game 'chess'"):
        play.play(play.parse_args(["--game", "chess"]))
    with pytest.raises(SystemExit, match=r"--seat must be 0-2 in doudizhu \(3 seats\), got 3"):
        play.main(["--game", "doudizhu", "--seat", "3"])
    with pytest.raises(SystemExit, match="--seat must be 0-1 in mini_doudizhu"):
        play.play(play.parse_args(["--game", "mini_doudizhu", "--seat", "-1"]))


@pytest.mark.parametrize("stdin", ["quit\n", ""])  # quit, and the end of the input
def test_quit_ends_with_status_zero(monkeypatch, capsys, stdin):
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    try:
        play.main(["--game", "mini_doudizhu"])
    except SystemExit as e:
        assert e.code in (0, None)
    assert "game abandoned" in capsys.readouterr().out


def test_doudizhu_whole_game_as_a_peasant():
    p, result = game(["--game", "doudizhu", "--seat", "1", "--partner", "random",
                      "--opponents", "random", "--seed", "4"])
    r = result["rewards"]
    assert result["landlord"] == 0
    assert r[1] == r[2] != 0 and r[0] == -2 * r[1]  # the two peasants share, zero-sum
    assert result["winner"] == ("landlord" if r[0] > 0 else "peasants")
    assert any("South landlord (random), East peasant (random)" in line for line in p.out)
    moves = [line for line in p.out if "cards left:" in line and "bombs" in line]
    assert re.search(r"(South|West|East) 0\b", moves[-1])  # the winner's hand is empty
    assert any(line.startswith("West (you):") for line in p.out)
    assert any(line.startswith("to beat:") for line in p.out)
    assert "your move> " in p.prompts


def test_doudizhu_input_is_checked():
    answers = iter(["?", "XYZ", "345", "pass", "3", "q"])  # the landlord leads
    out = []
    assert play.play(play.parse_args(["--game", "doudizhu", "--opponents", "random",
                                      "--seed", "4"]), lambda _: next(answers), out.append) is None
    text = "\n".join(out)
    assert "legal: " in text and "unknown rank character 'X'" in text
    assert "are not a Dou Dizhu move: a move is a single" in text  # 345, in card words
    assert "you lead: you cannot pass" in text
    assert "(you play alone: --partner is not used)" in text


def test_mini_doudizhu_whole_game(monkeypatch):
    # agents count as trained players here, so "... is thinking…" is shown
    monkeypatch.setattr(agents, "baselines", lambda game: [])
    p, result = game(["--game", "mini_doudizhu", "--seat", "1", "--seed", "2"])
    assert sorted(result["rewards"]) == [-1.0, 1.0]
    assert result["rewards"][result["winner"]] == 1.0
    assert any(line == "South is thinking…" for line in p.out)
    assert not any("North is thinking" in line for line in p.out)  # that is the person


@pytest.fixture(scope="module")
def tractor_game():
    return game(["--game", "tractor", "--seat", "2", "--partner", "random",
                 "--opponents", "random", "--seed", "1"])


def test_tractor_whole_game(tractor_game):
    p, result = tractor_game
    assert result is not None
    r, gain = result["rewards"], result["level_gain"]
    assert r[0] == r[2] == -r[1] == -r[3] == gain[0] - gain[1]
    tricks = [line for line in p.out if re.match(r"trick +\d+: ", line)]
    assert len(tricks) == result["tricks"] >= 20
    assert all("attackers " in line for line in tricks)
    assert "preparing the table (compiling, one time)…" in p.out
    assert any(line.startswith("dealing done: trump") for line in p.out)
    assert "your play> " in p.prompts and "your lead> " in p.prompts


def tractor_table(hands, me, lead=None):
    """A Tractor table for seat ``me`` at the trick phase (level 2, hearts trump), after seat 0
    leads ``lead`` (card strings) if given."""
    env = cardjax.make("tractor")
    step = compiled_step(env)
    state = env.trick_state(hands, 2, "H", leader=0)
    for card in (lead or "").split():
        state = step(state, tc.card_type(card))
    if lead:
        state = step(state, tractor_ids.DONE)
    out = []
    return play.TractorTable(env, me, None, out.append, step), state, out


def test_tractor_move_is_checked_card_by_card():
    hands = ["SA SA SK 3C", "S3 S4 H5 D6", "S5 H7 H8 D7", "S6 H9 HT D8"]
    table, state, out = tractor_table(hands, 1, lead="SA SA")
    h5, s3, s4 = (tc.card_type(c) for c in ("H5", "S3", "S4"))
    # a refused move: the message names the first card not allowed; the state is not stepped
    nxt, order, why = table.feed(state, [s3, h5])
    assert nxt is state and order is None
    assert why.startswith("3♠ 5♥ is not played: 5♥ is not allowed after 3♠")
    assert "legal: 4♠" in why
    assert "you do not hold K♠" in table.feed(state, [tc.card_type("SK")])[2]
    assert "too many cards" in table.feed(state, [s3, s4, tc.card_type("D6")])[2]
    nxt, order, why = table.feed(state, [s4, s3])
    assert why is None and order == [s4, s3] and int(nxt.current_player) == 2
    # through the prompt: a bad move, then the follow in two parts (more>), then `back`
    answers = iter(["H5 S3", "S4", "back", "S3", "?", "S4"])
    prompts = []
    table.ask = lambda prompt: prompts.append(prompt) or next(answers)
    assert table.person_move(state) == [s3, s4]
    text = "\n".join(out)
    assert "5♥ 3♠ is not played: 5♥ is not allowed" in text
    assert "so far: 4♠; 1 more card" in text and "the move is discarded" in text
    assert "legal: 4♠" in text
    assert prompts == ["your play> ", "your play> ", "more> ", "your play> ", "more> ", "more> "]
    assert np.array_equal(np.asarray(state.trick[1]), np.zeros(54))  # never stepped


def test_tractor_lead_and_declarations():
    table, state, out = tractor_table(["SA SK SK 3C", "S3 S4 H5 D6", "S5 H7 H8 D7",
                                       "S6 H9 HT D8"], 0)
    sa, sk = tc.card_type("SA"), tc.card_type("SK")
    answers = iter(["SA 3C", "SK SK +", "SA +", "done"])
    table.ask = lambda prompt: next(answers)
    assert table.person_move(state) == [sk, sk, sa, tractor_ids.DONE]  # a lead ends with DONE
    refused = "A♠ 3♣ is not played: 3♣ is not allowed after A♠"
    assert any(line.startswith(refused) for line in out)
    assert "so far: A♠ K♠ K♠; more cards, or done" in out
    for a in range(tractor_ids.DECL_SINGLE, tractor_ids.DECL_DJ + 1):
        assert tractor_ids.parse_decl(tractor_ids.decl_text(a)) == a
        # "declare ♠ pair", "… XJ XJ"
        assert tractor_ids.parse_decl(table.env.action_to_str(a)) == a
    assert tractor_ids.parse_decl("pass") == tractor_ids.PASS
    assert tractor_ids.parse_decl("h pair") == tractor_ids.DECL_PAIR + 1
    with pytest.raises(ValueError, match="unknown declaration"):
        tractor_ids.parse_decl("declare NT")


def test_tractor_follow_of_two_tractors_is_reordered():
    # against a lead of two tractors a follow is built unit by unit: typed in another order, the
    # same cards are played in an order the masks allow
    table, state, out = tractor_table(["SA SA SK SK S9 S9 S8 S8", "S7 S7 S6 S6 S4 S4 S3 S3 D3",
                                       "S5 ST D4 D5", "C3 C4 C5 C6"], 1,
                                      lead="SA SA SK SK S9 S9 S8 S8")
    assert list(np.asarray(state.lead_tractors)[:2]) == [2, 2]  # the throw stands
    typed = [tc.card_type(c) for c in "S7 S4 S7 S4 S6 S3 S6 S3".split()]
    after_7 = table.step(state, typed[0])
    assert not np.asarray(after_7.legal_action_mask)[typed[1]]  # 4♠ does not go with 7♠
    nxt, order, why = table.feed(state, typed)
    assert why is None and sorted(order) == sorted(typed) and order != typed
    assert int(nxt.current_player) == 2 and int(nxt.num_in_trick) == 2


def test_the_process_keeps_the_most_recently_used_players(monkeypatch):
    """A server meets many words that differ only in a setting: it keeps ``KEPT`` players, the
    most recently used, so their compiled programs do not pile up."""
    from cardjax.core import Agent
    from cardjax.play import players

    monkeypatch.setattr(players, "KEPT", 3)
    monkeypatch.setattr(players, "_PLAYERS", type(players._PLAYERS)())
    env = cardjax.make("mini_doudizhu")
    words = {f"w{i}": (lambda e, i=i: Agent(f"w{i}", lambda p, k, s: 0)) for i in range(5)}
    first = players.load_player(env, "w0", words)
    for i in (1, 2):
        players.load_player(env, f"w{i}", words)
    assert players.load_player(env, "w0", words) is first  # used again: kept
    players.load_player(env, "w3", words)  # drops w1, the least recently used
    assert [k[2] for k in players._PLAYERS] == ["w2", "w0", "w3"]
