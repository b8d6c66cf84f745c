"""Oracle guiding (PerfectDou's and Suphx's idea): the hidden cards are appended to a share of
the actors' features, a share that falls linearly from 1 to 0 over the first
``oracle_iterations`` iterations, so the network first learns with the whole deal in view and
ends playing from its own.  The network's input holds the oracle block for good (zeros when
playing, :attr:`cardjax.nets.dmc.config.Config.oracle`); the game's adapter builds it."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from cardjax.cli import non_negative_int, option
from cardjax.train.dmc.extension import Extension, Hooks


@dataclasses.dataclass(frozen=True)
class Options:
    oracle_iterations: int = option(0, "oracle guiding: hidden cards shown with a probability "
                                    "falling to 0 over this many iterations (0: off)",
                                    non_negative_int)

    def __post_init__(self):
        if self.oracle_iterations < 0:
            raise ValueError(f"oracle_iterations must be >= 0, got {self.oracle_iterations}")


def build(opts: Options, cfg, game, resources) -> Hooks:
    if game.oracle is None:
        raise ValueError(f"oracle_iterations needs a game with an oracle view; this {cfg.game} "
                         "game has none")
    n = max(opts.oracle_iterations, 1)

    def begin(run):  # the share of games shown the hidden cards at each step of this batch
        run["oracle_keep"] = jnp.clip(1.0 - run["iteration"].astype(jnp.float32) / n, 0.0, 1.0)

    def observe(run, s):
        s["keep"] = jax.random.uniform(s["keys"]["oracle"][0], (run["B"],)) < run["oracle_keep"]

    def stats(run, bufs, final, extra, stats):
        return dict(stats, oracle_shown=run["oracle_keep"])

    return Hooks(keys=1, begin=begin, observe=observe, stats=stats)


EXTENSION = Extension("oracle", Options, on=lambda o: o.oracle_iterations > 0, build=build,
                      requires=("oracle",))
