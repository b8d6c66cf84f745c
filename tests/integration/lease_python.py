"""A stand-in for ``python`` in ``benchmarks/lease.sh`` (its ``PYTHON``): what the script does
around its commands is tested without training or playing.

``-c CODE`` runs CODE as python does.  ``-m cardjax train|ladder|arena FLAGS`` parses FLAGS with
that command's own parser (a bad flag exits 2, as the command would), appends the call to
``$LEASE_CALLS`` (one JSON line: the command and its flags) and writes what the command writes:
the training run's ``player/`` (a copy of the ``--from`` player), ``eval.json`` and
``metrics.jsonl``; the ladder's lines and ``--save`` file (a refusal, as a handful of deals
gets); the arena's JSON line.  ``LEASE_FAIL=<recipe>`` makes that recipe's training fail before
it exports a player."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import sys


def record(argv):
    with open(os.environ["LEASE_CALLS"], "a") as f:
        f.write(json.dumps(argv) + "\n")


def train(recipe, flags):
    args = importlib.import_module(f"cardjax.commands.train.{recipe}").parse_args(flags)
    if os.environ.get("LEASE_FAIL") == recipe:
        print("error: training failed (stand-in)", file=sys.stderr)
        sys.exit(1)
    from cardjax.agents import pretrained

    os.makedirs(args.out, exist_ok=True)
    shutil.copytree(pretrained.path(args.from_), os.path.join(args.out, "player"))
    with open(os.path.join(args.out, "eval.json"), "w") as f:
        json.dump({"iteration": 1, "mean": 0.0}, f)
    with open(os.path.join(args.out, "metrics.jsonl"), "w") as f:
        f.write(json.dumps({"iteration": 1, "frames": 64}) + "\n")


def ladder(flags):
    from cardjax.commands import ladder as command

    args = command.parse_args(flags)
    print(f"seed {args.seed} is fresh")
    print(f"{args.game}: {args.candidate} vs {args.shipped}: +0.0000 +- 0.5000 per deal over "
          f"{args.deals} deals (seed {args.seed})")
    with open(args.save, "w") as f:
        json.dump({"ok": False, "reason": f"{args.deals} deals < the 1024 required"}, f)
    sys.exit(f"error: ladder refused: {args.deals} deals < the 1024 required")


def arena(flags):
    from cardjax.commands import arena as command

    args = command.parse_args(flags)
    print(json.dumps({"mean": 0.75, "stderr": 0.25, "deals": args.deals}))


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
    else:
        sys.exit(f"lease_python: unexpected command {command}")


if __name__ == "__main__":
    main(sys.argv[1:])
