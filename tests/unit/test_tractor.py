"""Tractor: the appendix 7.2 examples of the ShengJi+ report, tractors, throws, scoring, and
random whole hands under jit(vmap).  Compiled functions are built once per module."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from cardjax.games.tractor import env as T
from cardjax.games.tractor import state_facts
from cardjax.games.tractor import cards as TC
from cardjax.games.tractor import helpers as TH
from cardjax.games.tractor import moves as tm
from cardjax.games.tractor import observe as TO
from cardjax.games.tractor.match import TractorMatch
from conftest import BATCH

# Appendix 7.2, first table: level 5, hearts trump.
P1 = "A♦ Q♦ Q♦ J♦ J♦ T♦ T♦ 9♦ 8♣ 6♣ 2♣ A♠ A♠ K♠ K♥ J♥ 9♥ 7♥ 3♥ 3♥ 5♣ 5♥ 5♥ XJ XJ"
P2 = "A♦ K♦ K♦ 8♦ 6♦ 6♦ 4♦ 4♦ A♣ Q♣ Q♣ 4♣ 4♣ 3♣ K♠ J♠ 7♠ 3♠ A♥ T♥ T♥ 7♥ 2♥ 5♠ DJ"
# Second table (ruffs).  The report prints player 2's first suit as spades, but its text says
# player 2 holds no spades and leads diamonds from it: it is diamonds.
R1 = "A♣ Q♣ Q♣ J♣ T♣ T♣ 9♣ A♠ A♠ K♠ K♥ J♥ 3♥ 3♥ 5♣ 5♥ 5♥ XJ XJ"
R2 = "A♦ J♦ T♦ 8♦ 6♦ 6♦ 4♦ 4♦ A♣ K♣ K♣ 4♣ A♥ T♥ T♥ 7♥ 2♥ 2♥ 5♠ DJ"


def opts(hand, lead, level=5, trump="H"):
    return {" ".join(sorted(p)) for p in TH.follow_choices(hand, lead, level, trump)}


def play(*cards):
    return " ".join(sorted(" ".join(cards).split()))


# ---------------------------------------------------------------------------- cards
def test_card_strings():
    assert TC.card_type("K♠") == TC.card_type("KS") == TC.card_type("sk") == 11
    assert TC.card_type("T♥") == TC.card_type("10H") == 13 + 8
    assert TC.card_type("XJ") == 52 and TC.card_type("DJ") == 53
    assert TC.type_str(53) == "DJ" and TC.type_str(13 * 2 + 9) == "J♦"
    with pytest.raises(ValueError, match="ZZ"):
        TC.card_type("ZZ")
    with pytest.raises(ValueError, match="1X"):
        TH.follow_choices("A♠ 1X", "K♠", 5, "H")
    with pytest.raises(ValueError, match="trump"):
        TH.follow_choices("A♠", "K♠", 5, "Q")
    with pytest.raises(ValueError, match="level"):
        TH.follow_choices("A♠", "K♠", 15, "H")


def test_orders_skip_level_and_trump_chain():
    lv, sp = TC.parse_level(5), TC.parse_trump("S")
    order, eff = tm.ORD[lv, sp], tm.EFF[lv, sp]
    o = lambda c: order[TC.card_type(c)]  # noqa: E731
    assert o("4♦") + 1 == o("6♦")  # the level rank is skipped
    assert [o(c) for c in ("A♠", "5♦", "5♠", "XJ", "DJ")] == [14, 15, 16, 17, 18]
    assert o("5♦") == o("5♣") == o("5♥")
    assert all(eff[TC.card_type(c)] == tm.TRUMP for c in ("5♦", "2♠", "XJ"))
    nt = TC.parse_trump("NT")
    assert tm.ORD[lv, nt][TC.card_type("5♦")] == tm.ORD[lv, nt][TC.card_type("5♠")] == 16
    assert tm.EFF[lv, nt][TC.card_type("2♠")] == 0


def test_dynamic_encoding_places():
    """The report's figure 4.1: at level 4 with hearts trump, 3-3-5-5♥ sit side by side (the level
    rank is skipped); the trump suit comes after the plain suits, then the level cards and the
    jokers.  Over every level and trump: a permutation, and within an effective suit the places
    rise with the cards' order."""
    lv, h = TC.parse_level(4), TC.parse_trump("H")
    place = lambda c, lv=lv, tr=h: int(tm.DYN[lv, tr, TC.card_type(c)])  # noqa: E731
    assert place("5♥") == place("3♥") + 1 == 38
    assert [place(c) for c in ("2♠", "A♠", "2♦", "A♣", "2♥", "A♥")] == [0, 11, 12, 35, 36, 47]
    assert [place(c) for c in ("4♠", "4♦", "4♣", "4♥", "XJ", "DJ")] == [48, 49, 50, 51, 52, 53]
    nt = TC.parse_trump("NT")
    assert [place(c, tr=nt) for c in ("2♠", "2♣", "A♣", "4♠", "4♣")] == [0, 36, 47, 48, 51]
    assert tm.SUIT_ORDER[h].tolist() == [0, 2, 3, 1] and tm.SUIT_ORDER[nt].tolist() == [0, 1, 2, 3]
    for lv in range(13):
        for tr in range(5):
            dyn, eff, order = tm.DYN[lv, tr], tm.EFF[lv, tr, :54], tm.ORD[lv, tr, :54]
            assert sorted(dyn.tolist()) == list(range(54))
            for e in range(5):
                cards = np.flatnonzero(eff == e)
                by_place = cards[np.argsort(dyn[cards])]
                assert np.all(np.diff(order[by_place]) >= 0), (lv, tr, e)


def test_to_dynamic_reorders_every_card_block():
    """A state's observation in the dynamic encoding: each 54-card block (own hand, table,
    played, revealed, last trick per seat, kitty; the oracle's hands and kitty) holds type t at
    place DYN[t], the voids' suits follow SUIT_ORDER, and everything else is unchanged."""
    env = T.Tractor()
    hands = ["A♠ A♠ K♠ 3♥ 5♥ 5♥ 4♥ XJ", "2♦ 3♦", "4♠ 7♣", "DJ 6♥"]
    s = env.trick_state(hands, 4, "H", leader=0, dealer=0)
    s = s.replace(voids=s.voids.at[1, 3].set(True).at[2, 4].set(True),
                  played=s.played.at[3, TC.card_type("9♦")].set(1))
    lv, tr = int(s.level), int(s.trump)
    obs = np.asarray(env.observe_oracle(s, 0))
    dyn = np.asarray(TO.to_dynamic(jnp.asarray(obs), s.level, s.trump))
    assert dyn.shape == (TO.ORACLE_SIZE,) and dyn.sum() == pytest.approx(obs.sum())
    place = tm.DYN[lv, tr]
    hand = np.zeros(54)
    hand[place] = np.asarray(s._hands[0]) / 2
    np.testing.assert_array_equal(dyn[:54], hand)
    played = 81 + 54 * 4 + 54 * 3  # the played block of seat 3 (relative: previous)
    assert dyn[played + place[TC.card_type("9♦")]] == 0.5
    assert dyn[played:played + 54].sum() == 0.5
    oracle = TO.OBS_SIZE + 54 * 3  # seat 3's hand in the oracle part
    assert dyn[oracle + place[TC.card_type("DJ")]] == 0.5 == dyn[oracle + 53]
    voids = 81 + 16 * 54
    v = dyn[voids:voids + 20].reshape(4, 5)
    assert v[1].tolist() == [0, 0, 1, 0, 0]  # clubs: the third plain suit (S D C, then H)
    assert v[2].tolist() == [0, 0, 0, 0, 1]  # trump stays last
    cards = np.zeros(TO.ORACLE_SIZE, bool)
    for b in [0] + [81 + 54 * i for i in range(16)] + [TO.OBS_SIZE - 54] + \
            [TO.OBS_SIZE + 54 * i for i in range(5)]:
        cards[b:b + 54] = True
    cards[voids:voids + 20] = True
    np.testing.assert_array_equal(dyn[~cards], obs[~cards])
    np.testing.assert_array_equal(np.asarray(TO.to_dynamic(jnp.asarray(obs[:TO.OBS_SIZE]), lv, tr)),
                                  dyn[:TO.OBS_SIZE])
    with pytest.raises(ValueError, match="1033"):
        TO.to_dynamic(jnp.zeros(1033), lv, tr)


# ---------------------------------------------------------------------------- appendix 7.2
def test_single_pattern_spade_single():
    assert opts(P2, "K♠") == {"K♠", "J♠", "7♠", "3♠"}


def test_single_pattern_trump_pair():
    assert opts(P2, "3♥ 3♥") == {"T♥ T♥"}
    assert TH.winning_seat(["3♥ 3♥", "T♥ T♥"], 5, "H") == 1


def test_single_pattern_club_pair():
    assert opts(P1, "Q♣ Q♣") == {play("6♣ 2♣"), play("8♣ 2♣"), play("8♣ 6♣")}


def test_two_tractor_across_level():
    assert opts(P1, "6♦ 6♦ 4♦ 4♦") == {play("Q♦ Q♦ J♦ J♦"), play("J♦ J♦ T♦ T♦")}
    for f in ("Q♦ Q♦ J♦ J♦", "J♦ J♦ T♦ T♦"):
        assert TH.winning_seat(["6♦ 6♦ 4♦ 4♦", f], 5, "H") == 1


def test_three_tractor():
    assert opts(P2, "Q♦ Q♦ J♦ J♦ T♦ T♦") == {play("K♦ K♦ 6♦ 6♦ 4♦ 4♦")}
    assert TH.winning_seat(["Q♦ Q♦ J♦ J♦ T♦ T♦", "K♦ K♦ 6♦ 6♦ 4♦ 4♦"], 5, "H") == 0


def test_trump_two_tractor():
    expect = {play(x) for x in ("T♥ T♥ 7♥ 2♥", "A♥ T♥ T♥ 2♥", "A♥ T♥ T♥ 7♥", "A♥ T♥ T♥ 5♠",
                                "T♥ T♥ 7♥ 5♠", "T♥ T♥ 2♥ 5♠", "A♥ T♥ T♥ DJ", "T♥ T♥ 7♥ DJ",
                                "T♥ T♥ 2♥ DJ", "T♥ T♥ 5♠ DJ")}
    assert opts(P2, "5♥ 5♥ XJ XJ") == expect


def test_combo_pair_single():
    assert opts(P2, "A♠ A♠ K♠") == {play("J♠ 7♠ 3♠"), play("K♠ 7♠ 3♠"), play("K♠ J♠ 7♠"),
                                    play("K♠ J♠ 3♠")}
    for f in opts(P2, "A♠ A♠ K♠"):
        assert TH.winning_seat(["A♠ A♠ K♠", f], 5, "H") == 0


def test_combo_short_suit():
    got = opts(P1, "A♣ Q♣ Q♣ 4♣ 4♣")
    rest = TC.parse_counts(P1) - TC.parse_counts("8♣ 6♣ 2♣")
    types = [t for t in range(54) for _ in range(rest[t])]
    expect = {play("8♣ 6♣ 2♣", TC.type_str(a), TC.type_str(b))
              for a, b in itertools.combinations(types, 2)}
    assert got == expect and len(got) == 112
    assert play("8♣ 6♣ 2♣ A♦ Q♦") in got and play("8♣ 6♣ 2♣ XJ XJ") in got


def test_combo_throw_fails_against_bigger_tractor():
    stands, played = TH.throw_result("A♦ 6♦ 6♦ 4♦ 4♦", [P1], 5, "H")
    assert not stands and play(*played) == play("6♦ 6♦ 4♦ 4♦")


def test_combo_three_tractor_single():
    assert opts(P2, "A♦ Q♦ Q♦ J♦ J♦ T♦ T♦") == {play("A♦ K♦ K♦ 6♦ 6♦ 4♦ 4♦"),
                                              play("K♦ K♦ 8♦ 6♦ 6♦ 4♦ 4♦")}


def test_ruff_single():
    got = opts(R2, "K♠")
    assert got == {TC.type_str(t) for t in np.flatnonzero(TC.parse_counts(R2))}
    assert TH.winning_seat(["K♠", "2♥"], 5, "H") == 1
    assert TH.winning_seat(["K♠", "A♦"], 5, "H") == 0  # a discard
    assert TH.winning_seat(["A♠ K♠", "XJ XJ", "2♥ DJ"], 5, "H") == 2


def test_ruff_pair_single():
    got = opts(R2, "A♠ A♠ K♠")
    assert len(got) > 100  # any three cards
    listed = {play(x) for x in ("A♥ T♥ T♥", "T♥ T♥ 7♥", "T♥ T♥ 2♥", "T♥ T♥ 5♠", "T♥ T♥ DJ")}
    assert listed <= got
    trumps = "A♥ T♥ T♥ 7♥ 2♥ 2♥ 5♠ DJ".split()
    for x in {play(*c) for c in itertools.combinations(trumps, 3)}:
        has_pair = any(x.split().count(c) == 2 for c in x.split())
        assert TH.winning_seat(["A♠ A♠ K♠", x], 5, "H") == int(has_pair), x
    # several ruffs of pairs: the highest pair wins (88 over 77 although 7766 is a tractor)
    assert TH.winning_seat(["A♣ A♣ K♣ 9♣ 9♣", "7♥ 7♥ 6♥ 6♥ DJ", "8♥ 8♥ 3♥ 2♥ 2♥"], 5, "H") == 2
    assert TH.winning_seat(["A♣ A♣ K♣ 9♣ 9♣", "7♥ 7♥ 6♥ 6♥ DJ"], 5, "H") == 1


def test_ruff_tractor_two_singles():
    # (R1 cut to its trumps and two clubs, to keep the enumeration of "any six cards" small)
    got = opts("K♥ J♥ 3♥ 3♥ 5♣ 5♥ 5♥ XJ XJ A♣ Q♣", "A♦ J♦ 6♦ 6♦ 4♦ 4♦")
    ruffs = {play("5♥ 5♥ XJ XJ", a, b)
             for a, b in itertools.combinations("K♥ J♥ 3♥ 3♥ 5♣".split(), 2)}
    assert len(ruffs) == 7 and ruffs <= got
    for r in ruffs:
        assert TH.winning_seat(["A♦ J♦ 6♦ 6♦ 4♦ 4♦", r], 5, "H") == 1
    # trump cards without the tractor do not ruff
    assert TH.winning_seat(["A♦ J♦ 6♦ 6♦ 4♦ 4♦", "K♥ J♥ 3♥ 3♥ 5♥ 5♥"], 5, "H") == 0
    # two ruffs: the higher tractor wins whatever the kickers
    assert TH.winning_seat(["A♦ J♦ 6♦ 6♦ 4♦ 4♦", "5♥ 5♥ XJ XJ 3♥ 3♥",
                           "K♥ K♥ Q♥ Q♥ A♥ DJ"], 5, "H") == 1


# ---------------------------------------------------------------------------- tractors
def test_trump_chain_and_offsuit_level_pairs():
    # trump S, level 2: A♠A♠ 2♦2♦ is a tractor, 2♦2♦ 2♣2♣ is not
    hand = "3♠ 3♠ 4♠ 4♠ 7♠ 7♠ 9♠"
    assert opts(hand, "A♠ A♠ 2♦ 2♦", 2, "S") == {play("4♠ 4♠ 3♠ 3♠")}
    assert opts(hand, "2♦ 2♦ 2♣ 2♣", 2, "S") == {play("4♠ 4♠ 3♠ 3♠"), play("3♠ 3♠ 7♠ 7♠"),
                                                play("4♠ 4♠ 7♠ 7♠")}
    # the whole chain A♠ - 2♦ - 2♠ - XJ - DJ is one tractor
    chain = "A♠ A♠ 2♦ 2♦ 2♠ 2♠ XJ XJ DJ DJ"
    five = "3♠ 3♠ 4♠ 4♠ 5♠ 5♠ 6♠ 6♠ 7♠ 7♠ 9♠ 2♥"
    assert opts(five, chain, 2, "S") == {play("3♠ 3♠ 4♠ 4♠ 5♠ 5♠ 6♠ 6♠ 7♠ 7♠")}
    # 2♦2♦ 2♣2♣ 2♠2♠: a 2-tractor (one off-suit pair below 2♠) and a pair
    got = opts("3♠ 3♠ 4♠ 4♠ 5♠ 5♠ 8♠ 8♠ 9♠", "2♦ 2♦ 2♣ 2♣ 2♠ 2♠", 2, "S")
    assert got == {play("3♠ 3♠ 4♠ 4♠ 5♠ 5♠"), play("3♠ 3♠ 4♠ 4♠ 8♠ 8♠"),
                   play("4♠ 4♠ 5♠ 5♠ 8♠ 8♠")}
    assert TH.winning_seat(["2♦ 2♦ 2♠ 2♠", "A♠ A♠ 2♣ 2♣"], 2, "S") == 0
    assert TH.winning_seat(["A♠ A♠ 2♣ 2♣", "2♦ 2♦ 2♠ 2♠"], 2, "S") == 1
    # two pairs led: compared by the highest pair (2♦/2♣ = 15 above A♠ = 14, below XJ)
    assert TH.winning_seat(["2♦ 2♦ 2♣ 2♣", "K♠ K♠ A♠ A♠"], 2, "S") == 0
    assert TH.winning_seat(["2♦ 2♦ 2♣ 2♣", "K♠ K♠ XJ XJ"], 2, "S") == 1
    # off-suit level cards tie: the earlier play keeps the trick
    assert TH.winning_seat(["2♦", "2♣", "2♥"], 2, "S") == 0
    assert TH.winning_seat(["2♦", "2♣", "2♠"], 2, "S") == 2


def test_skipped_level_rank_in_plain_suit():
    hand = "5♦ 5♦ 3♦ 3♦ 9♦ 9♦ J♦"
    # level 4: 5♦5♦3♦3♦ is a tractor and must answer a tractor lead
    assert opts(hand, "8♦ 8♦ 7♦ 7♦", 4, "S") == {play("5♦ 5♦ 3♦ 3♦")}
    # level 6: no tractor, any two pairs
    assert opts(hand, "8♦ 8♦ 7♦ 7♦", 6, "S") == {play("5♦ 5♦ 3♦ 3♦"), play("5♦ 5♦ 9♦ 9♦"),
                                                play("3♦ 3♦ 9♦ 9♦")}
    assert TH.winning_seat(["8♦ 8♦ 7♦ 7♦", "5♦ 5♦ 3♦ 3♦"], 4, "S") == 0
    assert TH.winning_seat(["5♦ 5♦ 3♦ 3♦", "8♦ 8♦ 7♦ 7♦"], 4, "S") == 1
    # level 6: 5♦5♦3♦3♦ is two pairs, beaten by the higher pairs 9♦9♦8♦8♦
    assert TH.winning_seat(["5♦ 5♦ 3♦ 3♦", "9♦ 9♦ 8♦ 8♦"], 6, "S") == 1
    assert TH.winning_seat(["8♦ 8♦ 7♦ 7♦", "5♦ 5♦ 3♦ 3♦"], 6, "S") == 0
    assert TH.winning_seat(["8♦ 8♦ 7♦ 7♦", "9♦ 9♦ 5♦ 5♦"], 6, "S") == 0  # pairs, no tractor


def test_no_trump_hands():
    # NT at level 2: level cards tie at 16, chain only into the jokers
    assert opts("2♥ 2♥ DJ DJ 2♦ 9♣", "2♠ 2♠ XJ XJ", 2, "NT") == {play("2♥ 2♥ DJ DJ")}
    assert TH.winning_seat(["2♠ 2♠ 2♥ 2♥", "XJ XJ DJ DJ"], 2, "NT") == 1
    assert TH.winning_seat(["2♠", "2♥", "XJ"], 2, "NT") == 2
    assert TH.winning_seat(["A♠", "2♥", "K♠"], 2, "NT") == 1
    assert opts("2♥ 2♥ XJ DJ DJ 5♣", "2♠ 2♠ 2♦ 2♦", 2, "NT") == {play("2♥ 2♥ DJ DJ")}


# ---------------------------------------------------------------------------- throws
def test_throw_stands_or_fails_on_each_other_hand():
    lead = "A♠ K♠ Q♠ Q♠"  # level 2, trump H: singles A, K and pair QQ
    alone = TH.throw_result(lead, [""], 2, "H")[1]
    assert TH.throw_result(lead, ["3♠", "J♠ J♠", "XJ"], 2, "H") == (True, alone)
    for i in range(3):  # partner (the middle hand) included
        hands = ["3♠", "4♠", "5♠"]
        hands[i] = "K♠ K♠"
        stands, played = TH.throw_result(lead, hands, 2, "H")
        assert not stands and play(*played) == play("Q♠ Q♠")
    stands, played = TH.throw_result(lead, ["A♠", "K♠ K♠", ""], 2, "H")
    assert not stands and played == ["K♠"]  # the smallest failing unit: a single
    lead2 = "A♠ 8♠ 8♠ 7♠ 7♠"
    stands, played = TH.throw_result(lead2, ["J♠ J♠ T♠ T♠"], 2, "H")
    assert not stands and play(*played) == play("8♠ 8♠ 7♠ 7♠")
    assert TH.throw_result(lead2, ["J♠ J♠ 9♠ 9♠"], 2, "H")[0]  # pairs, not a tractor
    assert TH.throw_result("K♠", ["A♠ A♠"], 2, "H")[0]  # one unit always stands


def test_failed_throw_tie_goes_to_the_first_suit():
    """The rules' tie-break between failing units of equal size and order (off-suit level cards):
    the first suit in the order S H D C.  Their example: level 5, no trump, 5♠ and 5♣ fail
    against a joker and 5♠ is played."""
    for lead in ("5♠ 5♣", "5♣ 5♠"):
        assert TH.throw_result(lead, ["XJ"], 5, "NT") == (False, ["5♠"])
    # with a trump suit the off-suit level cards tie at order 15: ♥ before ♣, ♠ before ♦
    assert TH.throw_result("5♣ 5♥", ["5♦ 5♦ 3♣", "DJ"], 5, "D") == (False, ["5♥"])
    assert TH.throw_result("5♦ 5♠", ["5♥"], 5, "H") == (False, ["5♠"])


@pytest.fixture(scope="module")
def env_step():
    """The default env and its step, run eagerly: the env jits its step once per option set, so
    this shares the compile with the contract tests."""
    env = T.Tractor()
    return env, env.step


def _act(step, s, cards):
    for c in cards.split():
        a = T.DONE if c == "done" else TC.card_type(c)
        assert bool(s.legal_action_mask[a]), (c, s.current_player)
        s = step(s, jnp.int32(a))
    return s


def test_failed_throw_in_play_reveals_and_penalises(env_step):
    env, step = env_step
    hands = ["A♠ K♠ J♠ J♠ 3♦", "Q♠ Q♠ 4♦ 5♦ 6♦", "2♣ 3♣ 4♣ 5♣ 6♣", "7♣ 8♣ 9♣ T♣ J♣"]
    s = env.trick_state(hands, 2, "H", leader=0, dealer=1)  # seat 0 attacks
    s = _act(step, s, "A♠ K♠ J♠ J♠")
    penalised = jax.jit(T.Tractor(throw_penalty=10)._end_lead)(s)
    s = _act(step, s, "done")
    assert int(s.penalty) == 0 and int(penalised.penalty) == -10
    assert TC.counts_str(s.trick[0]) == "J♠ J♠"
    assert TC.counts_str(s.revealed[0]) == "A♠ K♠"
    # seat 1 must follow the pair with its pair
    legal = {TC.type_str(t) for t in np.flatnonzero(np.asarray(s.legal_action_mask)[:54])}
    assert legal == {"Q♠"}
    s = _act(step, s, "Q♠ Q♠ 2♣ 3♣ 7♣ 8♣")
    assert int(s.last_winner) == 1 and int(s.leader) == 1
    assert TC.counts_str(s.revealed[0]) == "A♠ K♠"  # still in hand, still public


# ---------------------------------------------------------------------------- scoring
@pytest.mark.parametrize("score,att,dfn", [
    (0, 0, 3), (5, 0, 2), (35, 0, 2), (40, 0, 1), (75, 0, 1), (80, 0, 0), (115, 0, 0),
    (120, 1, 0), (155, 1, 0), (160, 2, 0), (195, 2, 0), (200, 3, 0), (240, 4, 0)])
def test_level_table(score, att, dfn):
    a, d = state_facts.level_change(jnp.int32(score), "standard")
    assert (int(a), int(d)) == (att, dfn)
    # shengji_plus: 1 + (A - 80) // 40 from 80 up, so one level above standard from 80 on (it
    # once changed only the 80..115 band)
    a, d = state_facts.level_change(jnp.int32(score), "shengji_plus")
    assert (int(a), int(d)) == ((att + 1 if score >= 80 else 0), dfn)


def _rules_levels(score, levels):
    """The rules file's tables, written out: (attackers' gain, defenders' gain)."""
    dfn = 3 if score == 0 else 2 if score < 40 else 1 if score < 80 else 0
    if levels == "standard":
        att = 1 + (score - 120) // 40 if score >= 120 else 0
    else:  # the report's code: from A = 80 up, 1 + (A - 80) // 40
        att = 1 + (score - 80) // 40 if score >= 80 else 0
    return att, dfn


@pytest.mark.parametrize("levels", ["standard", "shengji_plus"])
def test_level_tables_follow_the_rules_formula(levels):
    scores = [0, 35, 75, 80, 115, 120, 155, 160, 200]
    a, d = state_facts.level_change(jnp.asarray(scores, jnp.int32), levels)
    assert list(zip(np.asarray(a).tolist(), np.asarray(d).tolist())) == \
        [_rules_levels(x, levels) for x in scores]
    if levels == "shengji_plus":  # 80-115 +1, 120-155 +2, 160-195 +3, 200 +4
        assert np.asarray(a).tolist() == [0, 0, 0, 1, 1, 2, 2, 3, 4]


_END_HAND = {}


def end_hand_times(env):
    if "f" not in _END_HAND:
        _END_HAND["f"] = jax.jit(env._end_hand)
    return _END_HAND["f"]


@pytest.mark.parametrize("last,mult,times", [("K♠", 2, 2), ("K♠ K♠", 4, 4),
                                             ("K♠ K♠ Q♠ Q♠", 16, 8)])
def test_kitty_multiplier(env_step, last, mult, times):
    env, step = env_step
    n = len(last.split())
    lead = last
    hands = [lead, " ".join(["3♦"] * min(n, 2) + ["4♦"] * max(0, n - 2)),
             " ".join(["3♣"] * min(n, 2) + ["4♣"] * max(0, n - 2)),
             " ".join(["6♣"] * min(n, 2) + ["7♣"] * max(0, n - 2))]
    s = env.trick_state(hands, 2, "H", leader=0, dealer=1)
    kitty = TC.parse_counts("5♥ T♥ 3♥ 4♥ 6♥ 7♥ 8♥ 9♥")  # 15 points
    s = s.replace(trick_no=jnp.int32(24), _kitty=jnp.asarray(kitty, jnp.int8))
    s = _act(step, s, lead + " done " + " ".join(hands[1].split() + hands[2].split() + hands[3].split()))
    assert bool(s.terminated)
    assert int(s.kitty_points) == 15 and int(s.kitty_bonus) == 15 * mult
    assert int(s.attacker_points) == 10 * lead.count("K")
    # the "times" option on the same final position
    env2 = T.Tractor(kitty_multiplier="times")
    s2 = end_hand_times(env2)(s.replace(terminated=jnp.bool_(False)), jnp.bool_(True))
    assert int(s2.kitty_bonus) == 15 * times
    # defenders winning the last trick: no bonus
    s3 = env.trick_state(hands, 2, "H", leader=0, dealer=0).replace(
        trick_no=jnp.int32(24), _kitty=jnp.asarray(kitty, jnp.int8))
    s3 = _act(step, s3, lead + " done " + " ".join(hands[1].split() + hands[2].split() + hands[3].split()))
    assert int(s3.kitty_bonus) == 0 and int(s3.defender_points) == 10 * lead.count("K")


@pytest.mark.parametrize("hands,power,times", [
    # two separate pairs ruffed by a trump tractor of two pairs: its 4-card unit counts
    (["3♥ 3♥ 9♥ 9♥", "5♠ 5♠ 6♠ 6♠", "4♥ 6♥ 7♥ 8♥", "7♣ 8♣ 9♣ J♣"], 16, 8),
    # three singles ruffed by a pair and a single: the pair counts
    (["K♥ Q♥ 9♥", "5♠ 5♠ 6♠", "3♥ 4♥ 7♥", "3♣ 7♣ 8♣"], 4, 4)])
def test_kitty_multiplier_counts_the_winning_play(env_step, hands, power, times):
    """The rules' multiplier is 2 ** (cards in the largest unit of the winning play) of the last
    trick (``"times"``: 2 x that size): a ruff with a larger structure than the lead's counts."""
    env, step = env_step
    s = env.trick_state(hands, 2, "S", leader=0, dealer=0)  # seat 1 (attacking) ruffs
    kitty = TC.parse_counts("K♦ K♦ 3♦ 4♦ 6♦ 7♦ 8♦ 9♦")  # 20 points
    s = s.replace(trick_no=jnp.int32(24), _kitty=jnp.asarray(kitty, jnp.int8))
    s = _act(step, s, hands[0] + " done " + " ".join(hands[1:]))
    assert bool(s.terminated) and int(s.last_winner) == 1
    assert int(s.kitty_points) == 20 and int(s.kitty_bonus) == 20 * power
    s2 = end_hand_times(T.Tractor(kitty_multiplier="times"))(
        s.replace(terminated=jnp.bool_(False)), jnp.bool_(True))
    assert int(s2.kitty_bonus) == 20 * times


# ---------------------------------------------------------------------------- random hands
@pytest.fixture(scope="module")
def games():
    """A few random hands from the shared compiled vmapped playout (the contract tests' one)."""
    from conftest import get_compiled, to_numpy
    c = get_compiled("tractor")
    first, states, actions = to_numpy(c.batch_rollout(jax.random.split(jax.random.PRNGKey(42), BATCH)))
    return c, first, states, actions


def test_random_hands_terminate_without_dead_ends(games):
    c, first, states, actions = games
    term = states.terminated
    assert term[:, -1].all()
    for b in range(BATCH):
        end = int(np.argmax(term[b]))
        live = states.legal_action_mask[b, :end]
        assert live.any(axis=1).all()
        prev = np.concatenate([first.legal_action_mask[b][None], live], axis=0)
        assert prev[np.arange(end + 1), actions[b, :end + 1]].all()
        r = states.rewards[b].sum(axis=0)
        assert abs(r.sum()) < 1e-6 and r[0] == r[2] and r[1] == r[3]
        last = jax.tree_util.tree_map(lambda x: x[b, end], states)
        assert last.attacker_points + last.defender_points + last.kitty_points == 200
        assert last.level_gain.max() == abs(r[0])
        assert (last._hands == 0).all() and last.played.sum() == 100


def test_random_hands_conserve_cards(games):
    c, first, states, actions = games
    deal = states._deal.astype(int)
    for b in range(BATCH):
        for t in range(0, c.max_steps, 7):
            s = jax.tree_util.tree_map(lambda x: x[b, t], states)
            total = s._hands.sum(0).astype(int) + s.played.sum(0) + s._kitty
            if s.phase == T.DECLARE:
                total = total + np.bincount(deal[b, t, s.turn + 1:], minlength=54)
            assert (total == 2).all(), (b, t)
            assert (s.hand_sizes == s._hands.sum(1)).all()
            assert (s._hands >= s.revealed).all()


def test_led_and_sloughed_cards_are_the_tricks_history(games):
    """``led`` and ``sloughed`` (move history for inference) add up the completed tricks: the
    leader's cards, and each follower's cards off the led effective suit."""
    c, first, states, actions = games
    checked = 0
    for b in range(BATCH):
        end = int(np.argmax(np.asarray(states.terminated[b])))
        if end == 0:
            continue
        g = jax.tree_util.tree_map(lambda x: np.asarray(x[b]), states)
        led, sloughed = np.zeros((4, 54), int), np.zeros((4, 54), int)
        eff = tm.EFF[int(g.level[end]), int(g.trump[end]), :54]
        for t in range(end):
            if g.trick_no[t + 1] != g.trick_no[t] + 1:
                continue
            trick, leader = g.last_trick[t + 1].astype(int), int(g.last_leader[t + 1])
            suit = eff[np.flatnonzero(trick[leader])[0]]
            led[leader] += trick[leader]
            for o in set(range(4)) - {leader}:
                sloughed[o] += np.where(eff != suit, trick[o], 0)
        np.testing.assert_array_equal(g.led[end], led)
        np.testing.assert_array_equal(g.sloughed[end], sloughed)
        assert (g.led[end] + g.sloughed[end] <= g.played[end]).all()
        checked += int(sloughed.sum() > 0)
    assert checked > 0


def test_observe_and_sample_hidden(games):
    c, first, states, actions = games
    obs, sample = c.observe, c.sample_hidden
    b = 0
    end = int(np.argmax(states.terminated[b]))
    voids_checked = 0
    for t, seat, k in ((50, 1, 0), (110, 1, 0), (200, 1, 0), (end - 30, 2, 0), (end - 30, 2, 1),
                       (end - 3, 1, 0), (end - 3, 3, 1)):
        s = jax.tree_util.tree_map(lambda x: x[b, t], states)
        o = np.asarray(obs(s, seat))
        assert o.shape == (TO.OBS_SIZE,)
        w = sample(jax.random.PRNGKey(1000 * t + k), s, seat)
        np.testing.assert_array_equal(np.asarray(obs(w, seat)), o)
        hands = np.asarray(w._hands).astype(int)
        total = hands.sum(0) + np.asarray(s.played).sum(0) + np.asarray(w._kitty)
        if int(s.phase) == T.DECLARE:
            total = total + np.bincount(np.asarray(w._deal).astype(int)[int(s.turn) + 1:], minlength=54)
        assert (total == 2).all()
        assert (hands.sum(1) == np.asarray(s.hand_sizes)).all()
        assert (hands >= np.asarray(s.revealed)).all()
        if int(s.phase) == T.PLAY:
            eff = tm.EFF[int(s.level), int(s.trump), :54]
            for other in set(range(4)) - {seat}:
                for e in np.flatnonzero(np.asarray(s.voids)[other]):
                    assert hands[other][eff == e].sum() == 0
                    voids_checked += 1
    assert voids_checked > 0


# ---------------------------------------------------------------------------- declaration
def _deal_order(fixed: dict[int, str], tail: list[str]):
    """108 card types: ``fixed`` positions, ``tail`` at the end (the kitty), the rest in order."""
    order = [None] * 108
    for pos, c in fixed.items():
        order[pos] = TC.card_type(c)
    for i, c in enumerate(tail):
        order[108 - len(tail) + i] = TC.card_type(c)
    left = np.full(54, 2) - np.bincount([o for o in order if o is not None], minlength=54)
    rest = [t for t in range(54) for _ in range(left[t])]
    it = iter(rest)
    return [o if o is not None else next(it) for o in order]


def _legal(s):
    return set(np.flatnonzero(np.asarray(s.legal_action_mask)).tolist())


def test_declaration_bury_and_chaodi(env_step):
    env, step = env_step
    order = _deal_order({0: "2♥", 4: "2♥", 1: "2♠", 5: "2♠", 2: "XJ", 6: "XJ"},
                        ["2♦", "2♦", "2♣", "2♣", "DJ", "DJ", "3♦", "3♦"])
    s = env.init_from_deal(order, 2, dealer=0)
    assert int(s.current_player) == 1 and _legal(s) == {T.PASS, T.DECL_SINGLE + 1}
    s = step(s, jnp.int32(T.DECL_SINGLE + 1))  # seat 1: one 2♥
    assert int(s.current_player) == 2 and _legal(s) == {T.PASS}  # a single does not overcall
    s = step(step(step(s, jnp.int32(T.PASS)), jnp.int32(T.PASS)), jnp.int32(T.PASS))
    assert int(s.current_player) == 1 and _legal(s) == {T.PASS, T.DECL_PAIR + 1}  # reinforce
    s = step(s, jnp.int32(T.PASS))
    assert _legal(s) == {T.PASS, T.DECL_PAIR + 0}  # seat 2: 2♠ 2♠ overcalls the single
    s = step(s, jnp.int32(T.DECL_PAIR + 0))
    assert int(s.trump) == 0 and int(s.decl_seat) == 2
    assert T.DECL_XJ in _legal(s)  # seat 3 could declare NT with its XJ pair
    while int(s.phase) == T.DECLARE:
        if int(s.current_player) == 1:
            assert T.DECL_PAIR + 1 not in _legal(s)  # a pair does not overcall a pair
        s = step(s, jnp.int32(T.PASS))
    assert int(s.phase) == T.BURY and int(s.current_player) == 0
    assert list(np.asarray(s.hand_sizes)) == [33, 25, 25, 25]
    for _ in range(8):
        s = step(s, jnp.int32(int(np.flatnonzero(np.asarray(s.legal_action_mask))[0])))
    assert int(s.phase) == T.CHAODI and int(s.current_player) == 1
    assert _legal(s) == {T.PASS}  # 2♥ 2♥ is below 2♠ 2♠
    s = step(step(s, jnp.int32(T.PASS)), jnp.int32(T.PASS))
    assert _legal(s) == {T.PASS, T.DECL_XJ}
    s = step(s, jnp.int32(T.DECL_XJ))  # seat 3 overturns to NT and takes the kitty
    assert int(s.phase) == T.BURY and int(s.current_player) == 3 and int(s.trump) == 4
    assert int(s.hand_sizes[3]) == 33
    for _ in range(8):
        s = step(s, jnp.int32(int(np.flatnonzero(np.asarray(s.legal_action_mask))[-1])))
    assert int(s.phase) == T.CHAODI and int(s.current_player) == 0
    for _ in range(4):
        s = step(s, jnp.int32(T.PASS))
    assert int(s.phase) == T.PLAY and int(s.current_player) == 0 and int(s.dealer) == 0
    assert int(s._kitty.sum()) == 8 and list(np.asarray(s.hand_sizes)) == [25] * 4


def test_sample_hidden_keeps_an_overturned_kitty_with_the_taker(env_step, games):
    """Seat 0 buries, seat 3 overturns and takes those cards: in every world seat 0 samples,
    its buried cards are in seat 3's hand or the kitty, less those seat 3 has played since."""
    env, step = env_step
    sample = games[0].sample_hidden
    order = _deal_order({0: "2♥", 4: "2♥", 1: "2♠", 5: "2♠", 2: "XJ", 6: "XJ"},
                        ["2♦", "2♦", "2♣", "2♣", "DJ", "DJ", "3♦", "3♦"])
    s = env.init_from_deal(order, 2, dealer=0)
    buried = np.zeros(54, int)
    while int(s.phase) != T.PLAY or int(s.trick_no) < 3:
        legal, seat = sorted(_legal(s)), int(s.current_player)
        if int(s.phase) == T.BURY:
            a = legal[0] if seat == 0 else legal[-1]
            buried += np.eye(54, dtype=int)[a] * (seat == 0)
        elif int(s.phase) in (T.DECLARE, T.CHAODI):
            want = {2: T.DECL_PAIR + 0, 3: T.DECL_XJ}.get(seat)
            a = want if want in legal and int(s.phase) == (T.CHAODI if seat == 3 else T.DECLARE) else T.PASS
        else:
            a = legal[0]
        s = step(s, jnp.int32(a))
    assert int(s.burier) == 3 and buried.sum() == 8
    shown = np.asarray(s.played[3]).astype(int)
    spread = 0
    for k in range(24):
        w = sample(jax.random.PRNGKey(k), s, 0)
        with_taker = np.asarray(w._hands[3]).astype(int) + np.asarray(w._kitty)
        assert (with_taker + shown >= buried).all(), k
        spread += int((np.asarray(w._hands[3]) != np.asarray(s._hands[3])).any())
    assert spread > 12  # the worlds still differ


def test_no_declaration_is_no_trump_and_declarer_deals(env_step):
    env, step = env_step
    order = _deal_order({3: "2♣"}, [])
    s = env.init_from_deal(order, 2, dealer=None)  # first hand: dealt from seat 0
    while int(s.phase) == T.DECLARE:
        a = T.DECL_SINGLE + 3 if T.DECL_SINGLE + 3 in _legal(s) and int(s.turn) == 3 else T.PASS
        s = step(s, jnp.int32(a))
    assert int(s.dealer) == 3 and int(s.trump) == 3 and int(s.current_player) == 3
    s2 = env.init_from_deal(order, 2, dealer=1)
    while int(s2.phase) == T.DECLARE:
        s2 = step(s2, jnp.int32(T.PASS))
    assert int(s2.trump) == 4 and int(s2.dealer) == 1
    with pytest.raises(ValueError, match="twice"):
        env.init_from_deal(order[:-1] + [order[0]], 2, dealer=0)


# ---------------------------------------------------------------------------- one-unit leads
def test_single_unit_leads_without_throws():
    f = jax.jit(tm.unit_prefix_mask)
    lv, tr = jnp.int32(0), jnp.int32(2)  # level 2, diamonds trump
    eff, _, slot = tm.context(lv, tr)
    hand = tm.pad(jnp.asarray(TC.parse_counts("3♠ 3♠ 4♠ 4♠ 6♠ 6♠ 9♠ 5♥")))

    def legal(part):
        cards, done = f(hand, tm.pad(jnp.asarray(TC.parse_counts(part))), eff, slot)
        return {TC.type_str(t) for t in np.flatnonzero(np.asarray(cards)[:54])}, bool(done)

    assert legal("") == ({"3♠", "4♠", "6♠", "9♠", "5♥"}, False)
    assert legal("3♠") == ({"3♠"}, True)
    assert legal("9♠") == (set(), True)
    assert legal("3♠ 3♠") == ({"4♠"}, True)
    assert legal("3♠ 3♠ 4♠") == ({"4♠"}, False)
    assert legal("3♠ 3♠ 4♠ 4♠") == (set(), True)  # 6♠ does not chain to 4♠ (5 between)


# ---------------------------------------------------------------------------- matches
def test_match_next_dealer_and_levels():
    env = T.Tractor()
    s = env.trick_state(["", "", "", ""], 2, "S", leader=1, dealer=1)
    held = s.replace(attacker_points=jnp.int32(40), level_gain=jnp.array([0, 1], jnp.int32))
    levels, dealer = TractorMatch.next_hand(jnp.array([3, 5]), held)
    assert list(np.asarray(levels)) == [3, 6] and int(dealer) == 3
    lost = s.replace(attacker_points=jnp.int32(130), level_gain=jnp.array([1, 0], jnp.int32))
    levels, dealer = TractorMatch.next_hand(jnp.array([3, 5]), lost)
    assert list(np.asarray(levels)) == [4, 5] and int(dealer) == 2


# ---------------------------------------------------------------------------- brute force
def _np_longest(counts, lv, tr, suit):
    """Longest chain of pairs of ``counts`` (numpy, from the geometry tables) — test oracle."""
    slot = tm.SLOT[lv, tr, suit]
    pt = np.where(tm.P_MEM, slot[np.arange(16)[None, :], tm.P_ALT[:, None]], 54)
    pairs = np.append(counts == 2, False)
    held = np.all(~tm.P_MEM | pairs[pt], axis=1)
    return int(np.max(np.where(held, tm.P_LEN, 0)))


def _brute_follows(hand, lead, lv, tr):
    """All legal follows by enumerating every n-card multiset of the hand (rules text)."""
    eff = tm.EFF[lv, tr, :54]
    suit = eff[lead > 0][0]
    n = int(lead.sum())
    k1 = _np_longest(lead, lv, tr, suit)
    k1 = k1 if k1 >= 2 else 0
    lead_pairs = int((lead == 2).sum())
    h = np.where(eff == suit, hand, 0)
    pool = [t for t in range(54) for _ in range(hand[t])]
    out = set()
    for combo in set(itertools.combinations(pool, n)):
        f = np.bincount(combo, minlength=54)
        if h.sum() <= n:
            ok = (f >= h).all()
        else:
            ok = (f <= h).all()
            p_t = min(lead_pairs, int((h == 2).sum()))
            lh = _np_longest(h, lv, tr, suit)
            t_star = min(k1, lh) if (k1 >= 2 and lh >= 2) else 0
            ok &= int((f == 2).sum()) >= p_t
            ok &= t_star == 0 or _np_longest(f, lv, tr, suit) >= t_star
        if ok:
            out.add(play(*[TC.type_str(t) for t in combo]))
    return out


@pytest.mark.parametrize("seed", range(5))
def test_follow_masks_match_brute_force(seed):
    """The env's masks (walked by follow_choices) give exactly the follows of the rules text."""
    rng = np.random.default_rng(seed)
    lv, tr = int(rng.integers(13)), int(rng.integers(5))
    eff, order = tm.EFF[lv, tr, :54], tm.ORD[lv, tr, :54]
    suit = 4 if seed % 2 else int(rng.choice([s for s in range(4) if s != tr]))
    types = np.flatnonzero(eff == suit)
    types = types[np.argsort(order[types])]
    i = int(rng.integers(len(types) - 2))
    lead = np.zeros(54, int)
    lead[types[i]] = lead[types[i + 1]] = 2  # a tractor when the two orders chain
    lead[types[(i + 5) % len(types)]] += 1
    lead = np.minimum(lead, 2)
    rest = 2 - lead
    pool = np.repeat(np.arange(54), rest)
    in_suit, other = pool[eff[pool] == suit], pool[eff[pool] != suit]
    rng.shuffle(in_suit)
    rng.shuffle(other)
    k = 3 if seed == 4 else 9  # seed 4: a short suit
    hand = np.bincount(np.concatenate([np.sort(in_suit)[: k + 4][rng.permutation(k + 4)][:k],
                                       other[:3]]), minlength=54)
    lead_s = [TC.type_str(t) for t in range(54) for _ in range(lead[t])]
    hand_s = [TC.type_str(t) for t in range(54) for _ in range(hand[t])]
    level, trump = lv + 2, ("S", "H", "D", "C", "NT")[tr]
    got = opts(hand_s, lead_s, level, trump)
    assert got and got == _brute_follows(hand, lead, lv, tr)


def test_match_plays_into_the_next_hand(env_step):
    env, _ = env_step
    match = TractorMatch(env)
    ms = match.init(jax.random.PRNGKey(3))
    assert int(ms.hand.level) == 0 and int(ms.hand.dealer) == -1  # first hand: declarer deals
    rng = np.random.default_rng(0)
    key = jax.random.PRNGKey(4)
    for _ in range(700):
        prev = ms
        key, k = jax.random.split(key)
        a = int(rng.choice(np.flatnonzero(np.asarray(ms.hand.legal_action_mask))))
        ms = match.step(ms, jnp.int32(a), k)
        if int(ms.hands_played) == 1:
            break
    assert int(ms.hands_played) == 1
    done = env.step(prev.hand, jnp.int32(a))  # the hand that just ended
    assert bool(done.terminated)
    np.testing.assert_array_equal(np.asarray(ms.hand.rewards), np.asarray(done.rewards))
    np.testing.assert_array_equal(np.asarray(ms.team_levels), np.asarray(done.level_gain))
    won = int(done.attacker_points + done.kitty_bonus + done.penalty) >= 80
    d = int(done.dealer)
    assert int(ms.hand.dealer) == ((d + 1) % 4 if won else (d + 2) % 4)
    assert int(ms.hand.level) == int(ms.team_levels[int(ms.hand.dealer) % 2])
    assert not bool(ms.hand.terminated) and int(ms.hand.phase) == T.DECLARE


def test_hand_without_throws_or_chaodi():
    """Options throws=False, chaodi=False: a random hand ends with no dead end, one-unit leads."""
    env = T.Tractor(throws=False, chaodi=False, kitty_multiplier="times", levels="shengji_plus")
    s = env.init(jax.random.PRNGKey(5))
    rng = np.random.default_rng(5)
    phases = set()
    for _ in range(env.max_steps):
        legal = np.flatnonzero(np.asarray(s.legal_action_mask))
        assert legal.size
        phases.add(int(s.phase))
        prev = s
        s = env.step(s, jnp.int32(rng.choice(legal)))
        if int(prev.phase) == T.PLAY and int(s.num_in_trick) == 1 and int(prev.num_in_trick) == 0:
            lead = np.asarray(s.trick[int(prev.current_player)])
            assert int(s.revealed.sum()) == 0  # nothing is ever thrown back
            assert (lead == 1).sum() <= 1 and ((lead == 1).sum() == 0 or lead.sum() == 1)
        if bool(s.terminated):
            break
    assert bool(s.terminated) and T.CHAODI not in phases
    assert int(s.attacker_points + s.defender_points + s.kitty_points) == 200
    assert float(np.asarray(s.rewards).sum()) == 0.0


# ---------------------------------------------------------------------------- several tractors
def _np_paths(lv, tr, suit):
    """(types per path as sets, lengths) of every path of ``suit`` -- from the geometry tables."""
    slot = tm.SLOT[lv, tr, suit]
    pt = np.where(tm.P_MEM, slot[np.arange(16)[None, :], tm.P_ALT[:, None]], 54)
    return [frozenset(row[row != 54].tolist()) if (row[tm.P_MEM[i]] != 54).all() else None
            for i, row in enumerate(pt)], tm.P_LEN


def _np_chains_fit(pair_types, items, paths, lens):
    """Exhaustive search: disjoint held paths of the lengths ``items`` among ``pair_types``."""
    held = [(p, lens[i]) for i, p in enumerate(paths) if p is not None and p <= pair_types]

    def rec(i, used):
        if i == len(items):
            return True
        return any(ln == items[i] and not (p & used) and rec(i + 1, used | p) for p, ln in held)

    return rec(0, frozenset())


_chains_fit_jit = jax.jit(jax.vmap(
    lambda pairs, suit, lv, tr, items: tm.chains_fit(pairs, suit, tm.context(lv, tr)[2], items)))


def _chains_cases(trump_kind, n_items, held, seed, n=300):
    """Random (pairs, suit, level, trump, items) rich in level cards (the layered positions):
    ``n_items`` (low, high) tractors of 2 to 4 pairs, each type a pair with about ``held``."""
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < n:
        lv = int(rng.integers(13))
        tr = 4 if trump_kind == "no trump" else int(rng.integers(4))
        suit = {"plain suit": int(rng.choice([s for s in range(4) if s != tr])),
                "trump suit": 4, "no trump": int(rng.integers(5))}[trump_kind]
        types = np.flatnonzero(tm.EFF[lv, tr, :54] == suit)
        level_cards = types[(types < 52) & (types % 13 == lv)]
        p = np.where(np.isin(types, level_cards), held + 0.15, held)
        pairs = np.zeros(tm.PAD, bool)
        pairs[types[rng.random(len(types)) < p]] = True
        k = int(rng.integers(n_items[0], n_items[1] + 1))
        items = sorted(rng.integers(2, 5, size=k).tolist(), reverse=True)
        cases.append((pairs, suit, lv, tr, items + [0] * (tm.MAX_TRACTORS - len(items))))
    return cases


def _check_chains_fit(cases):
    """chains_fit against the exhaustive search; returns how many cases fit."""
    pairs, suit, lv, tr, items = (np.array(c) for c in zip(*cases))
    got = np.asarray(_chains_fit_jit(pairs, suit, lv, tr, items))
    want = []
    for pr, s, l_, t, it in cases:
        paths, lens = _np_paths(l_, t, s)
        want.append(_np_chains_fit(frozenset(np.flatnonzero(pr).tolist()), [i for i in it if i], paths, lens))
    np.testing.assert_array_equal(got, np.array(want))
    return sum(want)


@pytest.mark.parametrize("trump_kind", ["plain suit", "trump suit", "no trump"])
def test_chains_fit_matches_exhaustive_search(trump_kind):
    """Disjoint tractors of given lengths (one to three) in a set of pairs, against an
    exhaustive search over the path table, on random pair sets rich in level cards (the layered
    positions).  (With no trump the trump suit holds one tractor at most: level cards, XJ, DJ.)"""
    seed = {"plain suit": 0, "trump suit": 1, "no trump": 2}[trump_kind]
    assert 30 < _check_chains_fit(_chains_cases(trump_kind, (1, 3), 0.55, seed)) < 270


def test_chains_fit_is_exact_for_up_to_six_tractors():
    """Four to six tractors (a throw of 16 cards or more), where a greedy packing into the runs
    of pairs can miss one: the same answers as the exhaustive search."""
    fits = _check_chains_fit(_chains_cases("trump suit", (4, 6), 0.8, 3))
    assert 30 < fits < 270, fits


def test_several_tractors_decide_the_winner():
    """A play beats a lead of several tractors only with as many disjoint tractors."""
    lead = "3♦ 3♦ 4♦ 4♦ 8♦ 8♦ 9♦ 9♦"  # level 5: two tractors
    assert TH.winning_seat([lead, "8♥ 8♥ 9♥ 9♥ J♥ J♥ Q♥ Q♥"], 5, "H") == 1
    assert TH.winning_seat([lead, "9♥ 9♥ T♥ T♥ J♥ J♥ Q♥ Q♥"], 5, "H") == 1  # 4 pairs split in 2 + 2
    assert TH.winning_seat([lead, "J♥ J♥ Q♥ Q♥ K♥ K♥ 8♥ 8♥"], 5, "H") == 0  # 3 + 1: no second one
    # level 2, spades trump: A♠ - 2♥ and 2♦ - 2♠ are two tractors; A♠ - 2x with 2♥/2♦/2♣ only one
    lead = "3♥ 3♥ 4♥ 4♥ 6♥ 6♥ 7♥ 7♥"
    assert TH.winning_seat([lead, "A♠ A♠ 2♥ 2♥ 2♦ 2♦ 2♠ 2♠"], 2, "S") == 1
    assert TH.winning_seat([lead, "A♠ A♠ 2♥ 2♥ 2♦ 2♦ 2♣ 2♣"], 2, "S") == 0


def _np_follows_units(hand, lead, lv, tr):
    """All legal follows of a lead with several tractors, by the rules text taken literally:
    unit by unit from the largest (each tractor from the cards not used yet: a tractor of its
    length if held, else the longest held plus pairs), then the other pairs and singles."""
    eff = tm.EFF[lv, tr, :54]
    suit = eff[lead > 0][0]
    paths, lens = _np_paths(lv, tr, suit)
    tractors, _, _, _, _ = (np.asarray(x) for x in
                            tm.units(tm.pad(jnp.asarray(lead)), suit, tm.EFF[lv, tr], tm.SLOT[lv, tr]))
    tractors = [int(k) for k in tractors if k]
    rest_pairs = int((lead == 2).sum()) - sum(tractors)
    n = int(lead.sum())

    def longest(c):
        pr = frozenset(np.flatnonzero(c == 2).tolist())
        return max([lens[i] for i, p in enumerate(paths) if p is not None and p <= pr], default=0)

    def unit_ok(u, h, size, k, pairs):  # one unit (or the rest) against the holding h
        hs = np.where(eff == suit, h, 0)
        if hs.sum() <= size:
            return (u >= hs).all()
        if not ((u <= hs).all()):
            return False
        if (u == 2).sum() < min(pairs, int((hs == 2).sum())):
            return False
        t = min(k, longest(hs)) if k >= 2 and longest(hs) >= 2 else 0
        return t == 0 or longest(u) >= t

    def sub_multisets(f, size):
        pool = [t for t in range(54) for _ in range(f[t])]
        return {tuple(np.bincount(c, minlength=54)) for c in itertools.combinations(pool, size)}

    def legal(f, h, i):
        if i == len(tractors):
            return unit_ok(f, h, n - 2 * sum(tractors), 0, rest_pairs)
        k = tractors[i]
        for u in sub_multisets(f, 2 * k):
            u = np.array(u)
            if unit_ok(u, h, 2 * k, k, k) and legal(f - u, h - u, i + 1):
                return True
        return False

    pool = [t for t in range(54) for _ in range(hand[t])]
    out = set()
    for combo in set(itertools.combinations(pool, n)):
        f = np.bincount(combo, minlength=54)
        if legal(f, hand.copy(), 0):
            out.add(play(*[TC.type_str(t) for t in combo]))
    return out


@pytest.mark.parametrize("lead,hand,level,trump", [
    # more pairs than the lead: the second tractor must follow the first when held
    ("3♦ 3♦ 4♦ 4♦ 8♦ 8♦ 9♦ 9♦", "6♦ 6♦ 7♦ 7♦ J♦ J♦ Q♦ Q♦ A♦ A♦ K♠", 5, "H"),
    # a three-pair chain and a pair chain to follow: the longest chain first, then what is left
    ("3♠ 3♠ 4♠ 4♠ 6♠ 6♠ 9♠ 9♠ T♠ T♠", "7♠ 7♠ 8♠ 8♠ J♠ J♠ Q♠ Q♠ K♠ K♠ A♠ 2♥", 5, "H"),
    # no tractor of three: a chain of two plus a pair, whose choice can break the second chain
    ("3♣ 3♣ 4♣ 4♣ 6♣ 6♣ 8♣ 8♣ 9♣ 9♣", "T♣ T♣ J♣ J♣ A♣ A♣ 2♣ 2♣ K♣ Q♣ 7♣ 7♦", 5, "H"),
    # trump: tractors through the level cards
    ("3♥ 3♥ 4♥ 4♥ 8♥ 8♥ 9♥ 9♥", "A♥ A♥ 5♠ 5♠ 5♥ 5♥ XJ XJ 6♥ 6♥ 7♥ Q♥", 5, "H"),
])
def test_several_tractors_follow_unit_by_unit(lead, hand, level, trump):
    lv, tr = level - 2, ("S", "H", "D", "C", "NT").index(trump)
    got = opts(hand, lead, level, trump)
    want = _np_follows_units(TC.parse_counts(hand, "hand"), TC.parse_counts(lead, "lead"), lv, tr)
    assert got and got == want


def test_a_follow_against_several_tractors_starts_afresh(env_step):
    """After a trick led with a tractor, a lead of two tractors is followed unit by unit from
    the follower's own cards (the leader's building never leaks into the follow)."""
    env, step = env_step
    hands = ["3♠ 3♠ 4♠ 4♠ 6♦ 6♦ 7♦ 7♦ 9♦ 9♦ T♦ T♦",
             "5♠ 6♠ 7♠ 8♠ 3♦ 3♦ 4♦ 4♦ 5♦ 8♦ J♦ Q♦ K♦",
             "9♠ T♠ J♠ Q♠ 2♣ 3♣ 4♣ 5♣", "K♠ A♠ 6♣ 7♣ 8♣ 9♣"]
    s = env.trick_state(hands, 2, "H", leader=0, dealer=0)
    s = _act(step, s, "3♠ 3♠ 4♠ 4♠ done 5♠ 6♠ 7♠ 8♠ 9♠ T♠ J♠ Q♠ K♠ A♠ 6♣ 7♣")
    assert int(s.leader) == 0 and int(s.trick_no) == 1
    s = _act(step, s, "6♦ 6♦ 7♦ 7♦ 9♦ 9♦ T♦ T♦ done")
    assert list(np.asarray(s.lead_tractors)[:3]) == [2, 2, 0] and int(s.current_player) == 1

    def legal_cards(s):
        return {TC.type_str(t) for t in np.flatnonzero(np.asarray(s.legal_action_mask)[:54])}

    assert legal_cards(s) == {"3♦", "4♦"}  # the first unit: its tractor
    s = _act(step, s, "3♦ 3♦ 4♦ 4♦")
    assert legal_cards(s) == {"5♦", "8♦", "J♦", "Q♦", "K♦"}  # the second: any four left


def test_follow_completions_from_a_partly_built_follow():
    """From a state whose follow is half built (by the env's own step), the completions are
    exactly the follows of ``follow_choices`` that hold those cards; a small budget gives None."""
    from conftest import get_compiled

    hand, lead = "A♠ Q♠ 9♠ 9♠ 3♠ 5♥", "K♠ K♠ J♠ J♠"  # 9♠ 9♠ and two of A♠ Q♠ 3♠
    every = {" ".join(p) for p in TH.follow_choices(hand, lead, "2", "H")}
    start = TH._after_lead(TC.parse_counts(lead, "lead"), TC.parse_counts(hand, "hand"), 0, 1)
    ace = int(np.flatnonzero(TC.parse_counts("A♠", "card"))[0])
    start = start.replace(legal_action_mask=TH._mask_jit(start))
    assert start.legal_action_mask[ace]
    half = get_compiled("tractor").step(start, jnp.int32(ace))
    got = {" ".join(TH._sorted_strs(c)) for c in TH.follow_completions(half)}
    assert len(every) == 3 and got == {p for p in every if "A♠" in p.split()} and len(got) == 2
    assert {" ".join(TH._sorted_strs(c)) for c in TH.follow_completions(start)} == every
    assert TH.follow_completions(start, budget=1) is None
