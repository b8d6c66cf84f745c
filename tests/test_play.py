"""scripts/play.py: a person's game in the terminal, driven by scripted input."""

from __future__ import annotations


import pytest
from conftest import load_script

play = load_script("scripts/play.py")


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


def test_show():
    from cardjax import cards

    assert play.show(cards.card_index("SQ")) == "Q♠"
    assert play.show(cards.card_index("H10")) == "10♥"
    assert play.show_hand(cards.cards_mask("SA S3 SQ D10")) == "♠ A Q 3   ♦ 10"


def test_a_whole_game_against_random(monkeypatch):
    p = Player()
    result = play.play(play.parse_args(["--partner", "random", "--opponents", "random",
                                        "--seat", "1", "--seed", "3"]), p.input, p.print)
    assert result is not None
    s = result["scores"]
    assert result["margin"] == (s[1] + s[3]) - (s[0] + s[2])
    tricks = [line for line in p.out if line.startswith("trick ")]
    assert len(tricks) == 13 and "West:" in " ".join(tricks)


def test_bad_input_is_explained_and_quit_ends():
    answers = iter(["ZZ", "quit"])
    out = []
    result = play.play(play.parse_args(["--partner", "random", "--opponents", "random"]),
                       lambda _: next(answers), out.append)
    assert result is None
    assert any("unknown card 'ZZ'" in line for line in out)


def test_unknown_agent_is_an_error():
    with pytest.raises(SystemExit, match="neither a baseline"):
        play.play(play.parse_args(["--opponents", "no/such/run"]))
