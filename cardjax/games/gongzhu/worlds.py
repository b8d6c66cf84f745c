"""ScrofaZero's Gongzhu worlds (paper 5.3, 5.4, 8.12, 8.13): stratified sampling and IEC weights.

The two plug-ins of the generic :func:`cardjax.search.hidden_info.decide` that the ScrofaZero
player (:mod:`cardjax.agents.scrofazero`) uses.  Stratified sampling (:func:`sample_stratified`)
draws one world per placement of the two most important cards hidden from the deciding seat
(:data:`KEY_CARDS`) among the other seats, equal prior per feasible stratum.  IEC
(:func:`iec_log_weights`) scores each world by how well the history's important plays agree
with a network's action values, ``sum_t -beta (q_max - q_a)``, replaying the world's deal with
the other hands averaged to 1/3 (:func:`averaged_oracle_obs`); a world where some play was
illegal scores ``-inf``.  The details and the paper's references are in
``docs/hidden_information.md``.  Everything is pure JAX (jit/vmap-able).
"""

from __future__ import annotations

import functools
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

from cardjax.cards import card_index
from cardjax.games.gongzhu import env as gz
from cardjax.search.hidden_info import Worlds, sample_uniform

Array = jax.Array

KEY_CARDS = tuple(card_index(c) for c in (
    "SQ", "HA", "DJ", "HK", "C10", "SA", "SK", "HQ", "HJ", "DA", "DK", "DQ", "CA", "CK"))
SAMPLING = ("stratified", "uniform")
MIN_IMPORTANT_RANK = 6  # rank index of the 8 (ranks 2..A are 0..12): "greater than 7"
DEFAULT_BETA = 0.015


def hidden_cards(state, seat) -> Array:
    """bool[52]: the cards ``seat`` has not seen (not its own, not played, not exposed)."""
    return (state.played_by < 0) & (state._owner != seat) & ~state.exposed


def key_cards_hidden(state, seat, key_cards=KEY_CARDS) -> tuple[Array, Array]:
    """The first two cards of ``key_cards`` hidden from ``seat``: ``(cards int[2], present
    bool[2])`` (``present`` is False where fewer than two are hidden)."""
    kc = jnp.asarray(key_cards, jnp.int32)
    hk = hidden_cards(state, seat)[kc]
    pos = jnp.argsort(~hk, stable=True)[:2]
    return kc[pos], hk[pos]


def sample_stratified(env, key, state, seat, num_worlds: int = 9,
                      key_cards=KEY_CARDS) -> Worlds:
    """``num_worlds`` Gongzhu worlds stratified on where the two first hidden key cards lie:
    ``t = 9`` strata (3 with one hidden key card, 1 with none), world ``w`` in stratum
    ``w mod t``, drawn by ``env.sample_hidden_fixed``; an impossible stratum is not valid
    (prior 0); the feasible strata share the prior equally.  A world sampler of
    :func:`cardjax.search.hidden_info.decide`."""
    if len(key_cards) < 2:
        raise ValueError("stratified sampling needs at least two key cards")
    w = int(num_worlds)
    seat = jnp.asarray(seat, jnp.int32)
    keys = jax.random.split(key, w)
    idx = jnp.arange(w)
    cards2, present = key_cards_hidden(state, seat, key_cards)
    n_keys = jnp.sum(present.astype(jnp.int32))
    t = jnp.where(n_keys == 2, 9, jnp.where(n_keys == 1, 3, 1))
    stratum = idx % t
    others = (seat + 1 + jnp.arange(3)) % gz.NUM_PLAYERS
    seat_a = jnp.where(present[0], others[stratum % 3], -1)
    seat_b = jnp.where(present[1], others[stratum // 3], -1)
    cards = jnp.arange(gz.NUM_CARDS)
    fixed = jnp.where(cards == cards2[0], seat_a[:, None], -1)
    fixed = jnp.where(cards == cards2[1], seat_b[:, None], fixed).astype(jnp.int32)
    states, valid = jax.vmap(env.sample_hidden_fixed, (0, None, None, 0))(keys, state, seat, fixed)
    same = stratum[:, None] == stratum[None, :]
    count = jnp.sum(same, axis=1).astype(jnp.float32)  # worlds in w's stratum
    n_strata = jnp.sum(jnp.where(valid, 1.0 / count, 0.0))  # feasible strata sampled
    prior = jnp.where(valid, 1.0 / (count * jnp.maximum(n_strata, 1e-9)), 0.0)
    return Worlds(states, valid, prior.astype(jnp.float32), stratum, fixed)


def world_sampler(sampling: str = "stratified", key_cards=KEY_CARDS) -> Callable:
    """The world sampler of a mode of :data:`SAMPLING`, for ``hidden_info.decide``."""
    if sampling not in SAMPLING:
        raise ValueError(f"sampling must be one of {SAMPLING}, got {sampling!r}")
    if len(key_cards) < 2:
        raise ValueError("stratified sampling needs at least two key cards")
    if sampling == "uniform":
        return sample_uniform
    return functools.partial(sample_stratified, key_cards=tuple(key_cards))


def network_sampler(log_q: Callable, params) -> Callable:
    """Worlds drawn exactly in proportion to a card-location network's predictions
    (``cardjax.inference``; ``log_q(params, state, seat)``, e.g.
    ``cardjax.nets.card_locations.network.log_q_fn``), equal prior: the inference row beside US
    and SS.  A world sampler of ``hidden_info.decide``."""
    from cardjax.inference import worlds

    def sample(env, key, state, seat, num_worlds: int = 9) -> Worlds:
        w = int(num_worlds)
        states = worlds.sampler(env, log_q)(key, state, seat, w, params)
        return Worlds(states, jnp.ones(w, bool), jnp.full(w, 1.0 / w, jnp.float32),
                      jnp.zeros(w, jnp.int32))

    return sample


def sample_worlds(env, key, state, seat, *, num_worlds: int = 9, sampling: str = "stratified",
                  key_cards=KEY_CARDS) -> Worlds:
    """``num_worlds`` worlds that ``seat`` cannot tell from ``state``, by ``sampling``."""
    return world_sampler(sampling, key_cards)(env, key, state, seat, num_worlds)


def averaged_oracle_obs(env, state, seat) -> Array:
    """``env.observe_oracle(state, seat)`` with the other three hands made "triple-1/3-hot"
    (paper 8.13): every card ``seat`` cannot see is 1/3 in each of the three rows."""
    obs = env.observe_oracle(state, seat)
    unseen = hidden_cards(state, seat)
    others = obs[52:4 * 52].reshape(3, 52)
    others = jnp.where(unseen[None, :], 1.0 / 3.0, others)
    return jnp.concatenate([obs[:52], others.reshape(-1), obs[4 * 52:]])


def _replay(env, world):
    """Per play ``t`` of ``world``'s history (52 slots): the state before it, rebuilt from the
    deal.  Returns ``(obs[52, 434], legal[52, 52], player[52], card[52], active[52],
    discard[52])``."""
    n = world.num_played
    first_card = jnp.maximum(world.history[0].astype(jnp.int32), 0)
    first = jnp.where(n > 0, world.played_by[first_card].astype(jnp.int32), world.leader)
    s0 = env.init_from_deal(world._owner.astype(jnp.int32), first)
    s0 = s0.replace(exposed=world.exposed, exposing=jnp.int32(gz.NUM_PLAYERS))
    s0 = s0.replace(legal_action_mask=env._legal_mask(s0))

    def body(s, t):
        a = jnp.maximum(world.history[t].astype(jnp.int32), 0)
        active = t < n
        j = s.current_player
        k = s.num_played % 4
        led = jnp.maximum(s.trick[s.leader].astype(jnp.int32), 0) // 13
        discard = (k > 0) & (a // 13 != led)
        obs = averaged_oracle_obs(env, s, j)
        legal = s.legal_action_mask[: gz.NUM_CARDS]
        nxt = env.step(s, a)
        nxt = jax.tree_util.tree_map(lambda x, y: jnp.where(active, x, y), nxt, s)
        return nxt, (obs, legal, j, a, active, discard)

    _, out = jax.lax.scan(body, s0, jnp.arange(gz.NUM_CARDS))
    return out


class IECSlices(NamedTuple):
    """Per play ``t`` (52 slots) of one world's history: ``log_gamma`` float[52]
    (``-beta (q_max - q_a)``), ``important`` bool[52] (counted in the score), ``illegal`` bool[52]
    (the card was not legal for its player's hand in this world), ``player`` int[52],
    ``card`` int[52], ``active`` bool[52] (``t < num_played``)."""

    log_gamma: Array
    important: Array
    illegal: Array
    player: Array
    card: Array
    active: Array


def iec_slices(env, q_fn: Callable, world, seat, beta: float = DEFAULT_BETA,
               skip_discards: bool = True) -> IECSlices:
    """The per-play terms of :func:`iec_log_weight` (for inspection and tests).  ``q_fn(obs)
    -> float[52]``: action values in points on the network input of the acting seat."""
    obs, legal, player, card, active, discard = _replay(env, world)
    q = jax.vmap(q_fn)(obs).astype(jnp.float32)  # [52 plays, 52 cards]
    q_max = jnp.max(jnp.where(legal, q, -jnp.inf), axis=1)
    q_a = jnp.take_along_axis(q, card[:, None], axis=1)[:, 0]
    log_gamma = -beta * (q_max - q_a)
    important = active & (player != seat) & (jnp.asarray(gz.RANK)[card] >= MIN_IMPORTANT_RANK)
    if skip_discards:
        important = important & ~discard
    illegal = active & ~jnp.take_along_axis(legal, card[:, None], axis=1)[:, 0]
    return IECSlices(log_gamma, important, illegal, player, card, active)


def iec_log_weight(env, q_fn: Callable, world, seat, beta: float = DEFAULT_BETA,
                   skip_discards: bool = True) -> Array:
    """The IEC log score of one world for the deciding ``seat``: the sum of ``log_gamma`` over
    the important plays (rank 8 or above, by another seat, not a discard unless
    ``skip_discards=False``), ``-inf`` if any play was illegal."""
    sl = iec_slices(env, q_fn, world, seat, beta, skip_discards)
    score = jnp.sum(jnp.where(sl.important, sl.log_gamma, 0.0))
    return jnp.where(jnp.any(sl.illegal), -jnp.inf, score).astype(jnp.float32)


def iec_log_weights(env, q_fn: Callable, worlds, seat, beta: float = DEFAULT_BETA,
                    skip_discards: bool = True) -> Array:
    """float[W]: :func:`iec_log_weight` of each world of a batch (``worlds`` stacked on a leading
    axis, e.g. ``sample_worlds(...).states``); ``seat`` is one seat or one per world."""
    w = jax.tree_util.tree_leaves(worlds)[0].shape[0]
    seats = jnp.broadcast_to(jnp.asarray(seat, jnp.int32), (w,))
    return jax.vmap(lambda s, p: iec_log_weight(env, q_fn, s, p, beta, skip_discards))(
        worlds, seats)


def iec_log_weight_fn(env, q_fn: Callable, beta: float = DEFAULT_BETA,
                      skip_discards: bool = True) -> Callable:
    """IEC as the ``log_weight(worlds, seat)`` plug-in of ``hidden_info.decide``."""
    def log_weight(ws: Worlds, seat):
        return iec_log_weights(env, q_fn, ws.states, seat, beta, skip_discards)
    return log_weight
