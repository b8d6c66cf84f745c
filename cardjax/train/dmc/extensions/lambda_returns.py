"""Lambda-returns: a seat's target looks back through its own later decisions as
``lam G + (1 - lam) Q``, with the actors' Q of the moves they took (``lam = 1``: Monte-Carlo,
the core's).  The decisions without a choice pass their return on whole."""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp

from cardjax.cli import option, probability
from cardjax.train.dmc.extension import Extension, Hooks


@dataclasses.dataclass(frozen=True)
class Options:
    lam: float = option(1.0, "lambda of the targets: 1 = Monte-Carlo returns; below 1 mixes in "
                        "the actors' Q of the seat's later decisions", probability)

    def __post_init__(self):
        if not 0.0 <= self.lam <= 1.0:
            raise ValueError(f"lam must be in [0, 1], got {self.lam}")


def build(opts: Options, cfg, game, resources) -> Hooks:
    def record(run, s):  # the actors' Q of the move taken (what they chose by)
        return dict(q=jnp.take_along_axis(s["q"], s["slot"][:, None], axis=1)[:, 0])

    def returns(run, bufs, final):
        return dict(values=bufs["q"], bootstrap=bufs["scored"], lam=opts.lam)

    return Hooks(buffers={"q": ((), jnp.float32)}, record=record, returns=returns)


EXTENSION = Extension("lambda_returns", Options, on=lambda o: o.lam < 1.0, build=build)
