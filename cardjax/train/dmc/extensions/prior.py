"""A prior player's warm start: the actors play the moves of a prior player (a run directory,
an artifact or a baseline name; e.g. a DeepRocket run) instead of their own for a share
``prior_share`` of the decisions at first, falling to 0 over ``prior_iterations`` iterations.
The trainer loads no player: the caller passes it (``make_train(..., prior=)``)."""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp

from cardjax.cli import non_negative_int, option, probability
from cardjax.train.dmc.extension import Extension, Hooks


@dataclasses.dataclass(frozen=True)
class Options:
    init_from: str = option("", "a prior player (a run directory, e.g. a DeepRocket run, or a "
                            "baseline name) that makes a share of the actors' decisions at "
                            "first (warm start)", str)
    prior_iterations: int = option(0, "the prior's share falls to 0 over this many iterations "
                                   "(with --init_from)", non_negative_int)
    prior_share: float = option(0.25, "the share of decisions the prior makes at iteration 0",
                                probability)

    def __post_init__(self):
        if self.prior_iterations < 0:
            raise ValueError(f"prior_iterations must be >= 0, got {self.prior_iterations}")
        if not 0.0 < self.prior_share <= 1.0:
            raise ValueError(f"prior_share must be in (0, 1], got {self.prior_share}")
        if bool(self.init_from) != (self.prior_iterations > 0):
            raise ValueError("init_from (the prior player) and prior_iterations (> 0) go together; "
                             f"got init_from {self.init_from!r}, prior_iterations "
                             f"{self.prior_iterations}")


def prior_moves(opts: Options, prior, B: int):
    """``prior_moves(key, iteration, states, alive, idx, valid, slot) -> (slot, by_prior)``:
    each live game's decision is the prior's with probability ``prior_share x (1 - iteration /
    prior_iterations)`` (at most ``ceil(prior_share x B)`` games a step, the only ones the prior
    player is run for: it may cost far more than the Q networks); the chosen slot becomes the
    candidate slot of the prior's move (kept when that move is not among the candidates)."""
    cap = max(1, math.ceil(opts.prior_share * B))
    n = max(opts.prior_iterations, 1)

    def moves(key, iteration, states, alive, idx, valid, slot):
        k_use, k_act = jax.random.split(key)
        share = opts.prior_share * jnp.clip(1.0 - iteration.astype(jnp.float32) / n, 0.0, 1.0)
        use = alive & (jax.random.uniform(k_use, (B,)) < share)
        rows = jnp.nonzero(use, size=cap, fill_value=B)[0]
        picked = jnp.zeros(B, bool).at[rows].set(True, mode="drop")
        sub = jax.tree_util.tree_map(lambda x: x[jnp.minimum(rows, B - 1)], states)

        def run():
            return jax.vmap(prior.act, in_axes=(None, 0, 0))(
                prior.params, jax.random.split(k_act, cap), sub).astype(jnp.int32)

        acts = jax.lax.cond(jnp.any(picked), run, lambda: jnp.full(cap, -1, jnp.int32))
        move = jnp.full(B, -1, jnp.int32).at[rows].set(acts, mode="drop")
        match = valid & (idx == move[:, None])
        by_prior = picked & jnp.any(match, axis=1)
        return jnp.where(by_prior, jnp.argmax(match, axis=1), slot), by_prior

    return moves


def build(opts: Options, cfg, game, resources) -> Hooks:
    prior = resources.get("prior")
    if prior is None:
        raise ValueError(f"init_from {opts.init_from!r}: pass the prior player it names as "
                         "prior= (e.g. cardjax.agents.load(game.plain_env, cfg.init_from))")
    if game.view:  # the prior plays the env: its moves as the view's
        prior = prior._replace(act=game.env.lift(prior.act))
    moves = prior_moves(opts, prior, cfg.num_envs)

    def act(run, s):
        s["key"], k_prior = jax.random.split(s["key"])
        s["slot"], by_prior = moves(k_prior, run["iteration"], s["states"], s["alive"],
                                    s["idx"], s["valid"], s["slot"])
        s["stats"]["prior"] = jnp.sum(by_prior, dtype=jnp.int32)

    def stats(run, bufs, final, extra, stats):
        stats = dict(stats)
        decisions = jnp.sum(jnp.sum(bufs["alive"], axis=0))
        stats["prior_rate"] = stats.pop("prior") / jnp.maximum(decisions, 1)
        return stats

    return Hooks(act=act, step_stats={"prior": jnp.int32(0)}, stats=stats)


EXTENSION = Extension("prior", Options, on=lambda o: bool(o.init_from), build=build)
