"""Worlds drawn in proportion to per-card location predictions (Solinas et al. 2019, equation 1),
exactly, by dynamic programming over the kinds of unseen cards.

The unseen cards of an information set come in ``K`` kinds (a Gongzhu card, a Tractor card with
its two copies, a Dou Dizhu rank with up to four); kind ``k`` has ``copies[k]`` unseen copies.
``P`` places may hold them (the other hands, the kitty or bottom), place ``p`` exactly
``capacity[p]`` of them, and ``allowed[k, p]`` says whether it may hold kind ``k`` at all (a
shown void rules a suit out of a hand).  A world is the number of copies of each kind in each
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
Z_k(c)``: exact proportional sampling, no proposal to correct for.  The tables have ``prod_p
(max_capacity[p] + 1)`` entries per kind (static bounds; Gongzhu 14^3, Dou Dizhu 21^2 x 4);
each layer is rescaled by its largest entry and the scale kept in logs, so nothing underflows.
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
    strides: np.ndarray  # int32[P]: flat index of a capacity vector = sum(c * strides)

    @property
    def size(self) -> int:
        return int(np.prod(np.asarray(self.max_capacity) + 1))


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
    strides = np.concatenate([np.cumprod((cap + 1)[::-1])[::-1][1:], [1]]).astype(np.int64)
    grid = np.stack(np.meshgrid(*[np.arange(c + 1) for c in cap], indexing="ij"), -1)
    grid = grid.reshape(-1, places)  # [M, P], flat order
    size = grid.shape[0]
    rest = grid[None, :, :] - splits[:, None, :]  # [S, M, P]
    ok = (rest >= 0).all(-1)
    shift = np.where(ok, (np.maximum(rest, 0) * strides).sum(-1), size).astype(np.int32)
    return Space(tuple(int(c) for c in cap), int(max_copies), splits, shift,
                 strides.astype(np.int32))


def _split_log_weights(sp: Space, log_q: Array, copies: Array, allowed: Array,
                       uniform: bool) -> Array:
    """float[K, S]: log w_k(s) for every kind and split (-inf where the split is impossible)."""
    s = jnp.asarray(sp.splits)  # [S, P]
    fits = (jnp.sum(s, axis=1)[None, :] == copies[:, None])  # [K, S]
    fits &= jnp.all(allowed[:, None, :] | (s[None] == 0), axis=2)
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


def tables(sp: Space, log_q: Array, copies: Array, allowed: Array,
           uniform: bool = False) -> Tables:
    """The dynamic programme's tables for one information set: ``log_q`` float[K, P] (log
    probability of a card of each kind in each place; ignored with ``uniform``), ``copies``
    int[K], ``allowed`` bool[K, P]."""
    copies = jnp.asarray(copies, jnp.int32)
    allowed = jnp.asarray(allowed, bool)
    log_w = _split_log_weights(sp, jnp.asarray(log_q, jnp.float32), copies, allowed, uniform)
    shift = jnp.asarray(sp.shift)
    last = jnp.zeros(sp.size, jnp.float32).at[0].set(1.0)  # Z_K(c) = [c = 0]

    def layer(carry, lw):  # one kind, from the last to the first
        z_next, log_next = carry  # Z_{k+1} = z_next * exp(log_next)
        finite = jnp.isfinite(lw)
        top = jnp.max(jnp.where(finite, lw, -1e30))
        w = jnp.where(finite, jnp.exp(lw - top), 0.0)  # [S]
        padded = jnp.concatenate([z_next, jnp.zeros(1, jnp.float32)])
        raw = jnp.sum(w[:, None] * padded[shift], axis=0)  # [M]
        peak = jnp.max(raw)
        some = peak > 0
        z = jnp.where(some, raw / jnp.where(some, peak, 1.0), 0.0)
        log_z = jnp.where(some, top + jnp.log(jnp.where(some, peak, 1.0)) + log_next, 0.0)
        return (z, log_z), (z, log_z)

    _, (zs, log_scale) = jax.lax.scan(layer, (last, jnp.float32(0.0)), log_w, reverse=True)
    return Tables(jnp.concatenate([zs, last[None]]),
                  jnp.concatenate([log_scale, jnp.zeros(1, jnp.float32)]), log_w)


def _flat(sp: Space, c: Array) -> Array:
    return jnp.sum(c * jnp.asarray(sp.strides), axis=-1)


def log_partition(sp: Space, t: Tables, capacity: Array) -> Array:
    """float: log Z over the worlds with these capacities (-inf when there are none)."""
    i = _flat(sp, jnp.asarray(capacity, jnp.int32))
    return jnp.log(t.z[0, i]) + t.log_scale[0]


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


def log_size(sp: Space, copies: Array, allowed: Array, capacity: Array) -> Array:
    """float: log of the number of worlds (the information-set size: each world counted once)."""
    t = tables(sp, jnp.zeros(np.shape(allowed), jnp.float32), copies, allowed, uniform=True)
    return log_partition(sp, t, capacity)


def brute_force(copies, allowed, capacity, q=None, uniform=False):
    """Every world and its probability, by enumeration (small sets; tests and documentation)."""
    copies, allowed, capacity = np.asarray(copies), np.asarray(allowed), np.asarray(capacity)
    K, P = allowed.shape
    per_kind = []
    for k in range(K):
        per_kind.append([s for s in itertools.product(range(copies[k] + 1), repeat=P)
                         if sum(s) == copies[k] and all(allowed[k, p] or s[p] == 0
                                                        for p in range(P))])
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
    (``env.hidden_cards``)."""
    if env.hidden_space is None:
        raise ValueError(f"{env.name} does not describe its hidden cards (env.hidden_cards): "
                         "draw its worlds with env.sample_hidden")
    sp = space(*env.hidden_space)

    def sample_worlds(key, state, seat, n: int, params=None):
        h = env.hidden_cards(state, seat)
        if log_q is None:
            t = tables(sp, jnp.zeros(h.allowed.shape, jnp.float32), h.copies, h.allowed,
                       uniform=True)
        else:
            t = tables(sp, log_q(params, state, seat), h.copies, h.allowed)
        counts = jax.vmap(lambda k: sample(sp, t, k, h.capacity))(jax.random.split(key, n))
        return jax.vmap(lambda c: env.with_hidden(state, seat, c))(counts)

    return sample_worlds
