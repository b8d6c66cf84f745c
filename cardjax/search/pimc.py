"""Perfect Information Monte Carlo (PIMC): sample worlds the player cannot tell from the true
state, value every legal move in each world by playing it and playing the game out with full
information, and play the move of the best mean value (the Solinas, Rebstock and Buro paper's
algorithm 1, whose worlds may come from an inference network).

Generic over any env: the worlds come from a sampler ``sample_worlds(key, state, seat, n, params)
-> n states`` (``cardjax.inference.worlds.sampler``: uniform over the information set or in
proportion to a network's predictions; or ``env.sample_hidden`` for a game that does not describe
its hidden cards), and the playouts from a policy ``policy(params, key, state) -> action`` (every
seat; default uniformly random).  A move's value is the mover's team's share of the rewards from
the move to the end of the game (:func:`cardjax.search.uct.team_share`), averaged over the worlds
and ``playouts`` per world; or, with ``value_fn``, a trained network's value of the position after
the move (the ScrofaZero value in Gongzhu, a DMC run's best Q).  Only the first ``candidates``
legal moves (in id order) are valued:
a game whose positions have more (Dou Dizhu's leads) should raise it.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

from cardjax import legal_words
from cardjax.search import uct


class Config(NamedTuple):
    worlds: int = 16
    playouts: int = 1
    candidates: int = 32

    def check(self) -> "Config":
        for name in self._fields:
            if int(getattr(self, name)) < 1:
                raise ValueError(f"PIMC {name} must be at least 1, got {getattr(self, name)}")
        return self


class Result(NamedTuple):
    action: jax.Array  # int32: the move played
    candidates: jax.Array  # int32[C]: the legal moves valued (valid ones first)
    valid: jax.Array  # bool[C]
    values: jax.Array  # float32[C]: mean value of each (nan where not valid)


def search(env, cfg: Config, state, key, *, sample_worlds: Callable, sampler_params=None,
           policy: Callable | None = None, policy_params=None,
           value_fn: Callable | None = None) -> Result:
    """PIMC for ``state``'s player to move (one game; vmap for a batch).  With ``value_fn(params,
    state) -> float[T]`` (team values of a trained network, ``policy_params`` its params) a move
    is valued by the network after it instead of by playouts."""
    cfg = cfg.check()
    seat = state.current_player
    words = env.legal_words(state)
    c = min(cfg.candidates, env.num_actions)
    j = jnp.arange(c)
    valid = j < legal_words.count(words)
    cand = jnp.where(valid, legal_words.nth(words, j), 0).astype(jnp.int32)
    k_worlds, k_play, k_tie = jax.random.split(key, 3)
    worlds = sample_worlds(k_worlds, state, seat, cfg.worlds, sampler_params)
    share = uct.team_share(env, state)[seat]

    vf = None if value_fn is None else (lambda st: value_fn(policy_params, st))

    def value(world, a, key):
        s = env.step(world, a)
        return (s.rewards + uct.rest_of_game(env, s, key, policy, policy_params, vf)) @ share

    keys = jax.random.split(k_play, cfg.worlds * c * cfg.playouts).reshape(
        cfg.worlds, c, cfg.playouts, -1)
    per = jax.vmap(lambda w, kw: jax.vmap(lambda a, ka: jax.vmap(
        lambda k: value(w, a, k))(ka))(cand, kw))(worlds, keys)  # [W, C, R]
    values = jnp.where(valid, jnp.mean(per, axis=(0, 2)), jnp.nan)
    top = jnp.max(jnp.where(valid, values, -jnp.inf))
    # ties at random: with few distinct values (Dou Dizhu's and Tractor's scores, deterministic
    # playouts) the lowest id would be a systematic bias (a pass, the lowest card)
    tied = valid & (values == top)
    best = jnp.argmax(jnp.where(tied, jax.random.uniform(k_tie, (c,)), -1.0))
    return Result(cand[best], cand, valid, values)


def make_act(env, cfg: Config, *, sample_worlds: Callable,
             policy: Callable | None = None, value_fn: Callable | None = None) -> Callable:
    """``act(params, key, state) -> action`` playing :func:`search`; ``params`` is ``(sampler
    params, playout policy or value params)`` (a network's weights, a trained player's), so one compiled
    ``act`` serves new weights.  A position with one legal move is played without searching."""
    cfg = cfg.check()

    def run(params, key, state):
        sampler_params, policy_params = params
        return search(env, cfg, state, key, sample_worlds=sample_worlds,
                      sampler_params=sampler_params, policy=policy,
                      policy_params=policy_params, value_fn=value_fn).action

    return uct.only_choices(env, run)
