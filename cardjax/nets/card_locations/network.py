"""The card-location network: a seat's features in, for every kind of card the seat cannot see a
softmax over the places it may be in (:func:`log_probs`).  Rebuilt from a run's config (a dict: a
checkpoint's or an artifact's ``network``) and the env it plays, so that a player loads it
without the trainer."""

from __future__ import annotations

from typing import Callable, Mapping

import flax.linen as nn
import jax
import jax.numpy as jnp

from cardjax.nets.card_locations import adapter as adapters


class Net(nn.Module):
    """features [..., F] -> logits [..., K, P]."""

    kinds: int
    places: int
    width: int = 512
    depth: int = 3
    dropout: float = 0.2

    @nn.compact
    def __call__(self, x, train: bool = False):
        for _ in range(self.depth):
            x = nn.elu(nn.Dense(self.width)(x))
            x = nn.Dropout(self.dropout, deterministic=not train)(x)
        x = nn.Dense(self.kinds * self.places)(x)
        return x.reshape(x.shape[:-1] + (self.kinds, self.places))


def make_net(config: Mapping, env) -> Net:
    """The network of ``config`` (``width depth dropout``) for ``env``'s hidden cards (its kinds
    and places)."""
    like = jax.eval_shape(lambda k: env.hidden_cards(env.init(k), 0), jax.random.PRNGKey(0))
    kinds, places = like.allowed.shape
    return Net(kinds, places, config["width"], config["depth"], config["dropout"])


def log_probs(logits, allowed, capacity):
    """log q[k, p]: a softmax over the places that may hold the kind (not ruled out, not full)."""
    ok = allowed & (capacity[..., None, :] > 0)
    masked = jnp.where(ok, logits, -1e9)
    return jax.nn.log_softmax(masked, axis=-1)


def log_q_fn(env, adapter: adapters.Adapter, net: Net) -> Callable:
    """``log_q(params, state, seat) -> float[K, P]``: the network's log probability of each kind
    of card the seat cannot see in each place (equation 1's factors)."""

    def log_q(params, state, seat):
        h = env.hidden_cards(state, seat)
        x = adapter.features(env, state, seat)
        return log_probs(net.apply(params, x), h.allowed, h.capacity)

    return log_q


def from_config(config: Mapping, env) -> Callable:
    """:func:`log_q_fn` of the network of ``config`` (its ``game`` and sizes) for ``env``."""
    return log_q_fn(env, adapters.get(config["game"]), make_net(config, env))
