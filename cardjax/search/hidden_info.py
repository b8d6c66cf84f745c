"""Play under hidden information by searching sampled worlds, for any cardjax game.

The deciding seat cannot see the other hands.  :func:`decide` samples ``W`` worlds (full states
that agree with everything the seat has seen) with a pluggable sampler (default
:func:`sample_uniform`: ``env.sample_hidden``, which every env has), weights them (the sampler's
prior times an optional pluggable likelihood, :func:`world_weights`), runs the
perfect-information MCTS of :mod:`cardjax.search.mcts` in every world with the same budget
(``b + k x legal moves``) and plays the legal move with the best weighted mean root value.
:func:`make_agent` wraps it into a :class:`cardjax.core.Agent`.  Everything is pure JAX
(jit/vmap-able); ``W`` and the search sizes are static.

Game-specific samplers and weights plug in from outside ``search/`` (ScrofaZero's Gongzhu
player: stratified worlds and IEC weights, :mod:`cardjax.games.gongzhu.worlds`); the
background is in ``docs/hidden_information.md``.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp

from cardjax.core import Agent
from cardjax.search import mcts

Array = jax.Array


class Worlds(NamedTuple):
    """``W`` sampled worlds: ``states`` (a State stacked on a leading axis ``W``), ``valid``
    bool[W], ``prior`` float[W] (sums to 1 over the valid worlds), ``stratum`` int[W] (0 when
    the sampler has no strata) and ``fixed`` (the sampler's per-world constraints, e.g. forced
    card placements; ``None`` when it has none)."""

    states: Any
    valid: Array
    prior: Array
    stratum: Array
    fixed: Any = None


def sample_uniform(env, key, state, seat, num_worlds: int) -> Worlds:
    """``num_worlds`` draws of ``env.sample_hidden(key_w, state, seat)``, prior ``1/W`` each, all
    valid.  This is the signature every world sampler of :func:`decide` has."""
    w = int(num_worlds)
    keys = jax.random.split(key, w)
    states = jax.vmap(env.sample_hidden, (0, None, None))(keys, state, jnp.asarray(seat, jnp.int32))
    return Worlds(states, jnp.ones(w, bool), jnp.full(w, 1.0 / w, jnp.float32),
                  jnp.zeros(w, jnp.int32))


def world_weights(prior, valid, log_weight=None) -> Array:
    """float[W], summing to 1: ``prior * exp(log_weight - max)`` over the valid worlds,
    normalised.  If ``log_weight`` rules out every valid world it is ignored; with no valid
    world, uniform."""
    prior = jnp.asarray(prior, jnp.float32)
    valid = jnp.asarray(valid, bool) & (prior > 0)
    logp = jnp.where(valid, jnp.log(jnp.where(valid, prior, 1.0)), -jnp.inf)
    logp = jnp.where(jnp.any(valid), logp, 0.0)
    l = logp
    if log_weight is not None:
        l = logp + jnp.asarray(log_weight, jnp.float32)
        l = jnp.where(jnp.any(jnp.isfinite(l)), l, logp)
    m = jnp.max(l)
    e = jnp.exp(l - m)
    return (e / jnp.sum(e)).astype(jnp.float32)


def decide(env, value_fn: Callable, key, state, *, worlds: int = 9,
           sample_worlds: Callable = sample_uniform, log_weight: Callable | None = None,
           b: int = 10, k: int = 2, max_simulations: int | None = None, c: float = 30.0):
    """The move of ``state.current_player``: ``(action, info)``.

    * ``value_fn(state) -> float[T]``: the MCTS leaf evaluation per team (``mcts.zero_value(env)``
      searches on the terminal rewards alone);
    * ``sample_worlds(env, key, state, seat, num_worlds) -> Worlds`` draws the ``worlds`` worlds
      (default :func:`sample_uniform`);
    * ``log_weight(worlds, seat) -> float[W]`` (optional) is a log-likelihood of each world
      (``-inf`` rules one out); the weights are :func:`world_weights` of the prior and it.

    Each world is searched with ``mcts.batched_search`` (root mover = the real current player,
    budget ``mcts.simulations(legal, b, k, max_simulations)``; ``max_simulations`` defaults to
    ``b + 13 k``, the paper's Gongzhu cap, and bounds the tree: raise it for games with more
    moves).  An action's value is the weighted mean of its root child value over the worlds
    where it was visited; the legal action with the highest value is played.  With one legal
    move (or none visited, or a finished game) the first legal action is returned.

    ``info``: ``states`` the worlds, ``valid``, ``prior``, ``log_weight`` (zeros without one),
    ``weights`` (float[W]), ``child_values`` float[W, A] (``-inf`` unvisited), ``child_visits``
    int[W, A], ``values`` float[A] the combined values (``-inf`` for illegal or never visited
    actions), ``num_simulations``.
    """
    if max_simulations is None:
        max_simulations = b + 13 * k
    worlds = int(worlds)
    seat = state.current_player
    k_worlds, k_search = jax.random.split(key)
    ws = sample_worlds(env, k_worlds, state, seat, worlds)
    if log_weight is not None:
        log_w = jnp.asarray(log_weight(ws, seat), jnp.float32)
        weights = world_weights(ws.prior, ws.valid, log_w)
    else:
        log_w = jnp.zeros(worlds, jnp.float32)
        weights = world_weights(ws.prior, ws.valid)
    legal = state.legal_action_mask
    n_sims = mcts.simulations(legal, b, k, max_simulations)
    out = mcts.batched_search(env, value_fn, ws.states, jax.random.split(k_search, worlds),
                              max_simulations=max_simulations,
                              num_simulations=jnp.full(worlds, n_sims, jnp.int32), c=c)
    cv = out.child_values
    seen = jnp.isfinite(cv)
    wsum = jnp.sum(jnp.where(seen, weights[:, None], 0.0), axis=0)
    total = jnp.sum(jnp.where(seen, weights[:, None] * cv, 0.0), axis=0)
    ok = legal & (wsum > 0)
    values = jnp.where(ok, total / jnp.where(ok, wsum, 1.0), -jnp.inf)
    fallback = jnp.argmax(legal).astype(jnp.int32)
    best = jnp.argmax(values).astype(jnp.int32)
    single = jnp.sum(legal.astype(jnp.int32)) <= 1
    action = jnp.where(single | ~jnp.any(ok) | state.terminated, fallback, best)
    info = dict(states=ws.states, valid=ws.valid, prior=ws.prior, log_weight=log_w,
                weights=weights, child_values=cv, child_visits=out.child_visits, values=values,
                num_simulations=n_sims)
    return action, info


def make_agent(env, value_fn: Callable | None = None, params=None, *, name: str = "hidden_info",
               worlds: int = 9, sample_worlds: Callable = sample_uniform,
               log_weight: Callable | None = None, b: int = 10, k: int = 2,
               max_simulations: int | None = None, c: float = 30.0):
    """A :class:`cardjax.core.Agent` playing :func:`decide`.

    ``value_fn(params, state) -> float[T]`` (default: zeros) and ``log_weight(params, worlds,
    seat) -> float[W]`` (optional) read the parameters ``act(params, key, state)`` is given (the
    agent's ``params`` field holds the initial ones), so one compiled ``act`` serves every new
    set of weights; ``sample_worlds`` and the other options are :func:`decide`'s.
    """
    if value_fn is None:
        zero = mcts.zero_value(env)

        def value_fn(params, state):
            return zero(state)

    def act(params, key, state):
        lw = None if log_weight is None else functools.partial(log_weight, params)
        action, _ = decide(env, functools.partial(value_fn, params), key, state, worlds=worlds,
                           sample_worlds=sample_worlds, log_weight=lw, b=b, k=k,
                           max_simulations=max_simulations, c=c)
        return action

    return Agent(name, act, params)
