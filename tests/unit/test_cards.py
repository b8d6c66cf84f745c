"""Card strings <-> indices, and the checks on explicit Gongzhu deals."""

from __future__ import annotations

import numpy as np
import pytest

import cardjax
from cardjax import cards
from cardjax.games.gongzhu import env as gongzhu

SUIT_DEAL = [
    "S2 S3 S4 S5 S6 S7 S8 S9 S10 SJ SQ SK SA",
    "H2 H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK HA",
    "D2 D3 D4 D5 D6 D7 D8 D9 D10 DJ DQ DK DA",
    "C2 C3 C4 C5 C6 C7 C8 C9 C10 CJ CQ CK CA",
]


def test_round_trip_all_52():
    names = [cards.card_str(i) for i in range(52)]
    assert len(set(names)) == 52
    for i, name in enumerate(names):
        assert cards.card_index(name) == i
    assert names[:13] == ["S2", "S3", "S4", "S5", "S6", "S7", "S8", "S9", "S10", "SJ", "SQ", "SK", "SA"]
    assert names[13] == "H2" and names[26] == "D2" and names[39] == "C2" and names[51] == "CA"


@pytest.mark.parametrize("text, index", [
    ("S2", 0), ("SQ", 10), ("SA", 12), ("H2", 13), ("HA", 25), ("DJ", 35), ("C10", 47), ("CA", 51),
    ("ST", 8), ("S10", 8), ("HT", 21), ("CT", 47), ("c10", 47), ("ct", 47), ("sq", 10), ("dJ", 35),
    (" HA ", 25),
    ("♠Q", 10), ("Q♠", 10), ("♥A", 25), ("A♥", 25), ("♦J", 35), ("J♦", 35), ("♣10", 47), ("10♣", 47),
    ("♣T", 47), ("t♣", 47),
])
def test_aliases(text, index):
    assert cards.card_index(text) == index


@pytest.mark.parametrize("bad", ["", "S", "S1", "S11", "X2", "SQQ", "Q", "10", "SQ ", "S 2", "H0", "JS?", "♠"])
def test_unknown_card_raises(bad):
    if bad == "SQ ":  # surrounding spaces are allowed
        assert cards.card_index(bad) == 10
        return
    with pytest.raises(ValueError) as err:
        cards.card_index(bad)
    assert repr(bad) in str(err.value)


def test_non_string_card_raises():
    for bad in (10, None, b"SQ"):
        with pytest.raises(ValueError, match="string"):
            cards.card_index(bad)
    with pytest.raises(ValueError, match="52"):
        cards.card_str(52)
    with pytest.raises(ValueError):
        cards.card_str(-1)


def test_parse_and_print():
    np.testing.assert_array_equal(cards.parse_cards("SQ, H10 c2"), [10, 21, 39])
    np.testing.assert_array_equal(cards.parse_cards(["SQ", "DJ"]), [10, 35])
    m = cards.cards_mask("SQ DJ C10 HA")
    assert m.dtype == bool and m.shape == (52,) and m.sum() == 4
    assert cards.cards_str(m) == "SQ HA DJ C10"
    assert cards.cards_str([47, 10, -1, 25]) == "SQ HA C10"
    assert cards.cards_str([47, 10], sort=False) == "C10 SQ"
    assert cards.cards_str(np.zeros(52, bool)) == ""
    with pytest.raises(ValueError, match="SQ"):
        cards.cards_mask("SQ DJ sq")
    with pytest.raises(ValueError, match="XX"):
        cards.parse_cards("SQ XX")
    # a card twice is refused by both, not only by the mask
    for text in ("SQ SQ", ["DJ", "SQ", "dj"]):
        with pytest.raises(ValueError, match="named twice"):
            cards.parse_cards(text)
    for bad in (None, 10):
        with pytest.raises(ValueError, match="a string like 'SQ DJ C10' or a list"):
            cards.parse_cards(bad)
    with pytest.raises(ValueError, match="52"):
        cards.cards_str(np.zeros(51, bool))


# ------------------------------------------------------------------ explicit deals
def test_owner_from_hands_ok():
    owner = gongzhu.owner_from_hands(SUIT_DEAL)
    assert owner.shape == (52,)
    np.testing.assert_array_equal(owner, np.arange(52) // 13)
    # index lists work too
    owner2 = gongzhu.owner_from_hands([list(range(13 * s, 13 * s + 13)) for s in range(4)])
    np.testing.assert_array_equal(owner2, owner)


def test_owner_from_hands_errors():
    with pytest.raises(ValueError, match="4 hands"):
        gongzhu.owner_from_hands(SUIT_DEAL[:3])
    # a card twice, across two hands: both seats named
    bad = [SUIT_DEAL[0].replace("SA", "HA"), *SUIT_DEAL[1:]]
    with pytest.raises(ValueError, match=r"HA.*seats 0 and 1"):
        gongzhu.owner_from_hands(bad)
    # a card twice in one hand
    bad = [SUIT_DEAL[0].replace("SA", "SK"), *SUIT_DEAL[1:]]
    with pytest.raises(ValueError, match="SK"):
        gongzhu.owner_from_hands(bad)
    # a seat with 12 cards (and another with 14)
    bad = [SUIT_DEAL[0].replace(" SA", ""), SUIT_DEAL[1] + " SA", *SUIT_DEAL[2:]]
    with pytest.raises(ValueError, match=r"13 cards.*\[12, 14, 13, 13\]"):
        gongzhu.owner_from_hands(bad)
    # a card nobody holds
    bad = [SUIT_DEAL[0].replace(" SA", ""), *SUIT_DEAL[1:]]
    with pytest.raises(ValueError, match="SA"):
        gongzhu.owner_from_hands(bad)
    # an unknown card string
    bad = [SUIT_DEAL[0].replace("SA", "SZ"), *SUIT_DEAL[1:]]
    with pytest.raises(ValueError, match="SZ"):
        gongzhu.owner_from_hands(bad)


def test_init_from_deal_errors():
    env = cardjax.make("gongzhu")
    owner = np.arange(52) // 13
    env.init_from_deal(owner, 3)  # fine
    with pytest.raises(ValueError, match=r"shape \(52,\)"):
        env.init_from_deal(owner[:51])
    with pytest.raises(ValueError, match=r"shape \(52,\)"):
        env.init_from_deal(owner.reshape(4, 13))
    with pytest.raises(ValueError, match=r"shape \(52,\)"):
        env.init_from_deal(np.concatenate([owner, [0]]))
    twice = owner.copy()
    twice[12] = 1  # SA at seat 1 as well: seat 0 has 12 cards, seat 1 has 14
    with pytest.raises(ValueError, match=r"\[12, 14, 13, 13\]"):
        env.init_from_deal(twice)
    for seat in (-1, 4, 7):
        out = owner.copy()
        out[10] = seat
        with pytest.raises(ValueError, match="SQ"):
            env.init_from_deal(out)
    with pytest.raises(ValueError, match="integer"):
        env.init_from_deal(owner.astype(float))
    for leader in (-1, 4):
        with pytest.raises(ValueError, match=f"leader.*{leader}"):
            env.init_from_deal(owner, leader)
    # hands written as strings go through owner_from_hands and its checks
    with pytest.raises(ValueError, match="4 hands|shape"):
        env.init_from_deal(SUIT_DEAL[:3])
    bad = [SUIT_DEAL[0].replace("SA", "HA"), *SUIT_DEAL[1:]]
    with pytest.raises(ValueError, match="HA"):
        env.init_from_deal(bad)
