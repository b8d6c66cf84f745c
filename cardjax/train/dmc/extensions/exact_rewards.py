"""Exact rewards: where a game knows a candidate's step reward before acting, from what the seat
sees (Tractor: the points of a card that ends a trick), the actors add it to the network's Q,
and the network learns only the rest of the return (target less that reward).  A trained player
adds it back the same way (:attr:`cardjax.nets.dmc.config.Config.exact_scale`)."""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp

from cardjax.cli import boolean, option
from cardjax.nets.dmc.acting import known_rewards
from cardjax.train.dmc.extension import Extension, Hooks


@dataclasses.dataclass(frozen=True)
class Options:
    exact_rewards: bool = option(False, "where the step reward of a candidate is known exactly, "
                                 "add it to the network's Q when choosing and train the network "
                                 "on the rest of the return (true / false)", boolean)


def build(opts: Options, cfg, game, resources) -> Hooks:
    if game.counterfactual is None:
        raise ValueError(f"exact rewards need exact step rewards of alternatives, which this "
                         f"{cfg.game} game does not give")

    def choose(run, s, q):  # the candidates' known step rewards, on the targets' scale
        s["known"] = known_rewards(game, s["states"], s["idx"], s["valid"], cfg.reward_scale)
        return q + s["known"]

    def record(run, s):  # the taken move's known step reward, which the network does not learn
        return dict(known=jnp.take_along_axis(s["known"], s["slot"][:, None], axis=1)[:, 0])

    def targets(run, bufs, final, target, weight):
        return jnp.where(weight > 0, target - bufs["known"], 0.0), weight

    return Hooks(buffers={"known": ((), jnp.float32)}, choose=choose, record=record,
                 targets=targets)


EXTENSION = Extension("exact_rewards", Options, on=lambda o: o.exact_rewards, build=build,
                      requires=("counterfactuals",))
