"""``cardjax.shuffle`` gives jax.random.permutation's shuffles and the stable order of a
few-valued key exactly, without sorting."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from cardjax import shuffle


@pytest.mark.parametrize("n", [1, 2, 3, 52, 54, 108, shuffle.MAX_N])
def test_permutation_equals_jax(n):
    perm = jax.jit(jax.vmap(lambda k: shuffle.permutation(k, n)))
    keys = jax.random.split(jax.random.key(n), 200 if n <= 108 else 8)
    ours = np.asarray(perm(keys))
    theirs = np.asarray(jax.vmap(lambda k: jax.random.permutation(k, n))(keys))
    np.testing.assert_array_equal(ours, theirs)


def test_places_invert_the_permutation():
    key = jax.random.key(5)
    perm, at = np.asarray(shuffle.permutation(key, 52)), np.asarray(shuffle.places(key, 52))
    np.testing.assert_array_equal(perm[at], np.arange(52))


def test_ties_go_to_the_lower_index(monkeypatch):
    """Equal random numbers (one chance in 2^32 a pair) keep index order, as the stable sort does."""
    monkeypatch.setattr(jax.random, "bits", lambda key, shape, dtype: np.zeros(shape, np.uint32))
    np.testing.assert_array_equal(np.asarray(shuffle.places(jax.random.key(0), 5)), np.arange(5))


@pytest.mark.parametrize("n", [0, shuffle.MAX_N + 1])
def test_sizes_outside_one_sorting_round_are_refused(n):
    with pytest.raises(ValueError, match="one sorting round"):
        shuffle.places(jax.random.key(0), n)


_STABLE_ORDER = jax.jit(shuffle.stable_order, static_argnums=(1, 2))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([1, 13, 52]).flatmap(lambda n: st.tuples(
    st.sampled_from([2, 3]).flatmap(lambda v: st.tuples(
        st.just(v), st.lists(st.integers(0, v - 1), min_size=2 * n, max_size=2 * n))),
    st.sampled_from(sorted({1, min(13, n), n})))))
def test_stable_order_is_the_stable_argsort(case):
    """Keys of ``0 .. num_values - 1`` in rows of 1, 13 or 52 (a batch of two), the first
    ``size`` places: those of numpy's stable argsort."""
    (values, flat), size = case
    keys = np.asarray(flat).reshape(2, -1)
    got = np.asarray(_STABLE_ORDER(keys, values, size))
    np.testing.assert_array_equal(got, np.argsort(keys, axis=-1, kind="stable")[:, :size])
    assert got.dtype == np.int32
