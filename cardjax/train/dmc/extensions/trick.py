"""Per-trick discounting and the ShengJi+ report's per-trick target (Tractor).

``discount="trick"``: ``gamma`` applies once per trick instead of once per decision, and the
decisions before the tricks (the roles of the adapter's ``pre_round``: declaring, burying)
learn the final reward alone, undiscounted.  ``target="trick"``: a decision's target is the
rest of its own trick's rewards plus the final reward discounted once per later trick (the
report's (4.4); later tricks' points do not count).  Needs a game that marks trick ends
(``Game.tick``)."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from cardjax.cli import option
from cardjax.train.dmc.extension import Extension, Hooks


@dataclasses.dataclass(frozen=True)
class Options:
    discount: str = option("step", "where gamma applies: every decision (step) or every trick",
                           choices=("step", "trick"))
    target: str = option("return", "a decision's target: its seat's discounted return (every "
                         "later reward), or the ShengJi+ report's (trick): its own trick's "
                         "rewards + gamma^(tricks left) x the final reward (needs --discount "
                         "trick, --lam 1)", choices=("return", "trick"))

    def __post_init__(self):
        if self.discount not in ("step", "trick"):
            raise ValueError(f"discount must be 'step' or 'trick', got {self.discount!r}")
        if self.target not in ("return", "trick"):
            raise ValueError(f"target must be 'return' or 'trick', got {self.target!r}")


def check(opts: Options, cfg) -> None:
    if opts.target == "trick" and (opts.discount != "trick" or cfg.lam != 1.0):
        raise ValueError("target 'trick' discounts per trick (discount 'trick') and has no "
                         f"lambda (lam 1); got discount {opts.discount!r}, lam {cfg.lam}")


def build(opts: Options, cfg, game, resources) -> Hooks:
    ticking = opts.discount == "trick"
    per_trick = opts.target == "trick"

    def final_reward(final):
        return jax.vmap(game.final_reward)(final) * cfg.reward_scale  # [B, P]

    def record(run, s):
        return dict(tick=jax.vmap(game.tick)(s["states"], s["next"]))

    def returns(run, bufs, final):
        if not per_trick:
            return dict(ticks=bufs["tick"])
        # the report's targets: own trick + discounted outcome; the final reward came with each
        # game's last step
        alive = bufs["alive"]
        last = alive & ~jnp.concatenate([alive[1:], jnp.zeros_like(alive[:1])])
        outcome = jnp.where((last & final.terminated)[..., None], final_reward(final), 0.0)
        return dict(ticks=bufs["tick"], outcome=outcome)

    def targets(run, bufs, final, target, weight):
        # the report: the phases before the tricks learn the final reward, undiscounted
        seat_r = jnp.take_along_axis(jnp.broadcast_to(final_reward(final), bufs["rewards"].shape),
                                     bufs["seat"][..., None].astype(jnp.int32), axis=-1)[..., 0]
        pre = jnp.isin(bufs["role"], jnp.asarray(game.pre_round))
        return jnp.where(pre & (weight > 0), seat_r, target), weight

    return Hooks(buffers={"tick": ((), jnp.bool_)}, record=record, returns=returns,
                 targets=targets if ticking and game.pre_round else None)


EXTENSION = Extension("trick", Options, on=lambda o: o.discount == "trick" or o.target == "trick",
                      build=build, requires=("ticks",), check=check)
