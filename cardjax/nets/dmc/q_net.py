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


GROWS = ("width", "depth", "head_width", "head_depth")  # what ``grow`` can enlarge


def check_grow(old, new) -> tuple[int, int]:
    """The width factors ``(trunk, head)`` of growing a network of sizes ``old`` into ``new``;
    ``ValueError`` (one line) for a size that cannot grow so (see :func:`grow`)."""
    from cardjax.nets import growth

    if new["lstm"] != old["lstm"]:
        raise ValueError(f"lstm {new['lstm']} differs from the player's {old['lstm']}")
    cw = growth.factor(old["width"], new["width"], "width")
    ch = growth.factor(old["head_width"], new["head_width"], "head_width")
    deeper = growth.more(old["depth"], new["depth"], "depth")
    growth.more(old["head_depth"], new["head_depth"], "head_depth")
    if old["depth"] < 1 and (cw > 1 or deeper):
        raise ValueError("a network without trunk layers (depth 0) cannot grow its trunk")
    return cw, ch


def grow(params, fresh, old, new, rng):
    """``params`` of a :class:`QNet` of sizes ``old`` (a config's ``lstm width depth head_width
    head_depth``) as a larger network of sizes ``new`` computing the same Q
    (:mod:`cardjax.nets.growth`): widths by integer factors, new trunk and head layers as the
    identity; the history LSTM is kept.  Leaves may have a leading axis (one network per
    role).  ``fresh`` (an initialized network of the new sizes) is not needed: every new layer
    starts as the identity.  ``ValueError`` (one line) for a size that cannot grow so."""
    from cardjax.nets import growth

    cw, ch = check_grow(old, new)
    p = {k: dict(v) for k, v in params["params"].items()}
    out = {k: v for k, v in p.items() if not k.startswith(("trunk_", "head_", "q"))}

    def dense(name, c_in, c_out):
        k, b = growth.widen_dense(p[name]["kernel"], p[name].get("bias"), c_in, c_out, rng)
        out[name] = {"kernel": k} if b is None else {"kernel": k, "bias": b}

    for i in range(old["depth"]):
        dense(f"trunk_{i}", 1 if i == 0 else cw, cw)
    for i in range(old["depth"], new["depth"]):  # after a ReLU: the identity passes it through
        out[f"trunk_{i}"] = growth.identity(out[f"trunk_{old['depth'] - 1}"]["bias"])
    dense("head_state", cw, ch)
    dense("head_action", 1, ch)
    for i in range(old["head_depth"] - 1):
        dense(f"head_hidden_{i}", ch, ch)
    for i in range(old["head_depth"] - 1, new["head_depth"] - 1):
        out[f"head_hidden_{i}"] = growth.identity(out["head_state"]["bias"])
    dense("q", ch, 1)
    return {"params": out}
