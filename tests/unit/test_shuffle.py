"""``cardjax.shuffle`` gives jax.random.permutation's shuffles exactly, without sorting."""

from __future__ import annotations

import jax
import numpy as np
import pytest

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
