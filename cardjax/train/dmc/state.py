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
    # counterfactual targets (Config.counterfactual), else None: [..., ALTERNATIVES] each
    alt_action: Array | None = None  # int32 rows of alternative actions
    alt_target: Array | None = None  # float32 their targets
    alt_weight: Array | None = None  # float32 1 = a real alternative, 0 = none
    # imitation (Config.imitation), else None: [..., IMITATION_SLOTS] each; slot 0 the advised
    # move, then other legal candidates
    im_action: Array | None = None  # int32 rows
    im_weight: Array | None = None  # float32 the decision's weight where the slot holds one


ALTERNATIVES = 16  # alternatives kept per decision for the counterfactual targets
IMITATION_SLOTS = 16  # the advised move and up to 15 other candidates, for the imitation loss


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


def empty_decisions(lead: tuple, game, counterfactual: bool = False,
                    imitation: bool = False) -> Decisions:
    """Zero decisions of shape ``lead`` (padding: weight 0), with room for the alternatives of
    the counterfactual targets if ``counterfactual``, and the candidates of the imitation loss
    if ``imitation``."""
    F, dtype = feature_spec(game)
    alt, im = lead + (ALTERNATIVES,), lead + (IMITATION_SLOTS,)
    extra = {} if not counterfactual else dict(
        alt_action=jnp.zeros(alt, jnp.int32), alt_target=jnp.zeros(alt, jnp.float32),
        alt_weight=jnp.zeros(alt, jnp.float32))
    if imitation:
        extra.update(im_action=jnp.zeros(im, jnp.int32), im_weight=jnp.zeros(im, jnp.float32))
    return Decisions(obs=jnp.zeros(lead + (F,), dtype), action=jnp.zeros(lead, jnp.int32),
                     target=jnp.zeros(lead, jnp.float32), weight=jnp.zeros(lead, jnp.float32),
                     role=None if game.lockstep else jnp.zeros(lead, jnp.int32), **extra)


def init_params(net, game, key):
    """The stacked params ``[num_roles, ...]`` of one network per role."""
    F, dtype = feature_spec(game)
    width = game.action_features.shape[1]

    def one(k):
        return net.init(k, jnp.zeros((1, F), dtype), jnp.zeros((1, 1, width), bool))

    return jax.vmap(one)(jax.random.split(key, game.num_roles))


def init_state(cfg, game, net, tx, key, mesh: Mesh | None = None) -> TrainState:
    """A fresh train state (the replay buffer when ``cfg.replay``), placed on ``mesh``."""
    k_net, key = jax.random.split(key)
    params = init_params(net, game, k_net)
    buffer = (empty_decisions((cfg.replay, cfg.steps, cfg.num_envs), game,
                              cfg.counterfactual > 0, cfg.imitation > 0) if cfg.replay else None)
    state = TrainState(params=params, opt_state=jax.vmap(tx.init)(params), key=key,
                       buffer=buffer, iteration=jnp.int32(0))
    if mesh is not None:
        state = jax.device_put(state, state_shardings(mesh, state))
    return state


def state_shardings(mesh: Mesh, state: TrainState):
    """Buffer split on its game axis (2), everything else replicated."""
    return sharding.train_state_shardings(mesh, state, buffer_axis=2)
