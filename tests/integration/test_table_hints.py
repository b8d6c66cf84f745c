"""The web table's Hint and reasons (issue 42, items 6 and 7), through the JSON API with Flask's
test client against the random player: every decision of every game (bidding, declaring,
overturning, burying, exposing, leading, following) has a hint, and it and every suggested card
move are accepted when played; a selection that cannot be played is refused before Play with the
reason in card words, the same words as the refused move."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

pytest.importorskip("flask")

import cardjax  # noqa: E402
from cardjax.play import Game, load_player, table_for  # noqa: E402
from cardjax.table import IllegalMove  # noqa: E402
from cardjax.web.app import create_app  # noqa: E402
from cardjax.web.tables import Tables  # noqa: E402
from conftest import wait_for_view  # noqa: E402

# notation a person does not read: typed joker codes, T for ten, quotes around codes, the
# move table, action ids
NOTATION = re.compile(r"\b(XJ|DJ|[0-9TJQKA]+[BR]|[BR][0-9TJQKA]+)\b|\bT[♠♥♦♣]|'|move table|"
                      r"\baction|\bid\b")


@pytest.fixture(scope="module")
def client():
    tables = Tables(idle_timeout=600)
    yield create_app(tables, reaper=False).test_client()
    tables.stop()


def person_or_over(client, tid):
    return wait_for_view(client, tid, lambda v: v["person"] is not None or v["over"])


def post(client, tid, what, body):
    return client.post(f"/api/tables/{tid}/{what}", json=body)


def hinted_game(client, game, options, seat, seed, rnd) -> tuple[set, int]:
    """Play a game at ``seat`` by the Hint: at every decision the hint and every suggestion are
    accepted (a preview says ready), one of them is played; an illegal selection's reason is in
    card words. Returns the phases met and the count of reasons read."""
    r = client.post("/api/tables", json={"game": game, "options": options, "seat": seat,
                                         "players": "random", "seed": seed, "pace": 0})
    assert r.status_code == 201, r.json
    tid, phases, reasons = r.json["id"], set(), 0
    while True:
        v = person_or_over(client, tid)
        if v["over"]:
            return phases, reasons
        p = v["person"]
        phases.add(v["phase"])
        assert p["hint"], (v["phase"], p["prompt"])
        suggested = [p["hint"]] + [{"cards": c} for c in p["suggestions"]]
        for m in suggested:
            if "text" in m:
                assert m["text"] in [c["text"] for c in p["choices"] if c["enabled"]], m
            elif p["submit"]:  # a several-card move: the page's Play needs the preview's ready
                ready = post(client, tid, "preview", m).json
                assert ready["ready"] and "reason" not in ready, (v["phase"], m, ready)
        if p["submit"] and p["playable"]:
            reasons += check_an_illegal_selection(client, tid, v, rnd)
        m = rnd.choice(suggested)
        r = post(client, tid, "move", m)
        assert r.status_code == 200, (v["phase"], p["prompt"], m, r.json)


def check_an_illegal_selection(client, tid, view, rnd) -> int:
    """A card no legal move may start with, added to a playable one: if the preview refuses
    the selection, the reason is in card words and the move says the same (1: it did)."""
    hand = [f["id"] for f in view["seats"][view["you"]]["hand"]]
    playable = view["person"]["playable"]
    others = [c for c in hand if c not in playable]
    if not others:
        return 0
    chosen = [rnd.choice(playable), rnd.choice(others)]
    preview = post(client, tid, "preview", {"cards": chosen}).json
    if "reason" not in preview:
        return 0
    assert not preview["ready"] and not NOTATION.search(preview["reason"]), preview
    refused = post(client, tid, "move", {"cards": chosen})
    assert refused.status_code == 400 and refused.json["error"] == preview["reason"]
    return 1


@pytest.mark.parametrize("game, options, deals, met", [
    ("gongzhu", {"exposure": True}, [(0, 1), (1, 2)], {"expose", "play"}),
    ("doudizhu", {"bidding": True}, [(0, 1), (1, 2), (2, 3)], {"bidding", "play"}),
    ("mini_doudizhu", {}, [(0, 1), (1, 2), (0, 3)], {"play"}),
    # deal 34 with seat 0 dealing asks the person to declare, bury and overturn
    ("tractor", {"dealer": 0}, [(0, 34)], {"declare", "bury", "overturn", "play"}),
])
def test_every_decision_has_a_hint_that_is_accepted(client, game, options, deals, met):
    rnd = random.Random(42)
    phases, reasons = set(), 0
    for seat, seed in deals:
        met_here, read = hinted_game(client, game, options, seat, seed, rnd)
        phases, reasons = phases | met_here, reasons + read
    assert phases >= met, phases
    assert reasons or game == "gongzhu", "no illegal selection was refused"  # (one card a move)
    print(f"{game}: phases {sorted(phases)}, {reasons} reasons read")


# ------------------------------------------------------------------ the reasons' words
def doudizhu_lead_holding(env, ranks: list[int]):
    """A Dou Dizhu game (no auction) where the landlord, at seat 0, leads holding ``ranks``."""
    for seed in range(200):
        game = Game(env, table_for(env, 0, brief=True),
                    {s: load_player(env, "random") for s in (1, 2)}, seed=seed)
        hand = np.asarray(env.hand(game.state, 0))
        if game.turn == 0 and all(hand[r] for r in ranks):
            return game, seed
    raise AssertionError(f"no deal in 200 where seat 0 leads holding {ranks}")


def test_doudizhu_says_an_illegal_selection_in_card_words(client):
    env = cardjax.make("doudizhu")
    game, seed = doudizhu_lead_holding(env, [0, 13])  # a 3 and the small joker
    tab = game.table
    why = ("the small joker and a 3 are not a Dou Dizhu move: a move is a single, a pair, a "
           "trio (alone or with a single or a pair), a straight of 5 or more, 3 or more pairs "
           "in a row, a plane, a bomb, four with two, or the rocket")
    with pytest.raises(IllegalMove) as refused:
        tab.from_cards(game.state, [13, 0])
    assert str(refused.value) == why
    assert tab.preview(game.state, [13, 0]) == {"playable": [], "ready": False, "reason": why}
    with pytest.raises(IllegalMove, match="^the small joker and a 3 are not"):
        tab.from_text(game.state, "3B")  # typed, the same words
    # through the API: the preview and the refused move say the same
    r = client.post("/api/tables", json={"game": "doudizhu", "options": {"bidding": False},
                                         "seat": 0, "players": "random", "seed": seed,
                                         "pace": 0})
    tid = r.json["id"]
    person_or_over(client, tid)
    preview = post(client, tid, "preview", {"cards": [13, 0]}).json
    assert preview["reason"] == why and not preview["ready"]
    r = post(client, tid, "move", {"cards": [13, 0]})
    assert r.status_code == 400 and r.json["error"] == why


@pytest.mark.parametrize("move, words", [
    ([12, 12], "two 2s"), ([7, 8, 8, 11], "an ace, two jacks and a 10"),
    ([13, 14], "the two jokers"), ([5], "an 8"), ([14, 0], "the big joker and a 3")])
def test_doudizhu_cards_in_words(move, words):
    from cardjax.games.doudizhu.table import rank_words

    assert rank_words("3456789TJQKA2BR", np.bincount(move, minlength=15)) == words


def test_tractor_reasons_name_cards_as_they_are_drawn():
    from cardjax.games.tractor.table import card_word

    assert [card_word(t) for t in (8, 52, 53, 13 + 12)] == ["10♠", "small joker", "big joker",
                                                              "A♥"]
