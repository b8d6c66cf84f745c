"""Counterfactual targets: where the step reward of every candidate is known exactly (Tractor: a
card that ends a trick), each candidate other than the one taken is trained too, toward the
taken move's target with its own step reward instead of the taken one's, weighted by
``counterfactual`` in the loss.  With the adapter's rollouts (``Game.rollout``), estimates
stand in where nothing is known exactly (they may read hidden cards: used to train, never to
choose)."""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp

from cardjax.cli import non_negative_float, option
from cardjax.nets.dmc.acting import compact
from cardjax.train.dmc.extension import Extension, Hooks

ALTERNATIVES = 16  # alternatives kept per decision


@dataclasses.dataclass(frozen=True)
class Options:
    counterfactual: float = option(0.0, "weight of the counterfactual targets: where the step "
                                   "reward of every candidate is known exactly (a card that "
                                   "ends a trick), each is trained toward the taken move's "
                                   "target with its own step reward (0: off)",
                                   non_negative_float)

    def __post_init__(self):
        if not (self.counterfactual >= 0.0 and math.isfinite(self.counterfactual)):
            raise ValueError(f"counterfactual must be a weight >= 0, got {self.counterfactual}")


def build(opts: Options, cfg, game, resources) -> Hooks:
    if game.counterfactual is None:
        raise ValueError(f"counterfactual targets need exact step rewards of alternatives, which "
                         f"this {cfg.game} game does not give")
    A = ALTERNATIVES

    def record(run, s):
        """The candidates other than the one taken whose step reward is known (exactly, or by
        the rollouts), when the taken one's is too: their feature rows, their step reward less
        the taken one's (on the targets' scale), which slots hold one, and whether the taken
        one's reward was exact."""
        states, idx, valid, slot = s["states"], s["idx"], s["valid"], s["slot"]
        reward, exact = jax.vmap(game.counterfactual)(states)
        known = exact
        if game.rollout is not None:  # estimates where nothing is known exactly
            rolled, estimated = jax.vmap(game.rollout)(states)
            use = estimated & ~jnp.any(exact, axis=1, keepdims=True)
            reward, known = jnp.where(use, rolled, reward), exact | use

        def at(x, i):  # per game, x [B, N] at the slots i [B, n]
            return jnp.take_along_axis(x, i, axis=1)

        r = at(reward, idx)
        known = at(known, idx) & valid
        taken = at(known, slot[:, None])[:, 0] & s["alive"]
        others = known & (jnp.arange(idx.shape[1]) != slot[:, None]) & taken[:, None]
        pick, ok, _ = jax.vmap(compact, in_axes=(0, None))(others, A)
        return dict(alt_action=at(s["f_idx"], pick),
                    alt_delta=(at(r, pick) - at(r, slot[:, None])) * cfg.reward_scale,
                    alt_valid=ok, alt_exact=at(exact, at(idx, slot[:, None]))[:, 0])

    def decisions(run, bufs, target, weight):
        # an alternative's target: the taken move's, with its own step reward; where the exact
        # rewards extension took the taken move's known reward out of the target, the same rest
        # serves every exact alternative
        delta = bufs["alt_delta"]
        if "known" in bufs:
            delta = jnp.where(bufs["alt_exact"][..., None], 0.0, delta)
        return dict(alt_action=bufs["alt_action"], alt_target=target[..., None] + delta,
                    alt_weight=weight[..., None] * bufs["alt_valid"])

    def stats(run, bufs, final, extra, stats):  # alternatives trained, in all
        return dict(stats, alternatives=jnp.sum(extra["alt_weight"]))

    def loss(q, extra, w):
        return opts.counterfactual * jnp.sum(
            w[:, None] * extra["alt_weight"] * (q - extra["alt_target"]) ** 2)

    return Hooks(
        fields={"alt_action": ((A,), jnp.int32), "alt_target": ((A,), jnp.float32),
                "alt_weight": ((A,), jnp.float32)},
        buffers={"alt_action": ((A,), jnp.int32), "alt_delta": ((A,), jnp.float32),
                 "alt_valid": ((A,), jnp.bool_), "alt_exact": ((), jnp.bool_)},
        record=record, decisions=decisions, stats=stats,
        rows=lambda extra: extra["alt_action"], loss=loss)


EXTENSION = Extension("counterfactual", Options, on=lambda o: o.counterfactual > 0,
                      build=build, requires=("counterfactuals",))
