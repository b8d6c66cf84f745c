"""The bid value network: from a seat's hand, the landlord's win probability (a logistic output)
and its expected return were it to take the bottom; rebuilt from a run's config (a dict: a
checkpoint's or an artifact's ``network``), so that a bidder loads it without the trainer."""

from __future__ import annotations

from typing import Callable, Mapping

import flax.linen as nn
import jax

from cardjax.nets.bid_value import adapter as adapters


class Net(nn.Module):
    """features [..., F] -> (win logit [...], expected return [...])."""

    width: int = 128
    depth: int = 2

    @nn.compact
    def __call__(self, x):
        for _ in range(self.depth):
            x = nn.relu(nn.Dense(self.width)(x))
        out = nn.Dense(2)(x)
        return out[..., 0], out[..., 1]


def make_net(config: Mapping) -> Net:
    """The network of ``config`` (its ``width`` and ``depth``)."""
    return Net(config["width"], config["depth"])


def make_value(config: Mapping) -> Callable:
    """``value(params, hand) -> (p_win, expected return)`` of the network of ``config`` (its
    ``game``, sizes and ``return_scale``, the scale its return was learned at)."""
    adapter = adapters.get(config["game"])
    net = make_net(config)
    scale = config["return_scale"]

    def value(params, hand):
        logit, mean = net.apply(params, adapter.features(hand))
        return jax.nn.sigmoid(logit), mean / scale

    return value
