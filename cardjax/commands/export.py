"""Ship a trained player in the package: write a run's (or an artifact's) networks as a
pretrained player.

    cardjax export --run runs/douzero --name doudizhu-pretrained \
        --command "cardjax train douzero --num_envs 64 --iterations 2400 --out runs/douzero" \
        --device "2-core CPU" --bids strength=-4

writes the artifact ``cardjax/agents/pretrained/NAME/`` (``player.json``: kind, network config,
the command that trained it, device, date, parent, bid module; ``params.msgpack``;
:mod:`cardjax.artifact`), which ``cardjax.agents.get(env, NAME)`` loads.  ``--run``: a DMC
(``cardjax train douzero``, ``shengji``, ``gongzhu_dmc``) or ScrofaZero run directory (its
newest checkpoint), or an artifact directory (a run's ``player/``).  ``--command`` / ``--device``
default to what the artifact records.  ``--bids strength=C``: at a Dou Dizhu table with an
auction, bid by hand strength with cutoff C (default: the rule player's bids).
"""

from __future__ import annotations

import argparse
import json
import os

import cardjax
from cardjax import artifact
from cardjax.agents import pretrained


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--run", required=True,
                   help="training run directory, or an artifact directory (a run's player/)")
    p.add_argument("--name", required=True,
                   help="the player's name, e.g. tractor-pretrained (an existing player of "
                   "another game is refused)")
    p.add_argument("--command", default=None,
                   help="the command that trained the run (default: the artifact's record)")
    p.add_argument("--device", default=None,
                   help='what it trained on, e.g. "2-core CPU" (default: the artifact\'s record)')
    p.add_argument("--bids", default=None, metavar="strength=C",
                   help="Dou Dizhu bid module at a table with an auction")
    p.add_argument("--directory", default=pretrained.DIRECTORY,
                   help="where to write it, as DIRECTORY/NAME (default: the package's players); "
                   "a player exported elsewhere is loaded by naming DIRECTORY/NAME, e.g. "
                   "cardjax arena --a DIR/NAME")
    args = p.parse_args(argv)
    if not os.path.isdir(args.run):
        p.error(f"--run: no directory {args.run!r}")
    if args.bids is not None:
        key, eq, value = args.bids.partition("=")
        try:
            args.bids = {"strength": float(value)}
        except ValueError:
            p.error(f"--bids: expected strength=C with a number C, got {args.bids!r}")
        if key != "strength" or not eq:
            p.error(f"--bids: expected strength=C, got {key!r}")
    return args


def main(argv=None) -> dict:
    args = parse_args(argv)
    # a name the package ships for another game is refused, before anything is written
    shipped = {n: g for g in cardjax.GAMES for n in pretrained.names(g)}
    try:
        source = (artifact.read(args.run) if artifact.is_artifact(args.run)
                  else artifact.from_run(args.run))
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    expected = shipped.get(args.name, source.game)
    if source.game != expected:
        raise SystemExit(f"error: {args.run} plays {source.game}; {args.name} is for {expected}")
    meta = pretrained.export(source, args.name, args.command, args.device, args.bids,
                             directory=args.directory)
    print(json.dumps({k: v for k, v in meta.items() if k != "network"}, indent=1))
    return meta
