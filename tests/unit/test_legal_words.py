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


@settings(max_examples=40, deadline=None)
@given(masks(), st.floats(0.0, 1.0, exclude_max=True, width=32), st.integers(0, 6))
def test_pick_in_some_words_equals_pick_on_the_set(mask, u, drop):
    """pick_in on the non-empty words (and some empty ones) picks what pick picks on the whole."""
    words = np.asarray(legal_words.pack(jnp.asarray(mask)))
    keep = np.flatnonzero(words != 0)
    keep = np.union1d(keep, [drop])  # an empty word among them changes nothing
    got = legal_words.pick_in(jnp.asarray(words[keep]), jnp.asarray(keep, jnp.int32), u)
    assert int(got) == int(legal_words.pick(jnp.asarray(words), jnp.float32(u)))
    assert int(got) == np.flatnonzero(mask)[int(np.float32(u) * mask.sum())]


def test_span_from_a_first_word():
    whole = np.asarray(legal_words.span(37, 130, 7))
    for first in range(5):
        np.testing.assert_array_equal(np.asarray(legal_words.span(37, 130, 2, first)),
                                      whole[first:first + 2])
