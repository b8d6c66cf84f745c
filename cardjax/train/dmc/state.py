"""What a DMC run carries between iterations: the decisions of self-play and the train state."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from flax import struct
from jax.sharding import Mesh

from cardjax.train import sharding
from cardjax.nets.dmc.acting import observe

Array = jax.Array


@struct.dataclass
class Decisions:
    """Training decisions; leading axes ``[slots, steps, num_envs]`` in the buffer."""

    obs: Array  # bool or uint8 [..., F] the acting seat's features
    action: Array  # int32[...] the action taken: its row of the game's action_features
    target: Array  # float32[...] the acting seat's target
    weight: Array  # float32[...] 1 = real decision of a finished game, 0 = padding
    role: Array | None = None  # int32[...] the network that acted (None: lockstep, by step)
    extra: dict = struct.field(default_factory=dict)  # the extensions' fields (Hooks.fields)


@struct.dataclass
class TrainState:
    params: Any  # leading axis num_roles on every leaf
    opt_state: Any  # idem
    key: Array
    buffer: Any  # Decisions [replay, steps, num_envs, ...] of previous iterations, or None
    iteration: Array


def feature_spec(game) -> tuple[int, Any]:
    """``(F, dtype)`` of the stored features of ``game`` (bool, or uint8 for scaled ones)."""
    env = game.env
    one = jax.eval_shape(
        lambda k: observe(game, jax.tree_util.tree_map(lambda x: x[None], env.init(k)))[0],
        jax.random.PRNGKey(0))
    return int(one.shape[0]), one.dtype


def empty_decisions(lead: tuple, game, fields: dict | None = None) -> Decisions:
    """Zero decisions of shape ``lead`` (padding: weight 0), with the extensions' ``fields``
    (``{name: (tail shape, dtype)}``)."""
    F, dtype = feature_spec(game)
    extra = {n: jnp.zeros(lead + tail, dt) for n, (tail, dt) in (fields or {}).items()}
    return Decisions(obs=jnp.zeros(lead + (F,), dtype), action=jnp.zeros(lead, jnp.int32),
                     target=jnp.zeros(lead, jnp.float32), weight=jnp.zeros(lead, jnp.float32),
                     role=None if game.lockstep else jnp.zeros(lead, jnp.int32), extra=extra)


def init_params(net, game, key):
    """The stacked params ``[num_roles, ...]`` of one network per role."""
    F, dtype = feature_spec(game)
    width = game.action_features.shape[1]

    def one(k):
        return net.init(k, jnp.zeros((1, F), dtype), jnp.zeros((1, 1, width), bool))

    # one role after another, not vmapped: under vmap the LSTM's orthogonal initializers become
    # batched QR factorizations, and two of those running at once on a 2-thread CPU pool wait on
    # each other for ever (jaxlib's LAPACK kernels hand their batch to the same pool)
    return jax.lax.map(one, jax.random.split(key, game.num_roles))


def init_state(cfg, game, net, tx, key, mesh: Mesh | None = None,
               fields: dict | None = None) -> TrainState:
    """A fresh train state (the replay buffer when ``cfg.replay``, with the extensions'
    ``fields``), placed on ``mesh``."""
    k_net, key = jax.random.split(key)
    params = init_params(net, game, k_net)
    buffer = (empty_decisions((cfg.replay, cfg.steps, cfg.num_envs), game, fields)
              if cfg.replay else None)
    state = TrainState(params=params, opt_state=jax.vmap(tx.init)(params), key=key,
                       buffer=buffer, iteration=jnp.int32(0))
    if mesh is not None:
        state = jax.device_put(state, state_shardings(mesh, state))
    return state


def state_shardings(mesh: Mesh, state: TrainState):
    """Buffer split on its game axis (2), everything else replicated."""
    return sharding.train_state_shardings(mesh, state, buffer_axis=2)
