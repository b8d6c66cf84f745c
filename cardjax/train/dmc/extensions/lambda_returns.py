"""Lambda-returns: a seat's target looks back through its own later decisions as
``lam G + (1 - lam) Q``, with the network's Q of the moves they took (``lam = 1``: Monte-Carlo,
the core's).  The decisions without a choice pass their return on whole.  ``lam_kinds`` names
the kinds of decision (the adapter's ``decision_kinds``) that take the lambda-return; the others
keep the Monte-Carlo return (Tractor: bootstrapped follows, whose card's worth is small beside a
hand's spread, and leads that keep their returns)."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from cardjax.cli import option, probability
from cardjax.nets.dmc import adapter as adapters
from cardjax.train.dmc.extension import Extension, Hooks


@dataclasses.dataclass(frozen=True)
class Options:
    lam: float = option(1.0, "lambda of the targets: 1 = Monte-Carlo returns; below 1 mixes in "
                        "the network's Q of the seat's later decisions", probability)
    lam_kinds: str = option("", "the kinds of decision that take the lambda-return, comma "
                            "separated (the game's: Tractor's pre_round, lead, follow); the "
                            "others keep Monte-Carlo returns (empty: every decision; with --lam below 1)")

    def __post_init__(self):
        if not 0.0 <= self.lam <= 1.0:
            raise ValueError(f"lam must be in [0, 1], got {self.lam}")

    @property
    def kinds(self) -> tuple:
        return tuple(k.strip() for k in self.lam_kinds.split(",") if k.strip())


def check(opts: Options, cfg) -> None:
    known = adapters.get(cfg.game).decision_kinds
    unknown = [k for k in opts.kinds if k not in known]
    if unknown:
        raise ValueError(f"lam_kinds: unknown kinds of decision {unknown} for {cfg.game}; "
                         + (f"known: {list(known)}" if known else
                            "its DMC adapter names none (leave lam_kinds empty)"))


def build(opts: Options, cfg, game, resources) -> Hooks:
    names = adapters.get(cfg.game).decision_kinds
    chosen = jnp.asarray([k in opts.kinds for k in names], bool)

    def record(run, s):
        # the network's Q of the move taken (with the step reward the actors knew exactly and
        # the network does not learn, where they add one); bonuses that steer the choice, like
        # the advice bonus, are no value and stay out
        q = s["q_net"] + s["known"] if "known" in s else s["q_net"]
        row = dict(q=jnp.take_along_axis(q, s["slot"][:, None], axis=1)[:, 0])
        if opts.kinds:
            row["lam_where"] = chosen[jax.vmap(game.kind)(s["states"])]
        return row

    def returns(run, bufs, final):
        where = dict(lam_where=bufs["lam_where"]) if opts.kinds else {}
        return dict(values=bufs["q"], bootstrap=bufs["scored"], lam=opts.lam, **where)

    buffers = {"q": ((), jnp.float32)}
    if opts.kinds:
        buffers["lam_where"] = ((), jnp.bool_)
    return Hooks(buffers=buffers, record=record, returns=returns)


EXTENSION = Extension("lambda_returns", Options, on=lambda o: o.lam < 1.0, build=build,
                      check=check)
