"""Starting a new run from a trained player's parameters (``--from PLAYER``) and the lineage
that accumulates from player to player.

``--from`` names a shipped player (``doudizhu-pretrained``), an artifact directory or a training
run directory (:func:`cardjax.artifact.load`).  The new run's network must be the player's: the
trainer's network-shaping fields (:func:`check_network`) and the parameter tree's leaves
(:func:`start_params`) are compared, and a mismatch is a one-line error naming the first
differing field or leaf with both values.  The optimizer state is the fresh run's (RMSProp's and
Adam's start at zeros whatever the parameters).

``--grow`` lets the new run's network be larger than the player's: wider by integer factors and
deeper, in the fields the network module lists (``GROWS``); the player's parameters are grown into
it computing the same function (:mod:`cardjax.nets.growth`), and the growth is recorded with the
parent and in the lineage (``grown``: the player's sizes and the run's).

The parent is recorded in the run directory (``parent.json``: the word, what it resolved to, its
``params_sha256`` and its lineage), not in the hashed config, so a resumed run knows it and
resumes as before.  Each exported player's lineage (:func:`lineage`) says: ``parent`` (a shipped
name or an absolute path), ``parent_params_sha256``, cumulative ``minutes`` (training wall time)
and ``frames`` (the parent's totals plus this run's, from ``metrics.jsonl``), ``run_minutes`` and
``run_frames`` (this run's alone), this run's ``command`` and ``device``, and ``ancestors``: the
parent's lineage without its own ancestors, then the parent's ancestors (newest first).

Each command that trains in a run directory is appended to ``commands.jsonl`` there
(:func:`record_command`), so a player exported after ``--resume`` names the command that started
its run (its seed and flags), not only the resume: the lineage's ``command`` is the first one and
``resumed_by`` the later ones.
"""

from __future__ import annotations

import json
import os
from typing import Any

from cardjax import artifact
from cardjax.files import write_atomic

PARENT = "parent.json"  # in the run directory
COMMANDS = "commands.jsonl"  # idem: each command that trained there, one JSON object a line


def add_flag(group) -> None:
    """``--from PLAYER`` (stored as ``args.from_``) in an argparse group."""
    group.add_argument(
        "--from", dest="from_", default=None, metavar="PLAYER",
        help="start a new run from this player's parameters (a shipped player name, an artifact "
        "directory or a run directory; fresh optimizer state); the network flags default to "
        "the player's, and differing ones are refused; not with --resume")
    group.add_argument(
        "--grow", action="store_true",
        help="with --from: the network flags may make the player's network wider (a multiple "
        "of its widths) and deeper; it is grown into the larger network computing the same "
        "function")


def refuse_resume(args) -> None:
    """``SystemExit`` (one line) for ``--from`` with ``--resume``."""
    if getattr(args, "from_", None) and args.resume:
        raise SystemExit("error: --from starts a new run; --resume continues the run in --out "
                         "(which keeps the player it started from): drop one of them")
    if getattr(args, "grow", False) and not getattr(args, "from_", None):
        raise SystemExit("error: --grow grows the player --from names: add --from PLAYER")


def resolve(word: str) -> tuple[str, str]:
    """``(label, directory)`` of the player ``word``: a directory (label: its absolute path) or
    a shipped player's name (label: the name).  ``ValueError`` otherwise."""
    if os.path.isdir(word):
        path = os.path.abspath(word)
        return path, path
    if artifact.shipped(word):
        return word, artifact.shipped(word)
    raise ValueError(f"--from {word!r}: neither a directory nor a shipped player "
                     f"({', '.join(artifact.shipped_names())})")


def load(word: str, kind: str | None = None,
         game: str | None = None) -> tuple[artifact.Artifact, str]:
    """``(artifact, label)`` of the player ``word``, which must be a ``kind`` network of
    ``game`` (:func:`check`; None: checked later); ``SystemExit`` with one line otherwise."""
    try:
        label, directory = resolve(word)
        art = read_player(directory)  # a run cut before it exported: its lineage completed
    except ValueError as e:
        raise SystemExit(f"error: {' '.join(str(e).split())}") from None
    check(art, word, kind, game)
    return art, label


def check(art: artifact.Artifact, word: str, kind: str | None, game: str | None) -> None:
    """``SystemExit`` (one line) unless ``art`` is a ``kind`` network of ``game`` (None: any)."""
    if kind is not None and art.kind != kind:
        raise SystemExit(f"error: --from {word}: a {art.kind} network, not a {kind} one")
    if game is not None and (art.game or game) != game:
        raise SystemExit(f"error: --from {word}: a player of {art.game}, not {game}")


def start(args, state, ckpt, is_main: bool, parent, label: str | None, net=None,
          network: dict | None = None):
    """A new run's ``state`` with the parameters of the player ``--from`` named (``parent``, from
    :func:`load`; ``state`` unchanged without one), the parent recorded in the run directory;
    ``SystemExit`` with one line (the checkpoints closed) when the parameter trees differ.
    With ``--grow``, the player's parameters are first grown into the run's ``network`` (its
    config) by the network module ``net`` (its ``grow`` and ``GROWS``), the sizes before and
    after recorded with the parent."""
    if is_main:
        record_command(args.out, bool(getattr(args, "resume", False)))
    if parent is None:
        return state
    import numpy as np

    params, grown = parent.params, None
    try:
        if getattr(args, "grow", False):
            old = parent.meta["network"]
            params = net.grow(params, state.params, old, network,
                              np.random.default_rng(args.seed))
            before, after = ({k: c.get(k) for k in net.GROWS} for c in (old, network))
            grown = {"from": before, "to": after} if before != after else None
        state = state.replace(params=start_params(state.params, params, args.from_))
    except ValueError as e:
        ckpt.close()
        raise SystemExit(f"error: {e}") from None
    if is_main:
        write_parent(args.out, args.from_, label, parent, grown)
    return state


def inherited(network: dict, fields, defaults: dict) -> dict:
    """The player's values of ``fields`` that the command knows (``defaults``' keys)."""
    return {k: network[k] for k in fields if k in network and k in defaults}


def check_network(word: str, player: dict, run: dict, fields, net=None,
                  grow: bool = False) -> None:
    """``SystemExit`` naming the first of ``fields`` where the player's network config and the
    run's differ (a field the player's config lacks is not compared).  With ``grow``, the fields
    the network module ``net`` can enlarge (``GROWS``) may differ as its ``check_grow`` allows."""
    grows = net.GROWS if grow else ()
    for k in fields:
        if k in grows:
            continue
        if k in player and k in run and player[k] != run[k]:
            raise SystemExit(f"error: --from {word}: its network has {k} {player[k]!r}, this "
                             f"run's {run[k]!r} (drop the network flags to take the player's)")
    if grows:
        try:
            net.check_grow({**run, **player}, run)
        except ValueError as e:
            raise SystemExit(f"error: --from {word} --grow: {e}") from None


def _flat(tree) -> dict:
    from flax import serialization, traverse_util

    d = serialization.to_state_dict(tree)
    return traverse_util.flatten_dict(d, sep="/") if isinstance(d, dict) else {"": d}


def start_params(init_params, player_params, word: str = "the player"):
    """``player_params`` in the structure, dtypes and placement of ``init_params`` (a fresh
    run's); ``ValueError`` (one line) naming the first leaf missing, extra or of another shape,
    with both shapes."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from flax import serialization, traverse_util

    mine, theirs = _flat(init_params), _flat(player_params)
    for path in sorted(set(mine) | set(theirs)):
        a, b = mine.get(path), theirs.get(path)
        if a is None or b is None or tuple(np.shape(a)) != tuple(np.shape(b)):
            def shape(x):
                return "missing" if x is None else f"shape {tuple(np.shape(x))}"
            raise ValueError(f"--from {word}: parameter {path} has {shape(b)} in the player, "
                             f"{shape(a)} in this run's network")

    def place(new, old):
        new = np.asarray(new).astype(old.dtype)
        sharding = getattr(old, "sharding", None)
        if isinstance(sharding, jax.sharding.NamedSharding):
            return jax.device_put(new, sharding)
        return jnp.asarray(new)  # uncommitted, as a fresh init leaves it

    cast = {p: place(theirs[p], mine[p]) for p in mine}
    tree = traverse_util.unflatten_dict(cast, sep="/") if set(cast) != {""} else cast[""]
    return serialization.from_state_dict(init_params, tree)


def write_parent(out: str, word: str, label: str, art: artifact.Artifact,
                 grown: dict | None = None) -> dict:
    """Record the run's parent in ``out/parent.json`` (and ``grown``, the network's sizes
    before and after ``--grow``); returns the record."""
    record = {"from": word, "parent": label, "params_sha256": art.meta.get("params_sha256"),
              "lineage": dict(art.meta.get("lineage") or {})}
    if grown:
        record["grown"] = grown
    os.makedirs(out, exist_ok=True)
    write_atomic(os.path.join(out, PARENT), (json.dumps(record, indent=1, default=str)
                                             + "\n").encode())
    return record


def record_command(out: str, resumed: bool) -> dict:
    """Append this process's command, device and date (and whether it resumed) to
    ``out/commands.jsonl`` (the file rewritten whole, atomically); returns the record."""
    found = artifact.lineage()
    record = {k: found[k] for k in ("command", "device", "date")}
    record["resumed"] = resumed
    path = os.path.join(out, COMMANDS)
    before = b""
    if os.path.isfile(path):
        with open(path, "rb") as f:
            before = f.read()
        if before and not before.endswith(b"\n"):
            before += b"\n"
    os.makedirs(out, exist_ok=True)
    write_atomic(path, before + (json.dumps(record, default=str) + "\n").encode())
    return record


def run_commands(out: str) -> list[dict]:
    """The records of ``out/commands.jsonl`` (:func:`record_command`; empty without one); a line
    that is not a JSON object is skipped."""
    path = os.path.join(out, COMMANDS)
    if not os.path.isfile(path):
        return []
    found = []
    with open(path) as f:
        for line in f:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and record.get("command"):
                found.append(record)
    return found


def _commands_fields(out: str) -> dict:
    """The lineage's ``command``, ``device`` and ``resumed_by`` from the run's commands: the
    command that started it (the first, where it was not itself a resume), the devices that
    trained it, the resumes; empty where the run records none."""
    records = run_commands(out)
    if not records or records[0].get("resumed"):
        return {}
    devices = list(dict.fromkeys(str(r.get("device")) for r in records if r.get("device")))
    fields = {"command": records[0]["command"], "resumed_by": [r["command"] for r in records[1:]]}
    if devices:
        fields["device"] = " + ".join(devices)
    return fields


def read_parent(out: str) -> dict | None:
    """The parent record of the run in ``out`` (None: it started from scratch)."""
    path = os.path.join(out, PARENT)
    if not os.path.isfile(path):
        return None
    with open(path) as f:
        return json.load(f)


def run_totals(out: str, iteration: int, frames: str | int | None) -> tuple[float, int]:
    """``(minutes, frames)`` of the run in ``out`` up to ``iteration`` (``metrics.jsonl``:
    training wall time and the ``frames`` metric, or ``frames`` per iteration when a number;
    ``None``, for a run read without its trainer: each record's ``frames``, else its speed
    (the runner's ``*_per_s``) times its seconds)."""
    from cardjax.train import metrics

    records = [r for r in metrics.read_jsonl(os.path.join(out, "metrics.jsonl"))
               if r.get("iteration", 0) <= iteration]
    minutes = records[-1].get("elapsed_s", 0.0) / 60.0 if records else 0.0
    if frames is None:
        total = int(round(sum(_units(r) for r in records)))
    elif isinstance(frames, str):
        total = int(round(sum(r.get(frames, 0.0) for r in records)))
    else:
        total = int(frames) * len(records)
    return minutes, total


def _units(record: dict) -> float:
    """One iteration's frames from its metrics record, whatever its trainer."""
    if "frames" in record:
        return record["frames"]
    rates = [v for k, v in record.items() if k.endswith("_per_s")]
    return rates[0] * record.get("seconds", 0.0) if len(rates) == 1 else 0.0


def lineage(out: str, iteration: int, frames: str | int, **more: Any) -> dict:
    """The lineage of the player the run in ``out`` exports at ``iteration`` (module doc);
    ``more``: further keys (e.g. ``prior``)."""
    minutes, count = run_totals(out, iteration, frames)
    parent = read_parent(out)
    record = artifact.lineage(iteration=int(iteration), **more)
    record.update(_commands_fields(out))
    before = dict((parent or {}).get("lineage") or {})
    ancestors = []
    if parent is not None:
        ancestors = [{k: v for k, v in before.items() if k != "ancestors"}] + list(
            before.get("ancestors") or [])
    record.update(
        parent=parent["parent"] if parent else record.get("parent"),
        parent_params_sha256=parent["params_sha256"] if parent else None,
        run_minutes=round(minutes, 3), run_frames=count,
        minutes=round(minutes + float(before.get("minutes") or 0.0), 3),
        frames=count + int(before.get("frames") or 0),
        ancestors=ancestors)
    if parent and parent.get("grown"):
        record["grown"] = parent["grown"]
    return record


def read_player(path: str) -> artifact.Artifact:
    """The player ``path`` holds, to export or ship: an artifact directory as it is, or a
    training run's (:func:`cardjax.artifact.from_run`).  A run read from its checkpoint (one cut
    before it wrote ``player/``) gets the lineage its trainer would have written: the parent it
    started ``--from`` (``parent.json``), the ancestors, and the minutes and frames added to the
    parent's (:func:`lineage`); the command and device are the run's (``commands.jsonl``), else
    left to the caller to give, as is the date."""
    if artifact.is_artifact(path):
        return artifact.read(path)
    source = artifact.from_run(path)
    found = dict(source.meta.get("lineage") or {})
    run, iteration = found.get("run"), found.get("iteration")
    if run is None or iteration is None or "minutes" in found:
        return source
    record = lineage(run, iteration, None, run=run)
    known = _commands_fields(run)
    record.update(command=known.get("command", found.get("command")),
                  device=known.get("device", found.get("device")), date=found.get("date"))
    return source._replace(meta=dict(source.meta, lineage=record))
