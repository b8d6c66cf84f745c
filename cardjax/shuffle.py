"""``jax.random.permutation``'s shuffles, computed without its sort.

``jax.random.permutation(key, n)`` draws one 32-bit random number per element and sorts the
elements by them (stably; one round of sorting for any ``n`` up to 1,625). An element's place in
the shuffled order is therefore the number of elements whose number is smaller, ties going to the
lower index: ``n x n`` compares, which XLA vectorises across a batch of deals, where its CPU sort
runs a scalar comparator (a 52-card deal: about a tenth of the time). The same deals, so seeded
games do not change.
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
