"""Worlds drawn in proportion to per-card location predictions (Solinas et al. 2019, equation 1),
exactly, by dynamic programming over the kinds of unseen cards.

The unseen cards of an information set come in ``K`` kinds (a Gongzhu card, a Tractor card with
its two copies, a Dou Dizhu rank with up to four); kind ``k`` has ``copies[k]`` unseen copies.
``P`` places may hold them (the other hands, the kitty or bottom), place ``p`` exactly
``capacity[p]`` of them, and ``allowed[k, p]`` says whether it may hold kind ``k`` at all (a
shown void rules a suit out of a hand).  A kind may also need at least ``least[k]`` of its
copies in a group of places (Tractor: the cards a seat buried before another seat took the kitty
over are with the takers or back in the kitty).  A world is the number of copies of each kind in each
place, ``counts[k, p]``, with every row summing to ``copies[k]`` and every column to
``capacity[p]``.  A predictor gives each card of kind ``k`` the probability ``q[k, p]`` of being in
place ``p``; equation 1 multiplies them over the cards.  Copies of a kind cannot be told apart, so
a world's weight sums that product over the ways to assign its copies:

    w(counts) = prod_k  copies[k]! / prod_p counts[k, p]!  *  prod_p q[k, p] ** counts[k, p]

and a world's probability is ``w / Z`` over the worlds of the information set.  With every
``q = 1`` and no multinomial factor (``uniform=True``), each world weighs 1 and ``Z`` counts them
(the information-set size of the TSSR).

``Z`` is computed kind by kind over the capacities still free: ``Z_k(c) = sum_s w_k(s)
Z_{k+1}(c - s)`` for the splits ``s`` of kind ``k``'s copies over the places, ``Z_K(c) = [c = 0]``.
A world is then drawn kind by kind, split ``s`` with probability ``w_k(s) Z_{k+1}(c - s) /
Z_k(c)``: exact proportional sampling, no proposal to correct for.  The capacities still free
sum to the copies of the kinds still to place, so the largest place's is implied by the others:
the tables index the other places only, ``prod (max_capacity[p] + 1)`` entries per kind over
them (static bounds; Gongzhu 14^2, Dou Dizhu 21 x 4, Tractor 34^2 x 9).  Each layer is rescaled
by its largest entry and the scale kept in logs, so nothing underflows.
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np

Array = jax.Array


class Space(NamedTuple):
    """The static shape of a family of information sets: bounds on capacities and copies, and
    the tables the dynamic programme indexes with (NumPy constants)."""

    max_capacity: tuple[int, ...]  # per place
    max_copies: int
    splits: np.ndarray  # int32[S, P]: every split of at most max_copies copies over the places
    shift: np.ndarray  # int32[S, M]: flat index of c - s for each split and capacity vector c, or M
    strides: np.ndarray  # int32[P]: flat index of a capacity vector = sum(c * strides); 0 at the
    # implied place
    implied: int  # the place whose free capacity is implied (the largest)
    others_sum: np.ndarray  # int32[M]: the free capacity of the indexed places, summed

    @property
    def size(self) -> int:
        return int(self.shift.shape[1])


def space(max_capacity: Sequence[int], max_copies: int) -> Space:
    """The tables for places of at most ``max_capacity[p]`` cards and kinds of at most
    ``max_copies`` copies."""
    cap = np.asarray(max_capacity, np.int64)
    if cap.ndim != 1 or cap.size < 1 or (cap < 0).any() or max_copies < 1:
        raise ValueError(f"need capacities >= 0 for at least one place and max_copies >= 1, got "
                         f"{list(max_capacity)}, {max_copies}")
    places = cap.size
    splits = np.array([s for s in itertools.product(range(max_copies + 1), repeat=places)
                       if sum(s) <= max_copies], np.int32)
    implied = int(np.argmax(cap))
    kept = np.where(np.arange(places) == implied, 0, cap)  # the implied place: one value, 0
    strides = np.concatenate([np.cumprod((kept + 1)[::-1])[::-1][1:], [1]]).astype(np.int64)
    strides[implied] = 0
    grid = np.stack(np.meshgrid(*[np.arange(c + 1) for c in kept], indexing="ij"), -1)
    grid = grid.reshape(-1, places)  # [M, P], flat order
    size = grid.shape[0]
    rest = grid[None, :, :] - splits[:, None, :]  # [S, M, P]
    ok = np.delete(rest >= 0, implied, axis=2).all(-1)  # the implied place: checked per layer
    shift = np.where(ok, (np.maximum(rest, 0) * strides).sum(-1), size).astype(np.int32)
    return Space(tuple(int(c) for c in cap), int(max_copies), splits, shift,
                 strides.astype(np.int32), implied, grid.sum(1).astype(np.int32))


def _split_log_weights(sp: Space, log_q: Array, copies: Array, allowed: Array,
                       uniform: bool, least, group) -> Array:
    """float[K, S]: log w_k(s) for every kind and split (-inf where the split is impossible)."""
    s = jnp.asarray(sp.splits)  # [S, P]
    fits = (jnp.sum(s, axis=1)[None, :] == copies[:, None])  # [K, S]
    fits &= jnp.all(allowed[:, None, :] | (s[None] == 0), axis=2)
    if least is not None:
        in_group = jnp.sum(s * jnp.asarray(group, jnp.int32)[None, :], axis=1)  # [S]
        fits &= in_group[None, :] >= jnp.asarray(least, jnp.int32)[:, None]
    if uniform:
        logw = jnp.zeros(fits.shape, jnp.float32)
    else:
        lgamma = jax.scipy.special.gammaln
        multinom = lgamma(copies[:, None] + 1.0) - jnp.sum(lgamma(s + 1.0), axis=1)[None, :]
        safe = jnp.where(s[None] > 0, log_q[:, None, :], 0.0)  # 0 * log 0 = 0
        logw = multinom + jnp.sum(s[None] * safe, axis=2)
    return jnp.where(fits, logw, -jnp.inf)


class Tables(NamedTuple):
    z: Array  # float32[K + 1, M]: Z_k(c) = z[k, c] * exp(log_scale[k]), z[k] scaled to max 1
    log_scale: Array  # float32[K + 1]
    log_w: Array  # float32[K, S]
    total: Array  # int32: the unseen copies, which the capacities must sum to


def tables(sp: Space, log_q: Array, copies: Array, allowed: Array,
           uniform: bool = False, least=None, group=None) -> Tables:
    """The dynamic programme's tables for one information set: ``log_q`` float[K, P] (log
    probability of a card of each kind in each place; ignored with ``uniform``), ``copies``
    int[K], ``allowed`` bool[K, P], and optionally ``least`` int[K] copies of each kind that
    must be in the places of ``group`` bool[P]."""
    copies = jnp.asarray(copies, jnp.int32)
    allowed = jnp.asarray(allowed, bool)
    log_w = _split_log_weights(sp, jnp.asarray(log_q, jnp.float32), copies, allowed, uniform,
                               least, group)
    others_sum = jnp.asarray(sp.others_sum).reshape(_grid_shape(sp))
    to_place = jnp.cumsum(copies[::-1])[::-1]  # [K]: copies of kinds k.. still to place
    last = jnp.zeros(sp.size, jnp.float32).at[0].set(1.0)  # Z_K(c) = [c = 0]

    def layer(carry, xs):  # one kind, from the last to the first
        lw, left = xs
        z_next, log_next = carry  # Z_{k+1} = z_next * exp(log_next)
        finite = jnp.isfinite(lw)
        top = jnp.max(jnp.where(finite, lw, -1e30))
        w = jnp.where(finite, jnp.exp(lw - top), 0.0)  # [S]
        raw = _shifted_sum(sp, z_next, w)  # the grid's shape (flat: [M])
        implied = left - others_sum  # the implied place's free capacity
        raw = jnp.where((implied >= 0) & (implied <= sp.max_capacity[sp.implied]), raw, 0.0)
        peak = jnp.max(raw)
        some = peak > 0
        z = jnp.where(some, raw / jnp.where(some, peak, 1.0), 0.0).reshape(-1)
        log_z = jnp.where(some, top + jnp.log(jnp.where(some, peak, 1.0)) + log_next, 0.0)
        return (z, log_z), (z, log_z)

    _, (zs, log_scale) = jax.lax.scan(layer, (last, jnp.float32(0.0)), (log_w, to_place),
                                      reverse=True)
    return Tables(jnp.concatenate([zs, last[None]]),
                  jnp.concatenate([log_scale, jnp.zeros(1, jnp.float32)]), log_w,
                  jnp.sum(copies))


def _grid_shape(sp: Space) -> tuple[int, ...]:
    """The capacity vectors' flat order as a grid: one axis per place, the implied one of size 1."""
    return tuple(1 if p == sp.implied else c + 1 for p, c in enumerate(sp.max_capacity))


def _shifted_sum(sp: Space, z: Array, w: Array) -> Array:
    """``sum_s w[s] z[c - s]`` for every capacity vector ``c`` (0 where ``c - s`` has a negative
    entry), in the grid's shape (:func:`_grid_shape`; ``z`` is flat, float[M]).  Each split
    shifts the grid by a constant: slices of the grid padded by ``max_copies`` below, summed in
    one loop XLA fuses (gathering ``z[sp.shift]``, or mixing flat and grid shapes, costs
    several times more)."""
    m, implied, shape = sp.max_copies, sp.implied, _grid_shape(sp)
    grid = jnp.pad(z.reshape(shape), [(0, 0) if p == implied else (m, 0)
                                      for p in range(len(shape))])
    raw = jnp.zeros(shape, z.dtype)
    for i, split in enumerate(sp.splits.tolist()):
        raw = raw + w[i] * grid[tuple(slice(None) if p == implied else slice(m - x, m - x + n)
                                      for p, (x, n) in enumerate(zip(split, shape)))]
    return raw


def _flat(sp: Space, c: Array) -> Array:
    return jnp.sum(c * jnp.asarray(sp.strides), axis=-1)


def log_partition(sp: Space, t: Tables, capacity: Array) -> Array:
    """float: log Z over the worlds with these capacities (-inf when there are none)."""
    capacity = jnp.asarray(capacity, jnp.int32)
    z = jnp.where(jnp.sum(capacity) == t.total, t.z[0, _flat(sp, capacity)], 0.0)
    return jnp.log(z) + t.log_scale[0]


def log_weight(sp: Space, t: Tables, counts: Array) -> Array:
    """float: log w of a world ``counts`` int[K, P] (-inf if it is not one of the set's)."""
    s = jnp.asarray(sp.splits)
    match = jnp.all(s[None, :, :] == counts[:, None, :], axis=2)  # [K, S]
    lw = jnp.where(match, t.log_w, 0.0)
    found = jnp.any(match & jnp.isfinite(t.log_w), axis=1)
    return jnp.where(jnp.all(found), jnp.sum(lw), -jnp.inf)


def log_prob(sp: Space, t: Tables, counts: Array, capacity: Array) -> Array:
    """float: log of the world's probability, ``log w(counts) - log Z``."""
    return log_weight(sp, t, counts) - log_partition(sp, t, capacity)


def sample(sp: Space, t: Tables, key, capacity: Array) -> Array:
    """int32[K, P]: one world drawn with probability ``w / Z`` (the set must not be empty)."""
    s = jnp.asarray(sp.splits)
    shift = jnp.asarray(sp.shift)

    def pick(c, xs):
        k_key, lw, z_next = xs
        i = _flat(sp, c)
        nxt = shift[:, i]  # [S]: where each split leaves the capacities
        padded = jnp.concatenate([z_next, jnp.zeros(1, jnp.float32)])
        logits = lw + jnp.log(padded[nxt])
        choice = jax.random.categorical(k_key, jnp.where(jnp.isfinite(logits), logits, -jnp.inf))
        return c - s[choice], s[choice]

    keys = jax.random.split(key, t.log_w.shape[0])
    _, counts = jax.lax.scan(pick, jnp.asarray(capacity, jnp.int32), (keys, t.log_w, t.z[1:]))
    return counts


def log_size(sp: Space, copies: Array, allowed: Array, capacity: Array, least=None,
             group=None) -> Array:
    """float: log of the number of worlds (the information-set size: each world counted once)."""
    t = tables(sp, jnp.zeros(np.shape(allowed), jnp.float32), copies, allowed, uniform=True,
               least=least, group=group)
    return log_partition(sp, t, capacity)


def hidden_tables(sp: Space, h, log_q=None) -> Tables:
    """:func:`tables` for a game's :class:`~cardjax.core.HiddenCards` ``h``: uniform over the
    information set with ``log_q`` None, else in proportion to equation 1."""
    if log_q is None:
        return tables(sp, jnp.zeros(h.allowed.shape, jnp.float32), h.copies, h.allowed,
                      uniform=True, least=h.least, group=h.group)
    return tables(sp, log_q, h.copies, h.allowed, least=h.least, group=h.group)


def brute_force(copies, allowed, capacity, q=None, uniform=False, least=None, group=None):
    """Every world and its probability, by enumeration (small sets; tests and documentation)."""
    copies, allowed, capacity = np.asarray(copies), np.asarray(allowed), np.asarray(capacity)
    K, P = allowed.shape
    least = np.zeros(K, int) if least is None else np.asarray(least)
    group = np.zeros(P, bool) if group is None else np.asarray(group, bool)
    per_kind = []
    for k in range(K):
        per_kind.append([s for s in itertools.product(range(copies[k] + 1), repeat=P)
                         if sum(s) == copies[k] and all(allowed[k, p] or s[p] == 0
                                                        for p in range(P))
                         and sum(x for x, g in zip(s, group) if g) >= least[k]])
    worlds, weights = [], []
    for combo in itertools.product(*per_kind):
        counts = np.array(combo, np.int64).reshape(K, P)
        if not np.array_equal(counts.sum(0), capacity):
            continue
        w = 1.0
        if not uniform:
            for k in range(K):
                w *= math.factorial(int(copies[k])) / np.prod(
                    [math.factorial(int(x)) for x in counts[k]])
                w *= np.prod(np.asarray(q)[k] ** counts[k])
        worlds.append(counts)
        weights.append(w)
    weights = np.asarray(weights)
    return worlds, weights / weights.sum() if len(worlds) else weights


def sampler(env, log_q=None):
    """``sample_worlds(key, state, seat, n, params=None) -> n worlds`` (states, leading axis n) that
    ``seat`` cannot tell from ``state``, drawn exactly: uniformly over the information set
    (``log_q`` None) or in proportion to equation 1 with ``log_q(params, state, seat) -> float[K,
    P]`` (a network's predictions).  For a game that describes its hidden cards
    (``env.hidden_cards``); at positions it does not describe (``HiddenCards.described``), the
    worlds come from ``env.sample_hidden``."""
    if env.hidden_space is None:
        raise ValueError(f"{env.name} does not describe its hidden cards (env.hidden_cards): "
                         "draw its worlds with env.sample_hidden")
    sp = space(*env.hidden_space)

    def sample_worlds(key, state, seat, n: int, params=None):
        h = env.hidden_cards(state, seat)
        t = hidden_tables(sp, h, None if log_q is None else log_q(params, state, seat))
        keys = jax.random.split(key, n)
        counts = jax.vmap(lambda k: sample(sp, t, k, h.capacity))(keys)
        exact = jax.vmap(lambda c: env.with_hidden(state, seat, c))(counts)
        if h.described is None:
            return exact
        fallback = jax.vmap(lambda k: env.sample_hidden(k, state, seat))(keys)
        return jax.tree_util.tree_map(lambda a, b: jnp.where(h.described, a, b), exact, fallback)

    return sample_worlds
