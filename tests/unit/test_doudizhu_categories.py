"""DeepRocket's move categories (the paper's table 3) and kickers: every action is exactly one
(category, kickers) and back, the category counts per row of table 3, and the masks built from a
legal set hold exactly the legal moves."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardjax.games.doudizhu import categories as C
from cardjax.games.doudizhu import moves as mv


def test_309_categories_as_in_table_3():
    assert C.NUM_CATEGORIES == 309 == sum(n for _, n in C.TABLE3)
    for t, n in C.TABLE3:
        assert len(np.unique(C.CATEGORY[mv.TYPE == t])) == n, mv.TYPE_NAMES[t]
        assert (C.CATEGORY_TYPE == t).sum() == n


def test_every_action_is_one_category_and_its_kickers_and_back():
    np.testing.assert_array_equal(C.MAIN.astype(int) + C.KICKERS, mv.COUNTS)
    assert (C.KICKERS >= 0).all() and (C.MAIN >= 0).all()
    pairs = set(zip(C.CATEGORY.tolist(), map(bytes, C.KICKERS)))
    assert len(pairs) == mv.NUM_ACTIONS  # injective
    for a in np.random.default_rng(0).choice(mv.NUM_ACTIONS, 3000, replace=False):
        assert C.action_of(int(C.CATEGORY[a]), C.KICKERS[a]) == a
    # one category, one main group: its actions differ only in their kickers
    for c in range(C.NUM_CATEGORIES):
        ids = np.flatnonzero(C.CATEGORY == c)
        assert (C.MAIN[ids] == C.MAIN[ids[0]]).all()
        assert len(set(C.NUM_KICKERS[ids].tolist())) == 1


@pytest.mark.parametrize("move, name, kickers, n", [
    ("3334", "333+s", "4", 1), ("333444555789", "333444555+sss", "789", 3),
    ("333355", "3333+ss", "55", 2), ("33335566", "3333+pp", "5566", 2),
    ("3344556677", "3344556677", "", 0), ("BR", "BR", "", 0), ("pass", "pass", "", 0)])
def test_worked_examples(move, name, kickers, n):
    a = mv.action_index(move)
    assert C.category_str(int(C.CATEGORY[a])) == name
    assert mv.counts_to_str(C.KICKERS[a]) == kickers and int(C.NUM_KICKERS[a]) == n


def test_a_pair_that_is_no_move_is_refused():
    with pytest.raises(ValueError, match="is not a Dou Dizhu move"):
        C.action_of(int(C.CATEGORY[mv.action_index("3334")]), mv.hand_counts("3"))


_masks = jax.jit(lambda m, c: (C.category_mask(m), C.kicker_choices(m, c)))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 53), min_size=1, max_size=20, unique=True),
       st.sampled_from(["", "3", "55", "3334", "34567", "2222"]))
def test_masks_hold_exactly_the_legal_moves(cards, to_beat):
    hand = np.bincount(np.array(cards) // 4, minlength=15)[:15]
    hand[13:] = np.minimum(hand[13:], 1)
    beat = mv.action_index(to_beat) if to_beat else -1
    legal = np.asarray(mv.legal_mask(jnp.asarray(hand, jnp.int8), jnp.int32(beat)))
    cats = np.unique(C.CATEGORY[legal])
    c = int(cats[0])
    cm, kc = (np.asarray(x) for x in _masks(jnp.asarray(legal), c))
    np.testing.assert_array_equal(np.flatnonzero(cm), cats)
    np.testing.assert_array_equal(np.flatnonzero(kc), np.flatnonzero(legal & (C.CATEGORY == c)))
