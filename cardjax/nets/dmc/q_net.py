"""The DMC Q network: what a trained DMC player scores its candidate moves with."""

from __future__ import annotations

import flax.linen as nn
import jax.numpy as jnp


class QNet(nn.Module):
    """``Q(obs [..., F], actions [..., K, G]) -> [..., K]``: state trunk once, head per candidate.

    ``embed(obs) -> [..., width]`` and ``head(emb, actions) -> [..., K]`` are the two halves
    (``apply(params, obs, method="embed")``), so a caller can score extra candidates of some
    states without running the trunk again.
    """

    history_steps: int = 5
    history_size: int = 180
    lstm: int = 128
    width: int = 256
    depth: int = 2
    head_width: int = 256
    head_depth: int = 2
    obs_scale: float = 1.0  # the network reads obs / obs_scale (uint8 features)

    def setup(self):
        if self.history_steps:
            self.history = nn.RNN(nn.OptimizedLSTMCell(self.lstm))
        self.trunk = [nn.Dense(self.width) for _ in range(self.depth)]
        self.head_state = nn.Dense(self.head_width)
        self.head_action = nn.Dense(self.head_width, use_bias=False)
        self.head_hidden = [nn.Dense(self.head_width) for _ in range(self.head_depth - 1)]
        self.q = nn.Dense(1)

    def embed(self, obs):
        x = obs.astype(jnp.float32)
        if self.obs_scale != 1.0:
            x = x / self.obs_scale
        if self.history_steps:
            cut = x.shape[-1] - self.history_steps * self.history_size
            hist = x[..., cut:].reshape(x.shape[:-1] + (self.history_steps, self.history_size))
            h = self.history(hist)[..., -1, :]
            x = jnp.concatenate([x[..., :cut], h], axis=-1)
        for layer in self.trunk:
            x = nn.relu(layer(x))
        return x

    def head_in(self, emb):
        """The state's half of the head's first layer, ``[..., head_width]`` (once per state)."""
        return self.head_state(emb)

    def head_out(self, hs, actions):
        """Q of the candidates ``actions [..., K, G]`` of states whose :meth:`head_in` is
        ``hs [..., head_width]`` -> ``[..., K]``."""
        h = nn.relu(hs[..., None, :] + self.head_action(actions.astype(jnp.float32)))
        for layer in self.head_hidden:
            h = nn.relu(layer(h))
        return self.q(h)[..., 0]

    def head(self, emb, actions):
        return self.head_out(self.head_in(emb), actions)

    def __call__(self, obs, actions):
        return self.head(self.embed(obs), actions)


def make_net(cfg, game) -> QNet:
    """The network of a config (sizes) and a game (history, feature scale)."""
    steps, size = game.history
    return QNet(history_steps=steps, history_size=size, lstm=cfg.lstm, width=cfg.width,
                depth=cfg.depth, head_width=cfg.head_width, head_depth=cfg.head_depth,
                obs_scale=game.feature_scale)
