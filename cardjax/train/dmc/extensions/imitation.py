"""Imitation of the game's advice: at the decisions where the game names a reference player's
move, DQfD's large-margin loss ``max_a [Q(s, a) + m (a != a_E)] - Q(s, a_E)`` (Hester et al.
2018) pulls the advised move ``a_E``'s Q above every other candidate's by the margin ``m``,
weighted by ``imitation`` beside the Monte-Carlo loss."""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp

from cardjax.cli import non_negative_float, option, positive_float
from cardjax.nets.dmc.acting import advised_slots
from cardjax.train.dmc.extension import Extension, Hooks

SLOTS = 16  # the advised move and up to 15 other candidates


@dataclasses.dataclass(frozen=True)
class Options:
    imitation: float = option(0.0, "weight of the imitation loss (DQfD's large margin): at the "
                              "decisions the game's advice names a move, that move's Q should "
                              "exceed every other's by --imitation_margin (0: off)",
                              non_negative_float)
    imitation_margin: float = option(0.1, "the imitation loss's margin, in the targets' units",
                                     positive_float)

    def __post_init__(self):
        if not (self.imitation >= 0.0 and math.isfinite(self.imitation)):
            raise ValueError(f"imitation must be >= 0, got {self.imitation}")
        if not (self.imitation_margin > 0.0 and math.isfinite(self.imitation_margin)):
            raise ValueError(f"imitation_margin must be > 0, got {self.imitation_margin}")


def margin_loss(q, valid, margin: float):
    """float32[N]: DQfD's large-margin loss of each row of ``q`` [N, S] whose slot 0 is the
    demonstrated move and slots 1.. other candidates (where ``valid`` [N, S]): how far the best
    other candidate plus ``margin`` rises above the demonstrated move, 0 when none does (or no
    other candidate is valid)."""
    others = jnp.where(valid[:, 1:], q[:, 1:] + margin, -1e9)
    return jnp.maximum(jnp.max(others, axis=1) - q[:, 0], 0.0) * valid[:, 0]


def build(opts: Options, cfg, game, resources) -> Hooks:
    def record(run, s):
        """The loss's candidates: the advised move's row first, then up to ``SLOTS - 1`` other
        legal candidates drawn at random, and which slots hold one (none where nothing is
        advised or nothing else is legal; with fewer than ``SLOTS`` candidates, the last
        slots never do)."""
        valid = s["valid"]
        advice = advised_slots(game, s["states"], s["idx"], valid, s["f_idx"])
        key = jax.random.fold_in(s["k_eps"], 2)  # the games' other draws stay those without it
        u = jax.random.uniform(key, valid.shape)
        priority = jnp.where(valid, u, -1.0) + 2.0 * advice
        n = min(SLOTS, valid.shape[1])  # a game of fewer candidates: the rest invalid
        top, slots = jax.lax.top_k(priority, n)
        top = jnp.pad(top, ((0, 0), (0, SLOTS - n)), constant_values=-1.0)
        slots = jnp.pad(slots, ((0, 0), (0, SLOTS - n)))
        shown = jnp.any(advice, axis=1) & s["alive"] & (s["count"] > 1)
        return dict(im_action=jnp.take_along_axis(s["f_idx"], slots, axis=1),
                    im_valid=(top >= 0) & shown[:, None])

    def decisions(run, bufs, target, weight):
        return dict(im_action=bufs["im_action"], im_weight=weight[..., None] * bufs["im_valid"])

    def stats(run, bufs, final, extra, stats):  # decisions with a demonstration
        return dict(stats, demonstrations=jnp.sum(extra["im_weight"][..., 0] > 0,
                                                   dtype=jnp.int32))

    def loss(q, extra, w):
        return opts.imitation * jnp.sum(
            w * margin_loss(q, extra["im_weight"] > 0, opts.imitation_margin))

    return Hooks(fields={"im_action": ((SLOTS,), jnp.int32), "im_weight": ((SLOTS,), jnp.float32)},
                 buffers={"im_action": ((SLOTS,), jnp.int32), "im_valid": ((SLOTS,), jnp.bool_)},
                 record=record, decisions=decisions, stats=stats,
                 rows=lambda extra: extra["im_action"], loss=loss)


EXTENSION = Extension("imitation", Options, on=lambda o: o.imitation > 0, build=build,
                      requires=("advises",))
