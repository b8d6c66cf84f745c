"""A player whose parameters are the mean of several players' of one network: weight averaging
(stochastic weight averaging's idea) over snapshots of a run, or a player and the runs that
continued it with the same flags.  A trainer whose last iterate wanders around a plateau (DMC's
Monte Carlo targets are noisy) may play better at the mean of the points it visits.

``cardjax export --run NEWEST --average OLDER ...`` writes it (:func:`average`).  The players
must be one network: the same kind, game and network config (the whole training config), and
parameters of the same shapes; otherwise a ``ValueError`` names the first difference.  The
result keeps the first player's description and lineage (its totals: the others are taken to be
its ancestors or earlier snapshots of its run, whose compute it already counts) and records the
others in ``lineage["averaged_with"]``.
"""

from __future__ import annotations

import os

import numpy as np

from cardjax import artifact


def read(word: str) -> artifact.Artifact:
    """The player ``word`` names: a run or artifact directory
    (:func:`cardjax.train.continuation.read_player`) or a shipped player's name."""
    from cardjax.train import continuation

    if os.path.isdir(word):
        return continuation.read_player(word)
    if artifact.shipped(word):
        return artifact.read(artifact.shipped(word))
    raise ValueError(f"--average {word!r}: neither a directory nor a shipped player")


def _flat(params) -> dict:
    from flax import serialization, traverse_util

    d = serialization.to_state_dict(params)
    return traverse_util.flatten_dict(d, sep="/") if isinstance(d, dict) else {"": d}


def check_same_network(base: artifact.Artifact, other: artifact.Artifact, word: str) -> None:
    """``ValueError`` (one line) naming the first way ``other`` (the player ``word``) is not the
    network ``base`` is."""
    for key in ("kind", "game"):
        if base.meta.get(key) != other.meta.get(key):
            raise ValueError(f"--average {word}: a {other.meta.get(key)} player, the first is "
                             f"{base.meta.get(key)}")
    a, b = dict(base.meta.get("network") or {}), dict(other.meta.get("network") or {})
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            raise ValueError(f"--average {word}: its network config has {key} {b.get(key)!r}, "
                             f"the first player's {a.get(key)!r} (average players of one "
                             "training config)")
    mine, theirs = _flat(base.params), _flat(other.params)
    for path in sorted(set(mine) | set(theirs)):
        x, y = mine.get(path), theirs.get(path)
        if x is None or y is None or np.shape(x) != np.shape(y):
            def shape(v):
                return "missing" if v is None else f"shape {tuple(np.shape(v))}"
            raise ValueError(f"--average {word}: parameter {path} has {shape(y)}, the first "
                             f"player's {shape(x)}")


def average(base: artifact.Artifact, others: list[tuple[str, artifact.Artifact]]
            ) -> artifact.Artifact:
    """``base`` with its parameters replaced by the mean (float32) of its own and ``others``'
    (``(word, artifact)`` pairs), its lineage naming them (module doc)."""
    import jax

    for word, other in others:
        check_same_network(base, other, word)
    trees = [base.params] + [other.params for _, other in others]
    mean = jax.tree_util.tree_map(
        lambda *xs: np.mean(np.stack([np.asarray(x, np.float32) for x in xs]), axis=0), *trees)
    lineage = dict(base.meta.get("lineage") or {})
    lineage["averaged_with"] = [
        {"player": word, "params_sha256": other.meta.get("params_sha256"),
         "iteration": (other.meta.get("lineage") or {}).get("iteration"),
         "minutes": (other.meta.get("lineage") or {}).get("minutes")}
        for word, other in others]
    return base._replace(meta=dict(base.meta, lineage=lineage), params=mean)
