"""Sets of legal actions packed into 32-bit words: the compact form of a legal-action mask.

Action ``a`` is bit ``a % 32`` (least significant first) of word ``a // 32``; an ``n``-action mask
takes ``ceil(n / 32)`` ``uint32`` words, and bits at or past ``n`` are zero.  Everything here reads
the words directly: counting, the ``j``-th legal action in id order, the first one in a range, a
uniformly random one.  Cost grows with the number of words (864 for Dou Dizhu's 27,472 actions),
not with the number of actions, which is what makes a game with a large action table fast.

All functions take ONE set (``words`` of shape ``[W]``) unless they say otherwise; vmap for a batch.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

Array = jax.Array
BITS = 32
_ALL = 0xFFFFFFFF


def num_words(n: int) -> int:
    return -(-n // BITS)


def pack(mask: Array) -> Array:
    """uint32[..., ceil(n/32)] from bool[..., n]."""
    mask = jnp.asarray(mask, bool)
    n = mask.shape[-1]
    nw = num_words(n)
    pad = [(0, 0)] * (mask.ndim - 1) + [(0, nw * BITS - n)]
    bits = jnp.left_shift(jnp.uint32(1), jnp.arange(BITS, dtype=jnp.uint32))
    grouped = jnp.pad(mask, pad).reshape(mask.shape[:-1] + (nw, BITS))
    return jnp.sum(jnp.where(grouped, bits, jnp.uint32(0)), axis=-1, dtype=jnp.uint32)


def unpack(words: Array, n: int) -> Array:
    """bool[..., n] from uint32[..., W] (W >= ceil(n/32))."""
    words = jnp.asarray(words, jnp.uint32)
    bits = jnp.right_shift(words[..., :, None], jnp.arange(BITS, dtype=jnp.uint32)) & 1
    return bits.reshape(words.shape[:-1] + (-1,))[..., :n].astype(bool)


def full(n: int, nw: int | None = None) -> Array:
    """uint32[nw]: all of the first ``n`` actions."""
    return span(0, n, num_words(n) if nw is None else nw)


def span(lo, hi, nw: int, first=0) -> Array:
    """uint32[nw]: the actions ``lo <= a < hi`` (traced ``lo``/``hi`` allowed; empty if lo >= hi),
    in the ``nw`` words from word ``first`` on (traced allowed)."""
    return span_at(lo, hi, jnp.asarray(first, jnp.int32) + jnp.arange(nw, dtype=jnp.int32))


def span_at(lo, hi, word_ids: Array) -> Array:
    """uint32[k]: the actions ``lo <= a < hi`` in the words ``word_ids`` (int32[k]); ``lo`` and
    ``hi`` scalars or one bound per word."""
    start = jnp.asarray(word_ids, jnp.int32) * BITS
    a = jnp.clip(jnp.asarray(lo, jnp.int32) - start, 0, BITS).astype(jnp.uint32)
    b = jnp.clip(jnp.asarray(hi, jnp.int32) - start, 0, BITS).astype(jnp.uint32)
    ones = jnp.uint32(_ALL)
    # Bits a..b-1 of each word; a shift by 32 is spelled out (it is not 0 on every backend).
    below_b = jnp.where(b >= BITS, ones, jnp.left_shift(jnp.uint32(1), b % BITS) - 1)
    from_a = jnp.where(a >= BITS, jnp.uint32(0), jnp.left_shift(ones, a % BITS))
    return below_b & from_a


def prefix(words: Array, n: int) -> Array:
    """The first ``n`` actions only: uint32[..., ceil(n/32)]."""
    nw = num_words(n)
    return words[..., :nw] & full(n, nw)


def count(words: Array) -> Array:
    """int32[...]: number of actions in the set(s)."""
    return jnp.sum(jax.lax.population_count(words).astype(jnp.int32), axis=-1)


def contains(words: Array, action: Array) -> Array:
    """bool[...]: each of ``action`` (valid ids, any shape) is in the set."""
    action = jnp.asarray(action, jnp.int32)
    w = words[action // BITS]
    return (jnp.right_shift(w, (action % BITS).astype(jnp.uint32)) & 1).astype(bool)


def running_sum(x: Array) -> Array:
    """Inclusive running sum along the last axis of a short vector (tens of entries).

    A masked sum over an ``n x n`` triangle rather than ``jnp.cumsum``: XLA's CPU backend runs a
    cumsum as a scalar reduce-window, about ten times slower at these sizes.
    """
    n = x.shape[-1]
    upper = jnp.arange(n)[:, None] <= jnp.arange(n)[None, :]  # [i, j]: x[i] counts towards j
    return jnp.sum(jnp.where(upper, x[..., :, None], 0), axis=-2, dtype=x.dtype)


def _select_in_word(w: Array, rank: Array) -> Array:
    """int32: position of the ``rank``-th (0-based) set bit of ``w``, by five popcount halvings."""
    pos = jnp.zeros_like(rank)
    for width in (16, 8, 4, 2, 1):
        low = jax.lax.population_count(w & jnp.uint32((1 << width) - 1)).astype(jnp.int32)
        up = rank >= low
        rank = jnp.where(up, rank - low, rank)
        w = jnp.where(up, jnp.right_shift(w, jnp.uint32(width)), w)
        pos = pos + jnp.where(up, width, 0)
    return pos


def nth(words: Array, j: Array) -> Array:
    """int32[k]: the ``j``-th (0-based, ``j`` int32[k] increasing or not) actions of the set in id
    order; ``j`` at or past the count gives an id in the last word (callers mask it)."""
    counts = jax.lax.population_count(words).astype(jnp.int32)
    cum = jnp.cumsum(counts)
    j = jnp.asarray(j, jnp.int32)
    word = jnp.minimum(jnp.searchsorted(cum, j, side="right"), words.shape[-1] - 1)
    rank = j - (cum[word] - counts[word])
    return word * BITS + _select_in_word(words[word], rank)


def first(words: Array) -> Array:
    """int32: the lowest action of the set (only meaningful when it is not empty)."""
    word = jnp.argmax(words != 0)
    w = words[word]
    low = w & (~w + jnp.uint32(1))  # the lowest set bit alone
    return (word * BITS + jax.lax.population_count(low - jnp.uint32(1)).astype(jnp.int32))


def _kth(counts: Array, upto: Array, k: Array):
    """``(i, rank)``: the entry of ``counts`` (with running sums ``upto``) that holds item ``k``
    of their concatenation, and ``k``'s rank inside it."""
    i = jnp.minimum(jnp.sum(upto <= k), counts.shape[-1] - 1)
    return i, k - (upto[i] - counts[i])


def sample(key, words: Array) -> Array:
    """int32: a uniformly random action of the set (not empty).

    The same action as ``cardjax.random_action(key, unpack(words, n))``: one uniform number
    ``u = jax.random.uniform(key)`` picks the k-th action, ``k = floor(u * count)`` (:func:`pick`).
    """
    return pick(words, jax.random.uniform(key))


def pick(words: Array, u: Array) -> Array:
    """int32: the ``floor(u * count)``-th action of the set (not empty) in id order, ``u`` in [0, 1).

    The word holding it is found in two levels, a block of 32 words and then the word, since a
    running sum over every word is slow on CPUs; sets stored as a whole number of blocks (Dou
    Dizhu's 864 words) are not copied to pad them.
    """
    nw = words.shape[-1]
    blocks = -(-nw // BITS)
    if blocks * BITS != nw:
        words = jnp.pad(words, (0, blocks * BITS - nw))
    per_word = jax.lax.population_count(words).astype(jnp.int32).reshape(blocks, BITS)
    per_block = jnp.sum(per_word, axis=1)
    upto = running_sum(per_block)
    total = upto[-1]
    k = jnp.minimum(jnp.floor(u * total).astype(jnp.int32), total - 1)
    block, k_in = _kth(per_block, upto, k)
    offset, rank = _kth(per_word[block], running_sum(per_word[block]), k_in)
    word = block * BITS + offset
    return (word * BITS + _select_in_word(words[word], rank)).astype(jnp.int32)


def pick_in(words: Array, word_ids: Array, u: Array) -> Array:
    """int32: :func:`pick` on a set given by some of its words only: ``words`` uint32[k] are the
    words ``word_ids`` (int32[k], increasing) of the set, every other word being empty.  For a
    few words (one running sum over them)."""
    counts = jax.lax.population_count(words).astype(jnp.int32)
    upto = running_sum(counts)
    k = jnp.minimum(jnp.floor(u * upto[-1]).astype(jnp.int32), upto[-1] - 1)
    j, rank = _kth(counts, upto, k)
    return (word_ids[j] * BITS + _select_in_word(words[j], rank)).astype(jnp.int32)
