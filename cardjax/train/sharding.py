"""Data parallelism for the trainers: one mesh axis, ``data``, over every device.

The games of a training step (and the replay buffer's game axis) are split over the devices;
params and optimizer state are replicated; XLA inserts the gradient all-reduce (GSPMD).
"""

from __future__ import annotations

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


def data_mesh(devices=None) -> Mesh:
    """A 1-D mesh named ``data`` over ``devices`` (default: every device of every process)."""
    devices = np.asarray(jax.devices() if devices is None else devices)
    return Mesh(devices.reshape(-1), ("data",))


def mesh_key(mesh: Mesh | None):
    """A hashable name of ``mesh``'s devices (None without a mesh): the key under which a trainer
    built for that mesh is kept."""
    return None if mesh is None else tuple(d.id for d in mesh.devices.flat)


def split(mesh: Mesh, axis: int, ndim: int) -> NamedSharding:
    """The sharding that splits axis ``axis`` of an ``ndim``-array over ``data``."""
    spec = [None] * ndim
    spec[axis] = "data"
    return NamedSharding(mesh, P(*spec))


def constrain(tree, mesh: Mesh | None, axis: int):
    """Split every leaf of ``tree`` over ``data`` along ``axis`` (no-op without a mesh)."""
    if mesh is None:
        return tree
    return jax.tree_util.tree_map(
        lambda x: jax.lax.with_sharding_constraint(x, split(mesh, axis, x.ndim)), tree)


def train_state_shardings(mesh: Mesh, state, buffer_axis: int = 2):
    """Shardings of a train state with a ``buffer`` field (or None): the buffer split along its
    game axis ``buffer_axis``, everything else replicated."""
    out = jax.tree_util.tree_map(lambda _: NamedSharding(mesh, P()), state)
    if state.buffer is None:
        return out
    return out.replace(buffer=jax.tree_util.tree_map(
        lambda x: split(mesh, buffer_axis, x.ndim), state.buffer))
