"""Gongzhu observations on a hand-built position: the 434-dim oracle vector (paper 8.4/8.5) and
the 568-dim observation, which must not leak other seats' hands."""

from __future__ import annotations

import numpy as np
import pytest

from cardjax import cards
from cardjax.games.gongzhu import env as gongzhu
from conftest import play_cards

C = cards.card_index

# seat 3 holds no hearts and SQ as its only spade.
OBS_DEAL = [
    "H2 H4 H5 H6 S3 S4 S5 S6 DK C2 C3 C4 C5",
    "HA H7 H8 H9 S2 S7 S8 S9 DA C6 C7 C8 C9",
    "H3 H10 HJ HQ HK SA S10 SJ SK CJ CQ CK CA",
    "SQ C10 D2 D3 D4 D5 D6 D7 D8 D9 D10 DJ DQ",
]
# Trick 1: seat 0 leads H2, seat 1 HA, seat 2 H3, seat 3 (void in hearts) SQ -> seat 1 takes
# H2 H3 HA SQ.  Trick 2: seat 1 leads S2, seat 2 SA, seat 3 (now void in spades) C10; seat 0 to act.
MOVES = "H2 HA H3 SQ | S2 SA C10"

HANDS, TABLE, COLLECTED = slice(0, 208), slice(208, 370), slice(370, 434)


def score_slot(card):
    return int(np.flatnonzero(gongzhu.SCORE_CARDS == C(card))[0])


def hand_mask(text, minus=""):
    m = cards.cards_mask(text)
    for c in minus.split():
        m[C(c)] = False
    return m


@pytest.fixture(scope="module")
def position(gz):
    env = gz.env
    states = play_cards(env, env.init_from_deal(OBS_DEAL, 0), MOVES)
    return env, states


def test_position_is_as_described(position):
    env, states = position
    s = states[-1]
    assert int(s.current_player) == 0 and int(s.leader) == 1
    assert int(s.num_played) == 7
    assert cards.cards_str(np.flatnonzero(np.asarray(s.legal_action_mask))) == "S6 S5 S4 S3"


def test_oracle_layout(gz, position):
    env, states = position
    s = states[-1]
    remaining = [
        hand_mask(OBS_DEAL[0], "H2"),
        hand_mask(OBS_DEAL[1], "HA S2"),
        hand_mask(OBS_DEAL[2], "H3 SA"),
        hand_mask(OBS_DEAL[3], "SQ C10"),
    ]
    # the table in play order (leader first): S2 (index 0), SA (12), C10 (47)
    assert (C("S2"), C("SA"), C("C10")) == (0, 12, 47)
    table = np.zeros((3, 54))
    table[0, [0, 1, 2]] = 1
    table[1, [12, 13, 14]] = 1
    table[2, [47, 48, 49]] = 1
    for seat in range(4):
        o = np.asarray(gz.observe_oracle(s, seat))
        assert o.shape == (434,) and o.dtype == np.float32
        assert set(np.unique(o)) <= {0.0, 1.0}
        hands = o[HANDS].reshape(4, 52)
        for j in range(4):  # the seat itself first, then the seats after it
            np.testing.assert_array_equal(hands[j], remaining[(seat + j) % 4], err_msg=f"{seat} {j}")
        t = o[TABLE].reshape(3, 54)
        np.testing.assert_array_equal(t, table)
        assert t.sum(axis=1).tolist() == [3, 3, 3]  # every table card lights exactly three slots
        col = o[COLLECTED].reshape(4, 16)
        expect = np.zeros((4, 16))
        expect[(1 - seat) % 4, [score_slot(c) for c in ("H2", "H3", "HA", "SQ")]] = 1
        np.testing.assert_array_equal(col, expect, err_msg=f"seat {seat}")
        assert [score_slot(c) for c in ("H2", "H3", "HA", "SQ", "DJ", "C10")] == [0, 1, 12, 13, 14, 15]


def test_oracle_table_as_the_trick_fills_and_clears(gz, position):
    env, states = position
    counts = []
    for s in states[4:]:  # trick 2: 0, 1, 2, 3 cards on the table
        t = np.asarray(gz.observe_oracle(s, 0))[TABLE].reshape(3, 54)
        counts.append(t.sum(axis=1).tolist())
    assert counts == [[0, 0, 0], [3, 0, 0], [3, 3, 0], [3, 3, 3]]
    s = states[5]  # S2 alone: slots 0, 1, 2 of the first block
    t = np.asarray(gz.observe_oracle(s, 2))[TABLE].reshape(3, 54)
    assert np.flatnonzero(t[0]).tolist() == [0, 1, 2]
    # seat 0 plays S3: seat 2 wins with SA (taking C10) and leads CA, the last card (slots 51-53)
    after = play_cards(env, states[-1], "S3 CA")
    done, ca = after[1], after[2]
    assert int(done.current_player) == 2
    np.testing.assert_array_equal(np.asarray(gz.observe_oracle(done, 0))[TABLE], 0)
    o = np.asarray(gz.observe_oracle(ca, 3))
    t = o[TABLE].reshape(3, 54)
    assert np.flatnonzero(t[0]).tolist() == [51, 52, 53] and t[1:].sum() == 0
    col = o[COLLECTED].reshape(4, 16)
    # from seat 3: seat 1 is block 2, seat 2 is block 3
    assert np.flatnonzero(col[2]).tolist() == [0, 1, 12, 13]
    assert np.flatnonzero(col[3]).tolist() == [15]
    assert col[:2].sum() == 0


def test_observe_layout(gz, position):
    env, states = position
    s = states[-1]
    o = np.asarray(gz.observe(s, 0))
    assert o.shape == (568,) and o.dtype == np.float32
    assert set(np.unique(o)) <= {0.0, 1.0}
    parts = np.split(o, np.cumsum([52, 208, 208, 64, 16, 16]))
    hand, table, played, collected, voids, exposed, leader = parts
    assert leader.shape == (4,)
    np.testing.assert_array_equal(hand, hand_mask(OBS_DEAL[0], "H2"))
    table = table.reshape(4, 52)
    assert [cards.cards_str(np.flatnonzero(r)) for r in table] == ["", "S2", "SA", "C10"]
    played = played.reshape(4, 52)
    assert [cards.cards_str(np.flatnonzero(r)) for r in played] == ["H2", "S2 HA", "SA H3", "SQ C10"]
    collected = collected.reshape(4, 16)
    assert np.flatnonzero(collected[1]).tolist() == [0, 1, 12, 13] and collected.sum() == 4
    voids = voids.reshape(4, 4)
    expect = np.zeros((4, 4))
    expect[3, [0, 1]] = 1  # seat 3 void in spades and hearts
    np.testing.assert_array_equal(voids, expect)
    np.testing.assert_array_equal(exposed, 0)
    np.testing.assert_array_equal(leader, [0, 1, 0, 0])  # seat 1 leads
    # from seat 2: seats in the order 2, 3, 0, 1
    o2 = np.asarray(gz.observe(s, 2))
    parts2 = np.split(o2, np.cumsum([52, 208, 208, 64, 16, 16]))
    np.testing.assert_array_equal(parts2[0], hand_mask(OBS_DEAL[2], "H3 SA"))
    assert [cards.cards_str(np.flatnonzero(r)) for r in parts2[1].reshape(4, 52)] == ["SA", "C10", "", "S2"]
    np.testing.assert_array_equal(parts2[4].reshape(4, 4)[1], [1, 1, 0, 0])
    np.testing.assert_array_equal(parts2[6], [0, 0, 0, 1])


def test_observe_hides_other_hands(gz, position):
    """Two deals that differ only in cards seats 2 and 3 have not played: the same moves give the
    same observation for seats 0 and 1, a different one for seats 2 and 3 (and the oracle)."""
    env, states = position
    other = list(OBS_DEAL)
    other[2] = OBS_DEAL[2].replace("CK", "D2").replace("CQ", "D3")
    other[3] = OBS_DEAL[3].replace("D2", "CK").replace("D3", "CQ")
    assert other != OBS_DEAL
    states2 = play_cards(env, env.init_from_deal(other, 0), MOVES)
    for a, b in zip(states, states2):
        for seat in (0, 1):
            np.testing.assert_array_equal(np.asarray(gz.observe(a, seat)), np.asarray(gz.observe(b, seat)))
    a, b = states[-1], states2[-1]
    for seat in (2, 3):
        assert not np.array_equal(np.asarray(gz.observe(a, seat)), np.asarray(gz.observe(b, seat)))
    assert not np.array_equal(np.asarray(gz.observe_oracle(a, 0)), np.asarray(gz.observe_oracle(b, 0)))
    # swapping seat 1's unplayed cards with seat 0's is visible to seat 0 only through its own hand
    third = list(OBS_DEAL)
    third[1] = OBS_DEAL[1].replace("DA", "DK")
    third[0] = OBS_DEAL[0].replace("DK", "DA")
    states3 = play_cards(env, env.init_from_deal(third, 0), MOVES)
    o, o3 = np.asarray(gz.observe(states[-1], 0)), np.asarray(gz.observe(states3[-1], 0))
    assert np.flatnonzero(o != o3).tolist() == sorted([C("DK"), C("DA")])
    np.testing.assert_array_equal(np.asarray(gz.observe(states[-1], 2)), np.asarray(gz.observe(states3[-1], 2)))


def test_observe_shows_exposed_cards(gz_exposure):
    env = gz_exposure.env
    s = env.init_from_deal(OBS_DEAL, 0)
    s = play_cards(env, s, "done done done SQ", step=gz_exposure.step)[-1]
    assert int(s.current_player) == 3
    o = np.asarray(gz_exposure.observe(s, 1))
    exposed = o[52 + 208 + 208 + 64 + 16:][:16].reshape(4, 4)
    expect = np.zeros((4, 4))
    expect[2, 0] = 1  # seat 3 is two after seat 1; SQ is the first exposable card
    np.testing.assert_array_equal(exposed, expect)
