"""A trained network as one directory that any loader reads: ``player.json`` + ``params.msgpack``.

    artifact.write("players/mine", artifact.describe("dmc", "tractor", network=cfg.to_dict(),
                   lineage=artifact.lineage(parent="tractor-pretrained")), params)
    art = artifact.read("players/mine")   # art.meta, art.params (NumPy arrays)

``player.json`` holds ``format`` (:data:`FORMAT`) and ``format_version``, ``kind`` (the trainer
that made it: ``dmc``, ``scrofazero``, ``deeprocket``, ``bid_value``, ``inference``,
``state_value``; or ``search``: a search player whose ``play`` settings name the networks it
uses, with no parameters of its own), ``game`` and ``rules`` (``game@version``), ``env`` (the env options it was
trained in), ``network`` (the config that rebuilds the network and what it reads), ``play``
(play defaults), ``lineage`` (command, device, date, parent player, iteration), ``parameters``
(the count), ``params_sha256`` and, where the parameters were stored at half precision to keep
the package small, ``precision: "float16"`` (read back as float32).  The parameters file is written first and the description
last, each to a temporary file renamed into place, and the description names the parameters'
hash: a directory caught half-way through a write, or holding parameters of another export,
never reads as valid.

Training runs written before artifacts existed read through :func:`from_run` (their newest
checkpoint, or ``best.msgpack`` of a corpus trainer), without the trainer's code.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import shlex
import sys
from typing import Any, NamedTuple

from cardjax.files import write_atomic

FORMAT = "cardjax-player"
FORMAT_VERSION = 1
META = "player.json"
PARAMS = "params.msgpack"
KINDS = ("dmc", "scrofazero", "deeprocket", "bid_value", "inference", "state_value", "search")


class Artifact(NamedTuple):
    """A read artifact: its description and its parameters (a pytree of NumPy arrays)."""

    meta: dict
    params: Any
    directory: str = ""

    @property
    def kind(self) -> str:
        return self.meta["kind"]

    @property
    def game(self) -> str:
        return self.meta["game"]


def lineage(command: str | None = None, device: str | None = None, parent: str | None = None,
            iteration: int | None = None, **more) -> dict:
    """Where an artifact comes from: the command (default: this process's), the device (default:
    JAX's first device and the count; on the CPU, the cores this process may use), today's
    date, the parent player, the iteration."""
    if command is None:
        head = sys.argv[0]  # a script, or ``cardjax train shengji`` (cardjax.commands.main)
        words = head.split() if head.startswith("cardjax ") else [os.path.basename(head)
                                                                   or "python"]
        command = shlex.join(words + sys.argv[1:])
    if device is None:
        import jax

        devices = jax.local_devices()
        device = f"{len(devices)} x {devices[0].device_kind}"
        if devices[0].platform == "cpu":  # JAX's "cpu" devices are views of the host's cores
            cores = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                     else os.cpu_count())  # macOS has no affinity
            device = f"{cores}-core CPU"
    return {"command": command, "device": device, "date": datetime.date.today().isoformat(),
            "parent": parent, "iteration": iteration, **more}


def describe(kind: str, game: str | None, *, network: dict, play: dict | None = None,
             env: dict | None = None, lineage: dict | None = None, name: str | None = None,
             **extra) -> dict:
    """The description of an artifact of ``kind`` for ``game`` (its rules' version recorded)."""
    from cardjax import registry

    if kind not in KINDS:
        raise ValueError(f"unknown artifact kind {kind!r}; kinds: {', '.join(KINDS)}")
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "kind": kind, "name": name,
            "game": game, "rules": registry.rules(game) if game else None, "env": dict(env or {}),
            "network": dict(network), "play": dict(play or {}), "lineage": dict(lineage or {}),
            **extra}


def write(directory: str, meta: dict, params, half: bool = False) -> dict:
    """Write ``params`` and ``meta`` (:func:`describe`) to ``directory`` (made if missing);
    returns the description as written.  ``half``: store float32 parameters as float16 (half
    the file; :func:`read` gives float32 back)."""
    import jax
    import numpy as np
    from flax import serialization

    if meta.get("format") != FORMAT or meta.get("kind") not in KINDS:
        raise ValueError("write takes a description made by cardjax.artifact.describe")
    host = jax.tree_util.tree_map(np.asarray, jax.device_get(params))
    meta = {k: v for k, v in meta.items() if k != "precision"}
    if half:
        host = jax.tree_util.tree_map(
            lambda x: x.astype(np.float16) if x.dtype == np.float32 else x, host)
        meta["precision"] = "float16"
    data = serialization.msgpack_serialize(
        serialization.to_state_dict(host))
    meta = dict(meta, parameters=int(sum(np.size(x) for x in jax.tree_util.tree_leaves(host))),
                params_sha256=hashlib.sha256(data).hexdigest())
    os.makedirs(directory, exist_ok=True)
    write_atomic(os.path.join(directory, PARAMS), data)
    write_atomic(os.path.join(directory, META),
           (json.dumps(meta, indent=1, default=str) + "\n").encode())
    return meta


# the players shipped in the package (cardjax/agents/pretrained/NAME/, one artifact each): a
# path, so that a trainer can start from one (--from NAME) without importing the players
SHIPPED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "agents", "pretrained")


def shipped(name: str) -> str | None:
    """The directory of the shipped player ``name``, or None when there is none."""
    path = os.path.join(SHIPPED, name)
    return path if name and os.sep not in name and is_artifact(path) else None


def shipped_names() -> list:
    """The names of the shipped players."""
    return sorted(n for n in os.listdir(SHIPPED) if shipped(n))


def is_artifact(directory: str) -> bool:
    """True when ``directory`` holds a ``player.json`` (readable or not)."""
    return os.path.isfile(os.path.join(directory, META))


def read_meta(directory: str) -> dict:
    """The description in ``directory`` (``ValueError`` saying what is wrong)."""
    path = os.path.join(directory, META)
    if not os.path.isfile(path):
        raise ValueError(f"{directory}: no {META} (not a player artifact)")
    try:
        with open(path) as f:
            meta = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: unreadable ({e})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{path}: not a cardjax player description (no \"format\": "
                         f"\"{FORMAT}\")")
    if meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{path}: format version {meta.get('format_version')!r}; this cardjax "
                         f"reads version {FORMAT_VERSION}")
    missing = [k for k in ("kind", "game", "rules", "network", "params_sha256") if k not in meta]
    if missing:
        raise ValueError(f"{path}: missing {', '.join(missing)}")
    from cardjax import registry

    if meta["rules"] is not None:
        registry.check_version(meta["rules"], f"the player in {directory}")
    return meta


def read(directory: str) -> Artifact:
    """The artifact in ``directory``; ``ValueError`` naming what is missing, malformed or
    written half-way (parameters whose hash is not the description's)."""
    import jax
    import numpy as np
    from flax import serialization

    meta = read_meta(directory)
    path = os.path.join(directory, PARAMS)
    if not os.path.isfile(path):
        raise ValueError(f"{directory}: no {PARAMS} beside {META}")
    with open(path, "rb") as f:
        data = f.read()
    if hashlib.sha256(data).hexdigest() != meta["params_sha256"]:
        raise ValueError(f"{path} is not the file {META} describes (a write stopped half-way, "
                         "or files of two exports): export the player again")
    try:
        params = serialization.msgpack_restore(data)
    except Exception as e:  # noqa: BLE001 -- msgpack raises several kinds
        raise ValueError(f"{path}: unreadable ({e})") from None
    # parameters stored at half precision play in float32, as they were trained
    params = jax.tree_util.tree_map(
        lambda x: np.asarray(x, np.float32) if np.asarray(x).dtype == np.float16
        else np.asarray(x), params)
    return Artifact(meta, params, directory)


def run_kind(config: dict) -> str:
    """The trainer of a run from its saved config (ScrofaZero's names none)."""
    kind = config.get("algorithm", "scrofazero")
    if kind not in KINDS:
        raise ValueError(f"a run of an unknown trainer {kind!r}")
    return kind


def from_run(path: str, iteration: int | None = None) -> Artifact:
    """The artifact of a training run directory at ``iteration`` (default: its newest
    checkpoint): the run's ``player/`` artifact where it was written at that iteration (trainers
    write it at each evaluation) or, with no ``iteration``, where it is a corpus trainer's best
    network (beside its ``best.msgpack``, whatever checkpoint is newer); else the checkpoint's
    parameters (or, with no ``iteration``, ``best.msgpack``), read without the trainer's code."""
    import jax
    import numpy as np
    from flax import serialization

    from cardjax.checkpoint import Checkpoints, find_run

    run = find_run(path)
    exported = os.path.join(run, "player")
    if iteration is None and os.path.isfile(os.path.join(run, "best.msgpack")) and is_artifact(
            exported):  # a corpus trainer's best network, written with its own iteration
        return read(exported)
    ckpt = Checkpoints(run)
    try:
        step = ckpt.latest() if iteration is None else iteration
        if is_artifact(exported):
            art = read(exported)
            if art.meta.get("lineage", {}).get("iteration") == step or (
                    iteration is None and step is None):
                return art
        config = ckpt.config(iteration)
        best = os.path.join(run, "best.msgpack")
        if iteration is None and os.path.isfile(best):
            with open(best, "rb") as f:
                try:
                    params = serialization.msgpack_restore(f.read())
                except Exception as e:  # noqa: BLE001 -- msgpack raises several kinds
                    raise ValueError(f"{best}: unreadable ({e})") from None
        else:
            params = ckpt.restore_params(iteration)
    finally:
        ckpt.close()
    # ScrofaZero's runs name no game (the trainer plays one): its loader knows it
    meta = describe(run_kind(config), config.get("game"), network=config,
                    lineage={"command": None, "device": None, "date": None, "parent": None,
                             "iteration": step, "run": run})
    return Artifact(meta, jax.tree_util.tree_map(np.asarray, params), run)


def load(path: str, kind: str | None = None, iteration: int | None = None) -> Artifact:
    """The artifact ``path`` names: an artifact directory (:func:`read`), a training run
    (:func:`from_run`, at ``iteration``) or a shipped player's name; ``kind``: the kind it must
    be (``ValueError`` naming what it holds otherwise)."""
    if not os.path.isdir(path):
        path = shipped(path) or path
    if not os.path.isdir(path):
        raise ValueError(f"{path!r} is not a run directory, a player artifact or a shipped "
                         "player")
    if is_artifact(path) and iteration is None:
        art = read(path)
    else:
        art = from_run(path, iteration)
    if kind is not None and art.kind != kind:
        raise ValueError(f"{path} holds a network of the {art.kind} trainer, not a {kind} one")
    return art
