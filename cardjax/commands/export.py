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
auction, bid by hand strength with cutoff C (default: the rule player's bids).  ``--half``:
store the parameters at float16, half the file (they play in float32); a player stored at
float16 is exported at float16 without it.  ``--average P ...``: the
parameters are the mean of ``--run``'s and those of the players P (run or artifact directories,
shipped names) of the same network config, e.g. snapshots of one run
(:mod:`cardjax.train.averaging`); the lineage is ``--run``'s, with the others under
``averaged_with``.

A search player is shipped as its settings, its networks exported first under their own names:

    cardjax export --run runs/value --name doudizhu-value --half --device "2-core CPU"
    cardjax export --search pimc:worlds=8,value=doudizhu-value,rank=doudizhu-pretrained \
        --game doudizhu --name doudizhu-search --command "cardjax arena ..." --device "2-core CPU"

``--search``: a search player's word (:data:`cardjax.agents.SEARCH`) whose networks are named
as shipped players or networks; ``--command`` / ``--device``: where its strength was measured.
"""

from __future__ import annotations

import argparse
import json
import os

import cardjax
from cardjax.agents import pretrained


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--run",
                        help="training run directory, or an artifact directory (a run's player/)")
    source.add_argument("--search", metavar="WORD",
                        help="a search player and its settings, e.g. pimc:worlds=8,value=NAME "
                        "(with --game)")
    p.add_argument("--game", choices=cardjax.GAMES, help="the game of a --search player")
    p.add_argument("--half", action="store_true",
                   help="store the parameters at float16 (half the file; played in float32; a "
                        "player stored at float16 stays so without it)")
    p.add_argument("--average", nargs="+", default=None, metavar="PLAYER",
                   help="export the mean of --run's parameters and these players' (run or "
                   "artifact directories, shipped names; the same network config)")
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
    if args.run is not None and not os.path.isdir(args.run):
        p.error(f"--run: no directory {args.run!r}")
    if args.search is not None:
        if args.game is None:
            p.error("--search needs --game")
        if not (args.command and args.device):
            p.error("--search needs --command and --device: where its strength was measured")
        if args.bids is not None or args.half or args.average:
            p.error("--bids, --half and --average are for a trained player (--run), not "
                    "--search")
    elif args.game is not None:
        p.error("--game is for --search (a --run's game is its own)")
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
    shipped = {n: g for g in cardjax.GAMES
               for n in pretrained.names(g) + pretrained.networks(g)}
    if args.search is not None:
        if shipped.get(args.name, args.game) != args.game:
            raise SystemExit(f"error: {args.name} is for {shipped[args.name]}, not {args.game}")
        try:
            meta = pretrained.export_search(args.name, args.game, args.search, args.command,
                                            args.device, directory=args.directory)
        except ValueError as e:
            raise SystemExit(f"error: --search: {e}") from None
        print(json.dumps(meta, indent=1))
        return meta
    from cardjax.train import averaging, continuation

    try:
        source = continuation.read_player(args.run)
        if args.average:
            source = averaging.average(source, [(w, averaging.read(w)) for w in args.average])
    except ValueError as e:
        raise SystemExit(f"error: {' '.join(str(e).split())}") from None
    expected = shipped.get(args.name, source.game)
    if source.game != expected:
        raise SystemExit(f"error: {args.run} plays {source.game}; {args.name} is for {expected}")
    try:
        meta = pretrained.export(source, args.name, args.command, args.device, args.bids,
                                 directory=args.directory, half=args.half)
    except ValueError as e:  # a play setting naming a directory on this machine
        raise SystemExit(f"error: {args.run}: {e}") from None
    print(json.dumps({k: v for k, v in meta.items() if k != "network"}, indent=1))
    return meta
