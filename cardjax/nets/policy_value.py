"""The ScrofaZero policy/value network (paper 8.3) and the masked policy (paper 8.8).

Architecture (paper 8.3: "fully connected layer with skip connection as our model basic block";
input 434, output 53 = 52 policy logits + 1 value)::

    obs [..., D]  --Dense(width)-->  x
    repeat depth times (pre-norm residual block):
        x = x + Dense(width)(act(Dense(width)(norm(x))))
    h = act(norm(x))
    out = Dense(num_actions + 1)(h)        # one output layer, as in the paper
    logits = out[..., :num_actions]
    value  = out[..., num_actions] * value_scale

Normalization (``norm``): ``"layer"`` (default) puts a LayerNorm at the start of each block and
one before the output layer (pre-norm residual, as in pre-activation ResNets / transformers: the
skip path is an identity, so the net stays trainable at any depth and needs no batch
statistics -- ``apply`` is a pure function of params and input, with no mutable state, which
suits ``jit``/``vmap``/``lax.scan``).  ``"none"`` drops every LayerNorm (the paper does not say
what it used).  BatchNorm is deliberately not offered: it would make ``apply`` stateful.

Value scaling: the value is in game points.  The network's last layer produces a number of
order 1 and it is multiplied by ``value_scale`` (default 100), i.e. the net internally works in
units of 100 points (Gongzhu scores are a few hundred at most).  ``value`` returned by
``__call__`` is already in points; targets passed to the loss are in points too.

Masking (paper 8.8) -- :func:`masked_policy` / :func:`masked_log_policy`, ``how=``:

* ``"paper"``: ``softmax(logits * legal_mask)``: the illegal logits are set to 0 *before* the
  softmax (implemented with ``where`` so that a non-finite illegal logit cannot give NaN).
  Illegal actions keep some probability mass (``exp(0)`` each, relative to the legal logits);
  the paper reports it trains better, since the illegal logits still reach the loss.  When the
  network is used to *play*, renormalize over legal actions (or use ``"exclude"``).
* ``"exclude"``: softmax over the legal actions only (illegal logits set to -inf): illegal
  actions get exactly probability 0 and log-probability -inf.  The usual AlphaZero choice.

An all-False mask (never produced by the envs: a terminal state's mask is all True) gives the
uniform distribution in ``"exclude"`` mode rather than NaN.
"""

from __future__ import annotations

from typing import Callable, Mapping

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

Array = jax.Array

MASK_MODES = ("paper", "exclude")
NORMS = ("layer", "none")


class ResidualBlock(nn.Module):
    """``x + Dense(act(Dense(norm(x))))`` with width kept."""

    width: int
    norm: str = "layer"
    activation: Callable = nn.relu
    dtype: jnp.dtype | None = None

    @nn.compact
    def __call__(self, x: Array) -> Array:
        h = nn.LayerNorm(dtype=self.dtype)(x) if self.norm == "layer" else x
        h = nn.Dense(self.width, dtype=self.dtype)(h)
        h = self.activation(h)
        h = nn.Dense(self.width, dtype=self.dtype)(h)
        return x + h


class PolicyValueNet(nn.Module):
    """Policy logits and a value in game points from a flat observation (see module docstring).

    ``apply(params, obs)`` with ``obs`` float ``[..., D]`` (``D = 434`` for Gongzhu's
    ``observe_oracle``) returns ``(logits [..., num_actions], value [...])``.  The default sizes
    (width 256, depth 4: about 0.65M parameters) are small enough for CPU; the paper's nets
    had 9-11M parameters.
    """

    num_actions: int = 52
    width: int = 256
    depth: int = 4
    norm: str = "layer"
    activation: Callable = nn.relu
    value_scale: float = 100.0
    dtype: jnp.dtype | None = None

    @nn.compact
    def __call__(self, obs: Array) -> tuple[Array, Array]:
        if self.norm not in NORMS:
            raise ValueError(f"norm must be one of {NORMS}, got {self.norm!r}")
        x = nn.Dense(self.width, dtype=self.dtype, name="input")(obs.astype(jnp.float32))
        for i in range(self.depth):
            x = ResidualBlock(self.width, self.norm, self.activation, self.dtype,
                              name=f"block_{i}")(x)
        if self.norm == "layer":
            x = nn.LayerNorm(dtype=self.dtype, name="final_norm")(x)
        x = self.activation(x)
        out = nn.Dense(self.num_actions + 1, dtype=self.dtype, name="output")(x)
        out = out.astype(jnp.float32)
        logits = out[..., : self.num_actions]
        value = out[..., self.num_actions] * self.value_scale
        return logits, value


def from_config(config: Mapping, num_actions: int = 52) -> PolicyValueNet:
    """The network a ScrofaZero run's config describes (a dict: a checkpoint's or an artifact's
    ``network``; its ``width`` and ``depth``), so that a player rebuilds it without the trainer."""
    return PolicyValueNet(num_actions=num_actions, width=config["width"], depth=config["depth"])


def policy_value_param_count(input_size: int, num_actions: int = 52, width: int = 256,
                             depth: int = 4, norm: str = "layer") -> int:
    """The number of parameters of ``PolicyValueNet`` with these sizes (closed form)."""
    ln = 2 * width if norm == "layer" else 0
    n = input_size * width + width  # input projection
    n += depth * (ln + 2 * (width * width + width))  # blocks
    n += ln  # final norm
    n += width * (num_actions + 1) + num_actions + 1  # output layer
    return n


def count_params(params) -> int:
    """Total number of scalars in a params pytree."""
    return int(sum(np.prod(x.shape) for x in jax.tree_util.tree_leaves(params)))


def _masked_logits(logits: Array, mask: Array, how: str) -> Array:
    mask = jnp.asarray(mask, bool)
    if how == "paper":
        return jnp.where(mask, logits, jnp.zeros_like(logits))
    if how == "exclude":
        # finfo.min rather than -inf: an all-False mask then gives uniform, not NaN.
        return jnp.where(mask, logits, jnp.finfo(logits.dtype).min)
    raise ValueError(f"how must be one of {MASK_MODES}, got {how!r}")


def masked_policy(logits: Array, mask: Array, how: str = "paper") -> Array:
    """Action probabilities ``[..., A]`` from logits and a legal mask (see module docstring).

    ``"paper"``: ``softmax(logits * mask)`` (illegal logits zeroed before the softmax; illegal
    actions keep some mass).  ``"exclude"``: softmax over legal actions; illegal get exactly 0.
    """
    return jax.nn.softmax(_masked_logits(logits, mask, how), axis=-1)


def masked_log_policy(logits: Array, mask: Array, how: str = "paper") -> Array:
    """``log(masked_policy(logits, mask, how))`` computed stably (``log_softmax``).

    In ``"exclude"`` mode the illegal entries are ``-inf`` (when at least one action is legal).
    """
    logp = jax.nn.log_softmax(_masked_logits(logits, mask, how), axis=-1)
    if how == "exclude":
        any_legal = jnp.any(jnp.asarray(mask, bool), axis=-1, keepdims=True)
        logp = jnp.where(jnp.asarray(mask, bool) | ~any_legal, logp, -jnp.inf)
    return logp


def oracle_value_fn(env, apply_fn: Callable, params) -> Callable:
    """An MCTS ``value_fn(state) -> float[2]`` from a policy/value net on ``observe_oracle``.

    The net sees the position from the seat to act, so its value is that seat's team's expected
    future reward; the other team gets the negative (two teams, zero-sum).
    """
    teams = jnp.asarray(env.teams, jnp.int32)

    def value_fn(state):
        obs = env.observe_oracle(state, state.current_player)
        _, v = apply_fn(params, obs)
        mover = teams[state.current_player]
        return jnp.where(jnp.arange(2) == mover, v, -v).astype(jnp.float32)

    return value_fn


GROWS = ("width", "depth")  # what ``grow`` can enlarge


def check_grow(old: Mapping, new: Mapping) -> int:
    """The width factor of growing a network of sizes ``old`` into ``new``; ``ValueError`` (one
    line) for a size that cannot grow so (see :func:`grow`)."""
    from cardjax.nets import growth

    growth.more(old["depth"], new["depth"], "depth")
    return growth.factor(old["width"], new["width"], "width")


def grow(params, fresh, old: Mapping, new: Mapping, rng):
    """``params`` of a :class:`PolicyValueNet` of ``old`` width and depth as one of ``new``
    sizes computing the same logits and value (:mod:`cardjax.nets.growth`): the width by an
    integer factor (the residual stream and every norm tiled), the new blocks from ``fresh``
    (an initialized network of the new sizes) with their last layer zero, so each adds nothing
    until it learns.  ``ValueError`` (one line) for a size that cannot grow so."""
    from cardjax.nets import growth

    c = check_grow(old, new)
    p, f = params["params"], fresh["params"]
    out = {}

    def dense(layer, c_in, c_out):
        k, b = growth.widen_dense(layer["kernel"], layer["bias"], c_in, c_out, rng)
        return {"kernel": k, "bias": b}

    def norm(layer):
        return {"scale": growth.tile_out(layer["scale"], c), "bias": growth.tile_out(layer["bias"], c)}

    out["input"] = dense(p["input"], 1, c)
    for i in range(new["depth"]):
        name = f"block_{i}"
        if i < old["depth"]:
            block = {"Dense_0": dense(p[name]["Dense_0"], c, c),
                     "Dense_1": dense(p[name]["Dense_1"], c, c)}
            if "LayerNorm_0" in p[name]:
                block["LayerNorm_0"] = norm(p[name]["LayerNorm_0"])
        else:
            block = {k: dict(v) for k, v in f[name].items()}
            block["Dense_1"] = {k: np.zeros_like(np.asarray(v))
                                for k, v in f[name]["Dense_1"].items()}
        out[name] = block
    if "final_norm" in p:
        out["final_norm"] = norm(p["final_norm"])
    out["output"] = dense(p["output"], c, 1)
    return {"params": out}
