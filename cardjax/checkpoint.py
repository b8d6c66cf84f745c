"""Checkpoints of training runs (orbax ``CheckpointManager``).

A checkpoint is one directory ``<out>/checkpoints/<iteration>`` with two items: ``state``, the
whole train state pytree (params, optimizer state, RNG key, replay buffer, iteration), and
``config``, the run's configuration as JSON.  Orbax writes each one to a temporary directory
and renames it when complete, so a run killed mid-save leaves the previous checkpoint intact.
"""

from __future__ import annotations

import os
from typing import Any

import jax
import orbax.checkpoint as ocp

from cardjax import registry


class Checkpoints:
    """Save and restore the train state of one run directory.

    ``keep``: how many recent checkpoints to keep (older ones are deleted).
    """

    def __init__(self, directory: str, keep: int = 2):
        self.directory = os.path.abspath(os.path.join(directory, "checkpoints"))
        options = ocp.CheckpointManagerOptions(max_to_keep=keep, create=True)
        self.manager = ocp.CheckpointManager(self.directory, options=options,
                                             item_names=("state", "config"))

    def latest(self) -> int | None:
        """The iteration of the newest complete checkpoint, or None."""
        return self.manager.latest_step()

    def steps(self) -> list[int]:
        """The iterations of the complete checkpoints, newest first."""
        return sorted(self.manager.all_steps(), reverse=True)

    def set_aside(self, iteration: int) -> str:
        """Rename the checkpoint of ``iteration`` to ``unreadable-<iteration>`` (kept for a
        person to look at; the manager no longer sees it) and return the new path."""
        old = os.path.join(self.directory, str(iteration))
        new = os.path.join(self.directory, f"unreadable-{iteration}")
        os.replace(old, new)
        self.manager.reload()
        return new

    def save(self, iteration: int, state: Any, config: dict) -> None:
        self.manager.save(int(iteration), args=ocp.args.Composite(
            state=ocp.args.StandardSave(state),
            config=ocp.args.JsonSave(registry.record_rules(config))))

    def config(self, iteration: int | None = None) -> dict:
        """The config saved with a checkpoint (default: the newest)."""
        step = self._step(iteration)
        config = self.manager.restore(step, args=ocp.args.Composite(
            config=ocp.args.JsonRestore()))["config"]
        return registry.checked_rules(config, f"the run in {self.directory}")

    def restore(self, like: Any, iteration: int | None = None) -> Any:
        """The saved state, with the structure, dtypes and shardings of ``like`` (a state or
        its ``jax.eval_shape``)."""
        step = self._step(iteration)
        abstract = jax.tree_util.tree_map(ocp.utils.to_shape_dtype_struct, like)
        return self.manager.restore(step, args=ocp.args.Composite(
            state=ocp.args.StandardRestore(abstract)))["state"]

    def restore_params(self, iteration: int | None = None) -> Any:
        """The ``params`` of the saved state (default: the newest), as saved: no template, so no
        trainer is needed to read them (:func:`cardjax.artifact.from_run`)."""
        step = self._step(iteration)
        state = self.manager.restore(step, args=ocp.args.Composite(
            state=ocp.args.StandardRestore()))["state"]
        if not isinstance(state, dict) or "params" not in state:
            raise ValueError(f"the checkpoint of iteration {step} in {self.directory} holds no "
                             "params")
        return state["params"]

    def wait(self) -> None:
        """Block until pending saves are on disk."""
        self.manager.wait_until_finished()

    def close(self) -> None:
        self.manager.close()

    def _step(self, iteration):
        step = self.latest() if iteration is None else iteration
        if step is None:
            raise ValueError(f"no checkpoint in {self.directory}")
        if step not in self.manager.all_steps():
            raise ValueError(f"no checkpoint of iteration {step} in {self.directory}; "
                             f"have {sorted(self.manager.all_steps())}")
        return step


def find_run(path: str) -> str:
    """The run directory of ``path``: either a run directory (holding ``checkpoints/``) or its
    ``checkpoints`` directory.  Raises ``ValueError`` when neither holds a checkpoint."""
    path = os.path.abspath(path)
    if os.path.basename(path) == "checkpoints":
        path = os.path.dirname(path)
    if not os.path.isdir(os.path.join(path, "checkpoints")):
        raise ValueError(f"{path} is not a training run directory (no checkpoints/ inside)")
    return path
