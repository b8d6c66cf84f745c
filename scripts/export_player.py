#!/usr/bin/env python
"""Ship a trained player in the package: write a run's newest networks as a pretrained player.

    python scripts/export_player.py --run runs/douzero --name doudizhu-pretrained \
        --command "python experiments/douzero.py --num_envs 64 --iterations 2400 --out runs/douzero" \
        --device "2-core CPU" --bids strength=-4

writes ``cardjax/agents/pretrained/NAME.msgpack`` (the parameters) and ``NAME.json`` (trainer,
config, the command that trained it, device, date, bid module), which ``cardjax.agents.get(env,
NAME)`` loads (``cardjax.agents.pretrained``).  ``--run``: a DMC (``experiments/douzero.py``,
``shengji.py``, ``gongzhu_dmc.py``) or ScrofaZero run directory.  ``--bids strength=C``: at a Dou
Dizhu table with an auction, bid by hand strength with cutoff C (default: the rule player's bids).
"""

from __future__ import annotations

import argparse
import json
import os

import cardjax
from cardjax.agents import pretrained
from cardjax.cli import run_command


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--run", required=True, help="training run directory")
    p.add_argument("--name", required=True,
                   help="the player's name, e.g. tractor-pretrained (an existing player of "
                   "another game is refused)")
    p.add_argument("--command", required=True, help="the command that trained the run")
    p.add_argument("--device", required=True, help='what it trained on, e.g. "2-core CPU"')
    p.add_argument("--bids", default=None, metavar="strength=C",
                   help="Dou Dizhu bid module at a table with an auction")
    p.add_argument("--directory", default=pretrained.DIRECTORY,
                   help="where to write it (default: the package's players); a player exported "
                   "elsewhere is loaded by naming that directory, e.g. scripts/arena.py --a DIR")
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
    # a name the package ships for another game is refused
    shipped = {n: g for g in cardjax.GAMES for n in pretrained.names(g)}
    try:
        meta = pretrained.export(args.run, args.name, args.command, args.device, args.bids,
                                 directory=args.directory)
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    expected = shipped.get(args.name, meta["game"])
    if meta["game"] != expected:
        for path in pretrained.paths(args.name, args.directory):
            os.remove(path)
        raise SystemExit(f"error: {args.run} plays {meta['game']}; {args.name} is for {expected}")
    print(json.dumps({k: v for k, v in meta.items() if k != "config"}, indent=1))
    return meta


if __name__ == "__main__":
    run_command(main)
