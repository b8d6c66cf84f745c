"""Playing games for a corpus: a line-up of agents, one per seat, every action recorded.

Every game depends on its deal id alone (its deal and its players' random keys are folded from
the seed and the id), so a corpus made in other batches, or resumed, holds the same games.
"""

from __future__ import annotations

from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from cardjax import programs
from cardjax.core import Agent
from cardjax.corpus.store import Games
from cardjax.gate import either


def deal_keys(seed: int, deal_ids) -> jax.Array:
    """The key of each deal's ``env.init``."""
    base = jax.random.fold_in(jax.random.PRNGKey(seed), 0)
    return jax.vmap(lambda i: jax.random.fold_in(base, i))(jnp.asarray(deal_ids, jnp.uint32))


def _play_keys(seed: int, deal_ids) -> jax.Array:
    base = jax.random.fold_in(jax.random.PRNGKey(seed), 1)
    return jax.vmap(lambda i: jax.random.fold_in(base, i))(jnp.asarray(deal_ids, jnp.uint32))


def make_recorder(env, lineup: Sequence[Agent]):
    """Jitted ``record(states, play_keys, params) -> (actions int16[B, max_steps], length
    int32[B], returns float32[B, P])``: the games from ``states`` with ``lineup[seat]`` acting
    for each seat (``params``: the tuple of the distinct agents' params, see
    :func:`record_games`)."""
    if len(lineup) != env.num_players:
        raise ValueError(f"{env.name} has {env.num_players} seats; the line-up names "
                         f"{len(lineup)} players")
    distinct = _distinct(lineup)
    who_of_seat = jnp.asarray([distinct.index(_id(a)) for a in lineup], jnp.int32)
    agents = [next(a for a in lineup if _id(a) == d) for d in distinct]
    T = env.max_steps

    def record(states, keys, params):
        n = keys.shape[0]

        def acting(k):
            return lambda ks, ss: jax.vmap(agents[k].act, in_axes=(None, 0, 0))(params[k], ks, ss)

        def dispatch(k, who, ks, ss):
            if k == len(agents) - 1:
                return acting(k)(ks, ss)
            return either(who == k, lambda w, ks, ss: acting(k)(ks, ss),
                          lambda w, ks, ss: dispatch(k + 1, w, ks, ss), who, ks, ss)

        def cond(c):
            return (c[0] < T) & ~jnp.all(c[1].terminated)

        def body(c):
            t, s, actions, returns = c
            step_keys = jax.vmap(lambda k: jax.random.fold_in(k, t))(keys)
            a = dispatch(0, who_of_seat[s.current_player], step_keys, s)
            live = ~s.terminated
            actions = actions.at[:, t].set(jnp.where(live, a, -1).astype(jnp.int16))
            s = jax.vmap(env.step)(s, a)
            return t + 1, s, actions, returns + s.rewards

        init = (jnp.int32(0), states, jnp.full((n, T), -1, jnp.int16),
                jnp.zeros_like(states.rewards))
        _, final, actions, returns = jax.lax.while_loop(cond, body, init)
        return actions, jnp.sum(actions >= 0, axis=1, dtype=jnp.int32), returns

    return programs.jit_playing(record), tuple(a.params for a in agents)


def _id(agent: Agent):
    return (agent.name, agent.act)


def _distinct(lineup):
    seen = []
    for a in lineup:
        if _id(a) not in seen:
            seen.append(_id(a))
    return seen


def record_games(env, lineup: Sequence[Agent], seed: int, deal_ids, recorder=None) -> Games:
    """The games of ``deal_ids`` (consecutive or not) played by ``lineup``, as NumPy arrays.
    ``recorder``: a :func:`make_recorder` result to reuse (it compiles once per batch size)."""
    deal_ids = np.asarray(deal_ids, np.int64)
    record, params = recorder or make_recorder(env, lineup)
    states = jax.vmap(env.init)(deal_keys(seed, deal_ids))
    actions, length, returns = record(states, _play_keys(seed, deal_ids), params)
    return Games(jax.device_get(states), np.asarray(actions), np.asarray(length),
                 np.asarray(returns), deal_ids)


def replay(env, states, actions, at=None):
    """Replay recorded ``actions`` (int[B, T], -1 after the last) from the initial ``states`` (a
    batch): ``(final states, summed rewards float[B, P], seen)``.  With ``at(states, actions) ->
    pytree`` (batched: every game's position and the action played from it, e.g. a trainer's
    features and targets), ``seen`` is ``(what at returned before each action, leading axes [T,
    B]; live bool[T, B]: an action was played there)``; else None.  A recorded game's check and
    its trainers' source of every state."""

    def body(c, a_t):
        s, total = c
        live = (a_t >= 0) & ~s.terminated
        out = None if at is None else (at(s, jnp.maximum(a_t, 0).astype(jnp.int32)), live)
        nxt = jax.vmap(env.step)(s, jnp.maximum(a_t, 0).astype(jnp.int32))
        s = jax.tree_util.tree_map(
            lambda x, y: jnp.where(live.reshape(live.shape + (1,) * (x.ndim - 1)), x, y), nxt, s)
        return (s, total + jnp.where(live[:, None], nxt.rewards, 0.0)), out

    (final, total), seen = jax.lax.scan(body, (states, jnp.zeros_like(states.rewards)),
                                        jnp.asarray(actions).T)
    return final, total, seen


def games_from_actions(env, states, actions, deal_ids) -> Games:
    """Games played elsewhere (e.g. read from records) as corpus games: ``states`` a list of
    initial states (one game each), ``actions`` a list of action lists, ``deal_ids`` their ids.
    The returns come from replaying the actions."""
    max_steps = int(env.max_steps)
    table = np.full((len(actions), max_steps), -1, np.int16)
    for i, acts in enumerate(actions):
        if len(acts) > max_steps:
            raise ValueError(f"game {deal_ids[i]}: {len(acts)} actions, more than the env's "
                             f"{max_steps}")
        table[i, :len(acts)] = acts
    batch = jax.tree_util.tree_map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *states)
    _, returns, _ = _jitted_replay(env)(jax.tree_util.tree_map(jnp.asarray, batch),
                                        jnp.asarray(table))
    return Games(batch, table, np.array([len(a) for a in actions], np.int32),
                 np.asarray(returns, np.float32), np.asarray(deal_ids, np.int64))


_REPLAYS: dict = {}


def _jitted_replay(env):
    if repr(env) not in _REPLAYS:
        _REPLAYS[repr(env)] = jax.jit(lambda s, a: replay(env, s, a))
    return _REPLAYS[repr(env)]
