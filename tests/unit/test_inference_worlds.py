"""Worlds drawn in proportion to per-card predictions (cardjax.inference.worlds) against
enumeration of small information sets: the exact probabilities, the set's size, the frequencies of
drawn worlds, and the constraints every drawn world keeps."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardjax.inference import worlds as W

SPACE = W.space([3, 3, 3], 2)  # three places of at most 3 cards, kinds of at most 2 copies
_tables = jax.jit(lambda lq, c, a, least=None, group=None: W.tables(SPACE, lq, c, a, least=least,
                                                                    group=group))
_log_prob = jax.jit(jax.vmap(lambda t, w, cap: W.log_prob(SPACE, t, w, cap),
                             in_axes=(None, 0, None)))
_sample = jax.jit(jax.vmap(lambda t, k, cap: W.sample(SPACE, t, k, cap), in_axes=(None, 0, None)))
_size = jax.jit(lambda c, a, cap, least=None, group=None: W.log_size(SPACE, c, a, cap, least,
                                                                     group))


@st.composite
def information_sets(draw):
    """4 kinds of 1-2 copies over 3 places, some places ruled out for some kinds, capacities
    that add up, random predictions, and at least some copies of each kind in a group of places
    (Tractor's buried cards taken over by a chaodi)."""
    copies = np.array(draw(st.lists(st.integers(1, 2), min_size=4, max_size=4)))
    allowed = np.array(draw(st.lists(st.booleans(), min_size=12, max_size=12))).reshape(4, 3)
    allowed[:, 0] = True  # every kind may be somewhere
    total = int(copies.sum())
    a = draw(st.integers(max(0, total - 6), min(3, total)))
    b = draw(st.integers(max(0, total - a - 3), min(3, total - a)))
    capacity = np.array([a, b, total - a - b])
    q = np.array(draw(st.lists(st.floats(0.05, 1.0), min_size=12, max_size=12))).reshape(4, 3)
    least = np.array([draw(st.integers(0, int(c))) for c in copies])
    group = np.array(draw(st.lists(st.booleans(), min_size=3, max_size=3)))
    return copies, allowed, capacity, q / q.sum(1, keepdims=True), least, group


@settings(max_examples=60, deadline=None)
@given(information_sets(), st.booleans())
def test_probabilities_and_size_are_exact(case, constrained):
    copies, allowed, capacity, q, least, group = case
    if not constrained:
        least, group = np.zeros(4, np.int32), np.zeros(3, bool)
    worlds, probs = W.brute_force(copies, allowed, capacity, q, least=least, group=group)
    t = _tables(jnp.log(q), copies, allowed, least, group)
    log_size = float(_size(copies, allowed, capacity, least, group))
    if not worlds:
        assert log_size == -np.inf
        return
    assert np.exp(log_size) == pytest.approx(len(worlds), rel=1e-5)
    got = np.exp(np.asarray(_log_prob(t, jnp.asarray(np.stack(worlds)), capacity)))
    np.testing.assert_allclose(got, probs, rtol=2e-5, atol=1e-7)
    # a world that breaks a constraint has probability 0
    bad = worlds[0].copy()
    bad[0, 0] += 1
    assert float(W.log_prob(SPACE, t, jnp.asarray(bad), capacity)) == -np.inf


def test_drawn_worlds_follow_the_distribution_and_keep_every_constraint():
    rng = np.random.default_rng(1)
    copies = np.array([2, 1, 2, 1])
    allowed = np.array([[1, 1, 1], [1, 0, 1], [1, 1, 0], [1, 1, 1]], bool)
    capacity = np.array([2, 2, 2])
    q = rng.dirichlet(np.ones(3), size=4)
    worlds, probs = W.brute_force(copies, allowed, capacity, q)
    t = _tables(jnp.log(q), copies, allowed)
    n = 20000
    drawn = np.asarray(_sample(t, jax.random.split(jax.random.PRNGKey(0), n), capacity))
    np.testing.assert_array_equal(drawn.sum(axis=2), np.broadcast_to(copies, (n, 4)))
    np.testing.assert_array_equal(drawn.sum(axis=1), np.broadcast_to(capacity, (n, 3)))
    assert not (drawn[:, ~allowed] > 0).any()
    index = {w.tobytes(): i for i, w in enumerate(np.asarray(worlds, np.int32))}
    freq = np.bincount([index[w.tobytes()] for w in drawn.astype(np.int32)],
                       minlength=len(worlds)) / n
    # each frequency within 4 binomial standard errors of its probability
    assert (np.abs(freq - probs) <= 4 * np.sqrt(probs * (1 - probs) / n) + 1e-4).all()


def test_uniform_predictions_of_single_cards_draw_uniform_worlds():
    """Distinct cards (one copy each) with equal predictions: every world equally likely, so
    each world's probability times the set's size (its TSSR) is 1."""
    sp = W.space([4, 4, 4], 1)
    copies = np.ones(12, np.int32)
    allowed = np.ones((12, 3), bool)
    capacity = np.array([4, 4, 4])
    t = W.tables(sp, jnp.full((12, 3), np.log(1 / 3)), copies, allowed)
    log_size = float(W.log_size(sp, copies, allowed, capacity))
    assert np.exp(log_size) == pytest.approx(34650, rel=1e-5)  # 12! / (4! 4! 4!)
    world = np.asarray(W.sample(sp, t, jax.random.PRNGKey(3), capacity))
    tssr = np.exp(float(W.log_prob(sp, t, jnp.asarray(world), capacity)) + log_size)
    assert tssr == pytest.approx(1.0, rel=1e-4)


def test_tiny_predictions_over_many_cards_do_not_underflow():
    """52 single cards with probabilities down to 1e-6 (a product far below float32's range)."""
    sp = W.space([13, 13, 13], 1)
    rng = np.random.default_rng(2)
    q = rng.dirichlet(np.full(3, 0.05), size=39) + 1e-6
    q /= q.sum(1, keepdims=True)
    copies = np.ones(39, np.int32)
    allowed = np.ones((39, 3), bool)
    capacity = np.array([13, 13, 13])
    t = W.tables(sp, jnp.log(q), copies, allowed)
    assert np.isfinite(float(W.log_partition(sp, t, capacity)))
    worlds = np.asarray(jax.vmap(lambda k: W.sample(sp, t, k, capacity))(
        jax.random.split(jax.random.PRNGKey(4), 64)))
    np.testing.assert_array_equal(worlds.sum(1), np.broadcast_to(capacity, (64, 3)))
    lp = np.asarray(jax.vmap(lambda w: W.log_prob(sp, t, w, capacity))(jnp.asarray(worlds)))
    assert np.isfinite(lp).all() and (lp <= 0).all()
    # every card's predictions scaled by e^-50 (weights of e^-1950): log Z moves by exactly
    # 39 x 50 and no world's probability changes
    t2 = W.tables(sp, jnp.log(q) - 50.0, copies, allowed)
    assert float(W.log_partition(sp, t2, capacity)) == pytest.approx(
        float(W.log_partition(sp, t, capacity)) - 39 * 50.0, abs=1e-2)
    lp2 = np.asarray(jax.vmap(lambda w: W.log_prob(sp, t2, w, capacity))(jnp.asarray(worlds)))
    np.testing.assert_allclose(lp2, lp, atol=1e-2)


def test_bad_spaces_are_refused():
    with pytest.raises(ValueError, match="max_copies"):
        W.space([3, 3], 0)
    with pytest.raises(ValueError, match="capacities"):
        W.space([], 1)
