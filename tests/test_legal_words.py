"""``cardjax.legal_words`` against the boolean masks it packs (random sets via hypothesis)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import cardjax
from cardjax import legal_words

N = 200  # 7 words: a partial last word and a padded block


@st.composite
def masks(draw):
    bits = draw(st.lists(st.booleans(), min_size=N, max_size=N))
    bits[draw(st.integers(0, N - 1))] = True  # never empty
    return np.array(bits)


_ops = jax.jit(lambda key, m: (legal_words.pack(m), legal_words.sample(key, legal_words.pack(m)),
                               cardjax.random_action(key, m), legal_words.count(legal_words.pack(m)),
                               legal_words.first(legal_words.pack(m)),
                               legal_words.nth(legal_words.pack(m), jnp.arange(N))))


@settings(max_examples=60, deadline=None)
@given(masks(), st.integers(0, 2**31 - 1))
def test_words_read_like_the_mask(mask, seed):
    words, a_words, a_mask, count, first, nth = _ops(jax.random.key(seed), jnp.asarray(mask))
    ids = np.flatnonzero(mask)
    np.testing.assert_array_equal(np.asarray(legal_words.unpack(words, N)), mask)
    assert int(a_words) == int(a_mask) and mask[int(a_words)]
    assert int(count) == len(ids) and int(first) == ids[0]
    np.testing.assert_array_equal(np.asarray(nth)[: len(ids)], ids)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 1000), min_size=1, max_size=40))
def test_running_sum_is_cumsum(xs):
    x = jnp.asarray(xs, jnp.int32)
    np.testing.assert_array_equal(np.asarray(legal_words.running_sum(x)), np.cumsum(xs))
    two = jnp.stack([x, 2 * x])
    np.testing.assert_array_equal(np.asarray(legal_words.running_sum(two)),
                                  np.cumsum(np.stack([xs, 2 * np.asarray(xs)]), axis=1))
