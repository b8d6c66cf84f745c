"""``jax.random.permutation``'s shuffles, and the stable order of a few-valued key, computed
without a sort.

``jax.random.permutation(key, n)`` draws one 32-bit random number per element and sorts the
elements by them (stably; one round of sorting for any ``n`` up to 1,625). An element's place in
the shuffled order is therefore the number of elements whose number is smaller, ties going to the
lower index: ``n x n`` compares, which XLA vectorises across a batch of deals, where its CPU sort
runs a scalar comparator (a 52-card deal: about a tenth of the time). The same deals, so seeded
games do not change.  :func:`stable_order` is ``jnp.argsort(keys, stable=True)`` for keys that
take a few values (a mask: the True entries first), by counting as well.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

Array = jax.Array
MAX_N = 1625  # past this, permutation sorts more than once


def _check(n: int) -> None:
    if not 1 <= n <= MAX_N:
        raise ValueError(f"shuffle covers 1 <= n <= {MAX_N} (one sorting round), got {n}")


def places(key, n: int) -> Array:
    """int32[n]: where element ``i`` lands: ``jax.random.permutation(key, n)[places[i]] == i``."""
    _check(n)
    _, sub = jax.random.split(key)  # permutation's one round takes its numbers from the second key
    bits = jax.random.bits(sub, (n,), jnp.uint32)
    idx = jnp.arange(n)
    before = ((bits[None, :] < bits[:, None])
              | ((bits[None, :] == bits[:, None]) & (idx[None, :] < idx[:, None])))
    return jnp.sum(before, axis=1, dtype=jnp.int32)


def permutation(key, n: int) -> Array:
    """int32[n]: equal to ``jax.random.permutation(key, n)``."""
    at = places(key, n)
    idx = jnp.arange(n, dtype=jnp.int32)
    return jnp.sum(jnp.where(at[:, None] == idx[None, :], idx[:, None], 0), axis=0, dtype=jnp.int32)


def stable_order(keys: Array, num_values: int, size: int | None = None) -> Array:
    """int32[..., size]: the first ``size`` entries (all by default) of
    ``jnp.argsort(keys, axis=-1, stable=True)`` for integer ``keys`` in ``0 .. num_values - 1``.

    An entry's place is the count of entries with a smaller key plus those of its own key before
    it (running sums), where one scatter puts it."""
    keys = jnp.asarray(keys, jnp.int32)
    n = keys.shape[-1]
    size = n if size is None else size
    place = jnp.zeros(keys.shape, jnp.int32)
    below = jnp.zeros(keys.shape[:-1] + (1,), jnp.int32)
    for v in range(num_values):
        mine = (keys == v).astype(jnp.int32)
        place = jnp.where(keys == v, below + jnp.cumsum(mine, axis=-1) - 1, place)
        below = below + jnp.sum(mine, axis=-1, keepdims=True)
    flat = place.reshape(-1, n)
    rows = jnp.arange(flat.shape[0])[:, None]
    order = jnp.zeros_like(flat).at[rows, flat].set(jnp.arange(n, dtype=jnp.int32)[None, :])
    return order[:, :size].reshape(keys.shape[:-1] + (size,))
