"""Dou Dizhu move table and legal moves (cardjax.games.doudizhu.moves), checked against RLCard.

RLCard (a test dependency only) is the reference: its ``action_space.txt`` is the move table and its
judger decides legality (``DoudizhuJudger.playable_cards_from_hand`` when leading,
``utils.get_gt_cards`` when following; both also through RLCard's own game loop).  No difference
between RLCard's judger and the rules file was found; the rules file's "no kicker trio adjacent to
the chain" has RLCard's exception for a trio of 2s (``QQQKKKAAA222`` is a move), which the module
follows.
"""

from __future__ import annotations

import collections

import jax
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardjax.games.doudizhu import moves as dm

rl_utils = pytest.importorskip("rlcard.games.doudizhu.utils")
from rlcard.games.doudizhu.judger import DoudizhuJudger  # noqa: E402

DECK = np.repeat(np.arange(15), dm.MAX_COUNT)  # the 54 cards as rank indices
CHUNK = 256  # masks are computed in fixed-size batches (one compile)

# RLCard type name -> (our type, cards per chain unit); the chain length is the name's suffix.
RL_TYPES = {
    "solo": (dm.SOLO, 1), "pair": (dm.PAIR, 2), "trio": (dm.TRIO, 3), "bomb": (dm.BOMB, 4),
    "rocket": (dm.ROCKET, 2), "trio_solo": (dm.TRIO_SOLO, 4), "trio_pair": (dm.TRIO_PAIR, 5),
    "solo_chain": (dm.CHAIN_SOLO, 1), "pair_chain": (dm.CHAIN_PAIR, 2),
    "trio_chain": (dm.CHAIN_TRIO, 3), "trio_solo_chain": (dm.PLANE_SOLO, 4),
    "trio_pair_chain": (dm.PLANE_PAIR, 5), "four_two_solo": (dm.FOUR_TWO_SOLO, 6),
    "four_two_pair": (dm.FOUR_TWO_PAIR, 8),
}


def rl_type(move: str) -> tuple[int, int, int]:
    """(our type, number of cards, RLCard weight) of a move from RLCard's card_type table."""
    name, weight = rl_utils.CARD_TYPE[0][move][0]
    base, _, n = name.rpartition("_")
    if n.isdigit():
        t, unit = RL_TYPES[base]
        return t, unit * int(n), int(weight)
    t, size = RL_TYPES[name]
    return t, size, int(weight)


# ----------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def batch_mask():
    """``batch_mask(hands[N, 15], to_beat[N]) -> bool[N, A]`` via one compiled vmap."""
    f = jax.jit(jax.vmap(dm.legal_mask))

    def run(hands, to_beat):
        hands = np.asarray(hands, np.int32)
        to_beat = np.asarray(to_beat, np.int32)
        out = []
        for i in range(0, len(hands), CHUNK):
            h, b = hands[i:i + CHUNK], to_beat[i:i + CHUNK]
            pad = CHUNK - len(h)
            h = np.concatenate([h, np.zeros((pad, 15), np.int32)])
            b = np.concatenate([b, np.full(pad, -1, np.int32)])
            out.append(np.asarray(f(h, b))[:CHUNK - pad])
        return np.concatenate(out)

    return run


def random_hand(rng, k):
    h = np.zeros(15, np.int32)
    np.add.at(h, DECK[rng.choice(54, k, replace=False)], 1)
    return h


def heavy_hand(rng, kind):
    """A hand with 2..5 consecutive trios/fours (``trio``) or 2..5 bombs (``bomb``), topped up
    with random cards to at most 20."""
    h = np.zeros(15, np.int32)
    n = rng.integers(2, 6)
    if kind == "trio":
        s = rng.integers(0, 12 - n + 1)
        h[s:s + n] = rng.integers(3, 5, n)
    else:
        h[rng.choice(13, n, replace=False)] = 4
        if rng.random() < 0.5:
            h[13:] = 1
    left = np.repeat(np.arange(15), dm.MAX_COUNT - h)
    extra = min(rng.integers(0, max(1, 21 - h.sum())), len(left))
    np.add.at(h, rng.choice(left, extra, replace=False), 1)
    return h


def moves_of(mask_row) -> set[str]:
    return {dm.ACTIONS[i] for i in np.flatnonzero(mask_row)}


class _Card:
    """Just enough of RLCard's Card for ``cards2str``."""

    def __init__(self, c):
        self.rank, self.suit = ("", {"B": "BJ", "R": "RJ"}[c]) if c in "BR" else (c, "S")


class _Player:
    def __init__(self, hand: str, played: str | None = None):
        self.current_hand = [_Card(c) for c in hand]
        self.played_cards = played


def rlcard_follow(hand: str, to_beat: str) -> set[str]:
    return set(rl_utils.get_gt_cards(_Player(hand), _Player("", to_beat)))


def assert_same(mine: set[str], ref: set[str], what: str):
    if mine != ref:
        raise AssertionError(f"{what}: only RLCard {sorted(ref - mine)[:10]}, "
                             f"only cardjax {sorted(mine - ref)[:10]}")


# ----------------------------------------------------------------------------- the table
def test_action_set_is_rlcards():
    assert len(dm.ACTIONS) == dm.NUM_ACTIONS == 27472
    assert len(set(dm.ACTIONS)) == dm.NUM_ACTIONS
    assert set(dm.ACTIONS) == set(rl_utils.ACTION_2_ID)
    assert dm.ACTIONS[dm.PASS] == "pass" and dm.PASS == rl_utils.ACTION_2_ID["pass"]


def test_ids_are_rlcards_outside_the_airplane_solo_blocks():
    rl = rl_utils.ID_2_ACTION
    differ = [i for i, a in enumerate(dm.ACTIONS) if rl[i] != a]
    assert min(differ) >= 1480 and max(differ) <= 22333
    # the blocks of airplane + solos with 3, 4, 5 trios are the same sets at the same offsets
    for lo, hi in ((1480, 4762), (4762, 11946), (11946, 22334)):
        assert set(dm.ACTIONS[lo:hi]) == set(rl[lo:hi])


def test_type_counts_of_the_rules_table():
    counts = collections.Counter(dm.TYPE_NAMES[t] for t in dm.TYPE)
    assert counts == {
        "solo": 15, "pair": 13, "trio": 13, "bomb": 13, "rocket": 1, "trio_solo": 182,
        "trio_pair": 156, "chain_solo": 36, "chain_pair": 52, "chain_trio": 45,
        "plane_solo": 21822, "plane_pair": 2939, "four_two_solo": 1326, "four_two_pair": 858,
        "pass": 1,
    }
    chains = collections.Counter((dm.TYPE_NAMES[t], int(n)) for t, n in zip(dm.TYPE, dm.LENGTH)
                                 if t in (dm.CHAIN_SOLO, dm.CHAIN_PAIR, dm.CHAIN_TRIO))
    assert {n // 1 for (t, n) in chains if t == "chain_solo"} == set(range(5, 13))
    assert {n // 2 for (t, n) in chains if t == "chain_pair"} == set(range(3, 11))
    assert {n // 3 for (t, n) in chains if t == "chain_trio"} == set(range(2, 7))


def test_tables_agree_with_rlcard_types_and_weights():
    assert dm.COUNTS.shape == (dm.NUM_ACTIONS, 15) and dm.COUNTS.dtype == np.int8
    weights = collections.defaultdict(dict)  # (type, length) -> {main rank: RLCard weight}
    for i, a in enumerate(dm.ACTIONS[:-1]):
        assert dm.counts_to_str(dm.COUNTS[i]) == a
        assert dm.LENGTH[i] == len(a)
        t, n, w = rl_type(a)
        assert (dm.TYPE[i], dm.LENGTH[i]) == (t, n), a
        weights[(t, n)].setdefault(int(dm.MAIN_RANK[i]), set()).add(w)
    for cls, by_main in weights.items():
        mains = sorted(by_main)
        ws = [by_main[r] for r in mains]
        assert all(len(w) == 1 for w in ws), cls  # one weight per main rank
        flat = [next(iter(w)) for w in ws]
        assert flat == sorted(flat) and len(set(flat)) == len(flat), cls  # order preserved
    assert dm.TYPE[dm.PASS] == dm.PASS_T and dm.LENGTH[dm.PASS] == 0


def test_action_index_and_string_round_trip():
    for i, a in enumerate(dm.ACTIONS):
        assert dm.action_index(a) == i
        assert dm.action_string(i) == a
    assert dm.action_index("43334") == dm.action_index("33344")
    assert dm.action_index("RB") == dm.action_index("BR")


# ----------------------------------------------------------------------------- differential
def test_leading_agrees_with_rlcard_judger(batch_mask):
    rng = np.random.default_rng(1)
    hands = [random_hand(rng, rng.integers(1, 21)) for _ in range(1200)]
    hands += [heavy_hand(rng, "trio" if i % 2 else "bomb") for i in range(1200)]
    masks = batch_mask(np.stack(hands), np.full(len(hands), -1))
    for h, mk in zip(hands, masks):
        s = dm.counts_to_str(h)
        assert_same(moves_of(mk), DoudizhuJudger.playable_cards_from_hand(s), f"lead {s}")


def test_following_agrees_with_rlcard(batch_mask):
    rng = np.random.default_rng(2)
    by_type = [np.flatnonzero(dm.TYPE == t) for t in range(1, 15)]
    hands, beat = [], []
    for i in range(1500):  # random move to beat, types uniform
        hands.append(random_hand(rng, rng.integers(1, 21)) if i % 2
                     else heavy_hand(rng, "trio" if i % 4 else "bomb"))
        beat.append(rng.choice(by_type[rng.integers(0, 14)]))
    hands, beat = np.stack(hands), np.array(beat)
    # and a move of the hand's own type and length (the interesting case): pick a random lead
    # move of the hand and a random action of its class to beat
    more_h = np.stack([heavy_hand(rng, "trio" if i % 2 else "bomb") if i % 3
                       else random_hand(rng, 20) for i in range(1500)])
    leads = batch_mask(more_h, np.full(len(more_h), -1))
    more_b = []
    for mk in leads:
        a = rng.choice(np.flatnonzero(mk))
        same = np.flatnonzero((dm.TYPE == dm.TYPE[a]) & (dm.LENGTH == dm.LENGTH[a]))
        more_b.append(rng.choice(same))
    hands = np.concatenate([hands, more_h])
    beat = np.concatenate([beat, np.array(more_b)])
    masks = batch_mask(hands, beat)
    n_beating = 0
    for h, b, mk in zip(hands, beat, masks):
        s, tb = dm.counts_to_str(h), dm.ACTIONS[b]
        mine = moves_of(mk)
        assert_same(mine, rlcard_follow(s, tb), f"hand {s} to beat {tb}")
        n_beating += any(dm.TYPE[dm.action_index(x)] == dm.TYPE[b] for x in mine - {"pass"})
    assert n_beating > 800  # the same-type case is well covered


def test_rlcard_games_agree():
    """Random games in RLCard's own engine (incremental judger, round logic): every state's legal
    actions equal ``legal_moves``."""
    from rlcard.games.doudizhu.game import DoudizhuGame

    rng = np.random.default_rng(3)
    positions = 0
    for g in range(25):
        game = DoudizhuGame()
        game.np_random = np.random.RandomState(g)
        state, pid = game.init_game()
        while not game.is_over():
            gp = game.round.greater_player
            tb = None if gp is None or gp.player_id == pid else gp.played_cards
            ref = set(state["actions"])
            assert_same(set(dm.legal_moves(state["current_hand"], tb)), ref,
                        f"game {g} hand {state['current_hand']} to beat {tb}")
            positions += 1
            state, pid = game.step(sorted(ref)[rng.integers(len(ref))])
    assert positions > 1000


# ----------------------------------------------------------------------------- rules by example
def test_examples():
    lm = dm.legal_moves
    assert lm("33345", "44") == ["pass"]
    assert lm("33355", "44") == ["55", "pass"]
    assert lm("33345") == ["3", "4", "5", "33", "333", "3334", "3335"]
    assert lm("33345", "pass") == lm("33345")
    assert "pass" not in lm("3")
    assert lm("3333BR", "2222") == ["BR", "pass"]
    assert lm("3333BR", "BR") == ["pass"]
    assert lm("3333", "2") == ["3333", "pass"]  # a bomb beats any non-bomb
    assert lm("4444", "3333") == ["4444", "pass"] and lm("3333", "4444") == ["pass"]
    assert lm("45678", "34567") == ["45678", "pass"]  # same length only
    assert lm("456789", "34567") == ["45678", "56789", "pass"]  # not the 6-card chain
    assert "444555" not in lm("444555", "33344")  # an airplane does not beat a trio + pair
    assert "44455" in lm("444555", "33344")
    assert lm("4445556", "333444") == ["444555", "pass"]
    assert "AAA2" in lm("AAA2", "KKK3")  # kickers do not count
    assert "QQQKKKAAA222" in lm("QQQKKKAAA222")  # RLCard: 2s may be a kicker trio
    assert "JJJQQQKKKAAA" in lm("JJJQQQKKKAAA")  # trio chain of 4, not airplane + trio kicker
    assert dm.TYPE[dm.action_index("JJJQQQKKKAAA")] == dm.CHAIN_TRIO
    assert "3334445556667778" not in dm.ACTIONS  # kicker trio next to the chain


def test_value_errors():
    with pytest.raises(ValueError, match="unknown rank character 'X'"):
        dm.legal_moves("33X")
    with pytest.raises(ValueError, match="unknown rank character '1'"):
        dm.legal_moves("10JQKA")
    with pytest.raises(ValueError, match="more than four '3'"):
        dm.legal_moves("33333")
    with pytest.raises(ValueError, match="more than one 'B'"):
        dm.legal_moves("BB")
    with pytest.raises(ValueError, match="more than one 'R'"):
        dm.legal_moves("3RR")
    with pytest.raises(ValueError, match="not a Dou Dizhu move"):
        dm.legal_moves("33345", "345")
    with pytest.raises(ValueError, match="not a Dou Dizhu move"):
        dm.legal_moves("33345", "33334444")
    with pytest.raises(ValueError, match="unknown rank"):
        dm.legal_moves("33345", "4x")
    with pytest.raises(ValueError, match="not a Dou Dizhu move"):
        dm.action_index("")
    with pytest.raises(ValueError, match="not in 0..27471"):
        dm.action_string(27472)
    with pytest.raises(ValueError, match="shape"):
        dm.counts_to_str([1, 2])
    with pytest.raises(ValueError, match="more than one 'R'"):
        dm.counts_to_str(np.array([0] * 14 + [2]))


def test_hand_counts_and_strings():
    h = dm.hand_counts("R3 3B2")
    assert h.tolist() == [2] + [0] * 11 + [1, 1, 1]
    assert dm.counts_to_str(h) == "332BR"
    assert dm.legal_moves(h) == dm.legal_moves("332BR")


# ----------------------------------------------------------------------------- jit, eager, vmap
def test_jit_equals_eager_and_vmap(batch_mask):
    rng = np.random.default_rng(4)
    hands = np.stack([heavy_hand(rng, "trio"), heavy_hand(rng, "bomb"), random_hand(rng, 17),
                      random_hand(rng, 20)])
    beat = np.array([-1, dm.action_index("3333"), dm.PASS, dm.action_index("3334")], np.int32)
    batched = batch_mask(hands, beat)
    single = jax.jit(dm.legal_mask)
    for h, b, row in zip(hands, beat, batched):
        eager = np.asarray(dm.legal_mask(h, b))
        assert eager.shape == (dm.NUM_ACTIONS,) and eager.dtype == bool
        np.testing.assert_array_equal(eager, np.asarray(single(h, b)))
        np.testing.assert_array_equal(eager, row)


_hands = st.lists(st.integers(0, 53), min_size=0, max_size=20, unique=True)


@settings(max_examples=60, deadline=None)
@given(cards=_hands, beat=st.integers(-1, dm.NUM_ACTIONS - 1))
def test_mask_matches_the_definition(batch_mask, cards, beat):
    """The bit-mask formulation against the plain definition on the count table."""
    h = np.zeros(15, np.int32)
    np.add.at(h, DECK[cards], 1)
    mask = batch_mask(h[None], np.array([beat]))[0]
    playable = np.all(dm.COUNTS <= h, axis=1)
    following = beat >= 0 and beat != dm.PASS
    if not following:
        expect = playable.copy()
        expect[dm.PASS] = False
    else:
        t, n, r = dm.TYPE[beat], dm.LENGTH[beat], dm.MAIN_RANK[beat]
        bombish = (dm.TYPE == dm.BOMB) | (dm.TYPE == dm.ROCKET)
        if t == dm.ROCKET:
            beats = np.zeros(dm.NUM_ACTIONS, bool)
        elif t == dm.BOMB:
            beats = (bombish & (dm.MAIN_RANK > r))
        else:
            beats = ((dm.TYPE == t) & (dm.LENGTH == n) & (dm.MAIN_RANK > r)) | bombish
        expect = playable & beats
        expect[dm.PASS] = True
    np.testing.assert_array_equal(mask, expect)


# ----------------------------------------------------------------------------- one move, few words
def _positions(rng, n):
    """Hands and moves to beat of every kind: random and heavy hands, leading, passing, and
    following a random move of every type (the airplane classes have the widest id ranges)."""
    hands, beat = [], []
    kinds = [t for t in range(dm.SOLO, dm.ROCKET + 1)]
    for i in range(n):
        hands.append(heavy_hand(rng, ("trio", "bomb")[i % 2]) if i % 3 else random_hand(rng, 17))
        r = i % (len(kinds) + 2)
        if r == 0:
            beat.append(-1)
        elif r == 1:
            beat.append(dm.PASS)
        else:
            beat.append(int(rng.choice(np.flatnonzero(dm.TYPE == kinds[r - 2]))))
    return np.stack(hands).astype(np.int32), np.asarray(beat, np.int32)


def test_is_legal_tests_one_move_as_the_set_does(batch_mask):
    rng = np.random.default_rng(11)
    hands, beat = _positions(rng, 32)
    mask = batch_mask(hands, beat)
    every = jax.jit(jax.vmap(lambda h, b: jax.vmap(lambda a: dm.is_legal(h, b, a))(
        jax.numpy.arange(dm.NUM_ACTIONS))))
    np.testing.assert_array_equal(np.asarray(every(hands, beat)), mask)


def test_pick_legal_picks_what_the_whole_set_picks():
    """Gated under vmap (most states read a window of words, the rest build the set) and one at
    a time, pick_legal is the floor(u * count)-th legal move: on leads from hands with and without
    adjacent trios or four of a rank, and on follows of wide and narrow ranges."""
    rng = np.random.default_rng(12)
    hands, beat = _positions(rng, 96)
    u = rng.random(96, dtype=np.float32)
    u[:8] = [0.0, 0.999999, 0.5, 0.25, 0.0, 0.999999, 0.75, 0.1]
    ref = jax.jit(jax.vmap(lambda u, h, b: dm.legal_words.pick(dm.legal_words_of(h, b), u)))
    want = np.asarray(ref(u, hands, beat))
    np.testing.assert_array_equal(np.asarray(jax.jit(jax.vmap(dm.pick_legal))(u, hands, beat)),
                                  want)
    one = jax.jit(dm.pick_legal)
    for i in range(0, 96, 7):
        assert int(one(u[i], hands[i], beat[i])) == want[i]
    # both paths ran, for leads and for follows; the window alone is exact wherever it is used
    every = np.asarray(jax.vmap(dm._reads_every_word)(hands, beat))
    leading = (beat < 0) | (beat == dm.PASS)
    for kind in (leading, ~leading):
        assert (every & kind).any() and (~every & kind).any()
    window = np.asarray(jax.jit(jax.vmap(dm._pick_in_window))(u, hands, beat))
    np.testing.assert_array_equal(window[~every], want[~every])


def test_a_lead_past_the_window_needs_adjacent_trios_or_four_of_a_rank():
    """Every move between the window and the bombs, checked on the table itself: a hand that
    holds it holds what ``_leads_past_window`` looks for, so a lead from any other hand finds all
    its moves in the window and the tail."""
    past = np.arange(dm.WINDOW_WORDS * dm.legal_words.BITS, dm._FIRST_BOMB)
    counts = dm.COUNTS[past].astype(np.int32)
    assert np.asarray(jax.vmap(dm._leads_past_window)(counts)).all()
    assert not np.asarray(jax.vmap(dm._leads_past_window)(dm.COUNTS[:dm.CHAIN_TRIO_FIRST])).any()
