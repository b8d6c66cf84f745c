"""Advice: where the game names a reference player's move (Tractor with its ``advice`` option:
the rule player's next card), the actors add ``advice_bonus`` to that move's Q when choosing;
the targets stay the returns.  A trained player adds the same bonus
(:attr:`cardjax.nets.dmc.config.Config.advice_bonus`; the arena may change it)."""

from __future__ import annotations

import dataclasses
import math

import jax.numpy as jnp

from cardjax.cli import non_negative_float, option
from cardjax.nets.dmc.acting import advised_slots
from cardjax.train.dmc.extension import Extension, Hooks


@dataclasses.dataclass(frozen=True)
class Options:
    advice_bonus: float = option(0.0, "added to the Q of the move the game's advice names when "
                                 "choosing, by the actors and the trained player (0: off)",
                                 non_negative_float)

    def __post_init__(self):
        if not (self.advice_bonus >= 0.0 and math.isfinite(self.advice_bonus)):
            raise ValueError(f"advice_bonus must be >= 0, got {self.advice_bonus}")


def build(opts: Options, cfg, game, resources) -> Hooks:
    def choose(run, s, q):
        advice = advised_slots(game, s["states"], s["idx"], s["valid"], s["f_idx"])
        return q + jnp.where(advice, opts.advice_bonus, 0.0)

    return Hooks(choose=choose)


EXTENSION = Extension("advice", Options, on=lambda o: o.advice_bonus > 0, build=build,
                      requires=("advises",))
