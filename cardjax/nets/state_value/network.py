"""The state value network: from a whole position (``env.observe_oracle`` of the seat to act:
its view and every hidden card), the return the seat to act still gets when the players of the
corpus it was trained on play the game out.  Rebuilt from a run's config (a dict: a checkpoint's
or an artifact's ``network``), so that a search loads it without the trainer."""

from __future__ import annotations

from typing import Callable, Mapping

import flax.linen as nn
import jax.numpy as jnp


class Net(nn.Module):
    """features [..., F] -> the scaled return of the seat to act [...]."""

    width: int = 512
    depth: int = 3

    @nn.compact
    def __call__(self, x):
        for _ in range(self.depth):
            x = nn.relu(nn.Dense(self.width)(x))
        return nn.Dense(1)(x)[..., 0]


def make_net(config: Mapping) -> Net:
    """The network of ``config`` (its ``width`` and ``depth``)."""
    return Net(config["width"], config["depth"])


def features(env, state):
    """float32[F]: what the network reads of ``state``: the seat to act's oracle view."""
    return env.observe_oracle(state, state.current_player).astype(jnp.float32)


def make_value(config: Mapping, env) -> Callable:
    """``value(params, state) -> float``: the return still to come for ``state``'s seat to act,
    by the network of ``config`` (its sizes and ``return_scale``, the scale it learned at)."""
    net = make_net(config)
    scale = config["return_scale"]

    def value(params, state):
        return net.apply(params, features(env, state)) / scale

    return value
