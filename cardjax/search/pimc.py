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
the move (the ScrofaZero value in Gongzhu, a DMC run's best Q); or, with ``search=N``, by a
search of the position after the move in each world (:func:`cardjax.search.uct.searched_rest`:
cheating UCT of ``N`` iterations on points, exploration ``k``, its simulations the playouts or
the value above), which finds the opponents' best answers where a playout guesses them: ``N``
times the cost.  Only ``candidates`` legal moves are valued: the first in id order, or, with
``rank_fn(params, state, c) -> (moves, valid)``, the ones a trained player prefers (a DMC
player's best Q, :func:`cardjax.agents.dmc.ranking_from_params`).  In id order a game whose
positions have more (Dou Dizhu's leads) never values its later moves (chains, bombs).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

from cardjax import legal_words
from cardjax.search import uct


class Config(NamedTuple):
    worlds: int = 16
    playouts: int = 1  # playouts (or searches) per world and move
    candidates: int = 32
    search: int = 0  # UCT iterations in each world after each move (0: a playout or value)
    k: float = 1.0  # that search's exploration constant, on the game's points

    def check(self) -> "Config":
        for name in ("worlds", "playouts", "candidates"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"PIMC {name} must be at least 1, got {getattr(self, name)}")
        if int(self.search) < 0:
            raise ValueError(f"PIMC search must be 0 (none) or a number of iterations, got "
                             f"{self.search}")
        if not float(self.k) >= 0:
            raise ValueError(f"PIMC k (the search's exploration) must be >= 0, got {self.k}")
        return self


class Result(NamedTuple):
    action: jax.Array  # int32: the move played
    candidates: jax.Array  # int32[C]: the legal moves valued (valid ones first)
    valid: jax.Array  # bool[C]
    values: jax.Array  # float32[C]: mean value of each (nan where not valid)


def search(env, cfg: Config, state, key, *, sample_worlds: Callable, sampler_params=None,
           policy: Callable | None = None, policy_params=None,
           value_fn: Callable | None = None, rank_fn: Callable | None = None,
           rank_params=None) -> Result:
    """PIMC for ``state``'s player to move (one game; vmap for a batch).  With ``value_fn(params,
    state) -> float[T]`` (team values of a trained network, ``policy_params`` its params) a move
    is valued by the network after it instead of by playouts; with ``rank_fn`` (its params
    ``rank_params``) the candidates are the moves it ranks first."""
    cfg = cfg.check()
    seat = state.current_player
    c = min(cfg.candidates, env.num_actions)
    if rank_fn is None:
        words = env.legal_words(state)
        j = jnp.arange(c)
        valid = j < legal_words.count(words)
        cand = jnp.where(valid, legal_words.nth(words, j), 0).astype(jnp.int32)
    else:
        cand, valid = rank_fn(rank_params, state, c)
        cand = jnp.where(valid, cand, 0).astype(jnp.int32)
    k_worlds, k_play, k_tie = jax.random.split(key, 3)
    worlds = sample_worlds(k_worlds, state, seat, cfg.worlds, sampler_params)
    share = uct.team_share(env, state)[seat]

    vf = None if value_fn is None else (lambda st: value_fn(policy_params, st))

    def value(world, a, key):
        s = env.step(world, a)
        if cfg.search:
            rest = uct.searched_rest(env, s, key, iterations=int(cfg.search), k=float(cfg.k),
                                     policy=policy, policy_params=policy_params, value_fn=vf)
        else:
            rest = uct.rest_of_game(env, s, key, policy, policy_params, vf)
        return (s.rewards + rest) @ share

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
             policy: Callable | None = None, value_fn: Callable | None = None,
             rank_fn: Callable | None = None) -> Callable:
    """``act(params, key, state) -> action`` playing :func:`search`; ``params`` is ``(sampler
    params, playout policy or value params, ranking params)`` (a network's weights, a trained
    player's; ``None`` where unused), so one compiled ``act`` serves new weights.  A position
    with one legal move is played without searching."""
    cfg = cfg.check()

    def run(params, key, state):
        sampler_params, policy_params, rank_params = params
        return search(env, cfg, state, key, sample_worlds=sample_worlds,
                      sampler_params=sampler_params, policy=policy,
                      policy_params=policy_params, value_fn=value_fn, rank_fn=rank_fn,
                      rank_params=rank_params).action

    return uct.only_choices(env, run)
