"""A stand-in for ``python`` in ``benchmarks/lease.sh`` (its ``PYTHON``): what the script does
around its commands is tested without training or playing.

``-c CODE`` runs CODE as python does.  ``-m cardjax train|ladder|arena FLAGS`` appends the call
to ``$LEASE_CALLS`` (one JSON line: the command and its flags) and writes what the command
writes: the training run's ``player/`` (a copy of the ``--from`` player; without ``--from`` a
``player.json`` of the ``--width`` and ``--depth`` network), ``eval.json`` and
``metrics.jsonl``; the ladder's lines and ``--save`` file (a refusal, as a handful of deals
gets); the arena's JSON line; ``export``'s player (a ``player.json``).  ``LEASE_FAIL=<recipe>``
makes that recipe's training fail before it exports a player, ``LEASE_CUT=<recipe>`` stop it
after a checkpoint, as its time limit would.

It imports neither JAX nor cardjax (a process that does takes 2-3 s, a lease makes a dozen
calls): the test parses every recorded call with the command's own parser afterwards
(:func:`parse_call`)."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import sys


def record(argv):
    with open(os.environ["LEASE_CALLS"], "a") as f:
        f.write(json.dumps(argv) + "\n")


def flag(flags, name, default=None):
    """The value of ``--name`` in ``flags`` (``--name V`` or ``--name=V``)."""
    for i, x in enumerate(flags):
        if x == name and i + 1 < len(flags):
            return flags[i + 1]
        if x.startswith(name + "="):
            return x.split("=", 1)[1]
    return default


def shipped(name):
    """A shipped player's directory, in ``$LEASE_SHIPPED`` (the test passes
    ``cardjax.agents.pretrained.DIRECTORY``: the package is not imported here)."""
    return os.path.join(os.environ["LEASE_SHIPPED"], name)


def parse_call(call):
    """Parse a recorded call (``["train", recipe, *flags]``, ``["ladder", *flags]``, ...) with
    that command's own parser: a flag it does not know exits 2, as the command would."""
    if call[0] == "train":
        return importlib.import_module(f"cardjax.commands.train.{call[1]}").parse_args(call[2:])
    return importlib.import_module(f"cardjax.commands.{call[0]}").parse_args(call[1:])


def train(recipe, flags):
    if os.environ.get("LEASE_FAIL") == recipe:
        print("error: training failed (stand-in)", file=sys.stderr)
        sys.exit(1)
    out = flag(flags, "--out")
    os.makedirs(out, exist_ok=True)
    if os.environ.get("LEASE_CUT") == recipe:  # cut by its time limit after a checkpoint
        os.makedirs(os.path.join(out, "checkpoints"))
        sys.exit(124)
    source = flag(flags, "--from")
    if source is None:  # a fresh network: a player.json with its shape
        os.makedirs(os.path.join(out, "player"))
        net = {"width": int(flag(flags, "--width")), "depth": int(flag(flags, "--depth"))}
        with open(os.path.join(out, "player", "player.json"), "w") as f:
            json.dump({"network": net}, f)
    else:
        shutil.copytree(source if os.path.isdir(source) else shipped(source),
                        os.path.join(out, "player"))
    with open(os.path.join(out, "eval.json"), "w") as f:
        json.dump({"iteration": 1, "mean": 0.0}, f)
    with open(os.path.join(out, "metrics.jsonl"), "w") as f:
        f.write(json.dumps({"iteration": 1, "frames": 64}) + "\n")


def ladder(flags):
    seed, deals = flag(flags, "--seed"), flag(flags, "--deals", "1024")
    print(f"seed {seed} is fresh")
    print(f"{flag(flags, '--game')}: {flag(flags, '--candidate')} vs {flag(flags, '--shipped')}: "
          f"+0.0000 +- 0.5000 per deal over {deals} deals (seed {seed})")
    with open(flag(flags, "--save"), "w") as f:
        json.dump({"ok": False, "reason": f"{deals} deals < the 1024 required"}, f)
    sys.exit(f"error: ladder refused: {deals} deals < the 1024 required")


def export(flags):
    player = os.path.join(flag(flags, "--directory"), flag(flags, "--name"))
    os.makedirs(player)
    with open(os.path.join(player, "player.json"), "w") as f:
        json.dump({"network": {}, "run": flag(flags, "--run")}, f)


def arena(flags):
    print(json.dumps({"mean": 0.75, "stderr": 0.25, "deals": int(flag(flags, "--deals", "256"))}))


def main(argv):
    if argv[:1] == ["-c"]:
        sys.argv = ["-c", *argv[2:]]
        exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
        return
    if argv[:2] != ["-m", "cardjax"]:
        sys.exit(f"lease_python: unexpected call {argv}")
    record(argv[2:])
    command, rest = argv[2], argv[3:]
    if command == "train":
        train(rest[0], rest[1:])
    elif command == "ladder":
        ladder(rest)
    elif command == "arena":
        arena(rest)
    elif command == "export":
        export(rest)
    else:
        sys.exit(f"lease_python: unexpected command {command}")


if __name__ == "__main__":
    main(sys.argv[1:])
