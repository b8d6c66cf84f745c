"""Random-playout throughput of every cardjax game against batch size, and of its peers.

    cardjax bench envs                        # every game, batch 1 .. 65536, peers
    cardjax bench envs --quick                # CI smoke test: batch 1, 64, 1024, short runs
    cardjax bench envs --games gongzhu --batch-sizes 1,256,4096 --json bench.json

For each game and batch size one jitted function plays random games back to back without
leaving the compiled graph: blocks of ``vmap(env.step)`` steps with uniformly random legal
actions (a ``lax.scan``, unrolled on accelerators), after each block dealing a new game into every
slot whose game ended (``cardjax.core.reset_finished``), inside a ``lax.fori_loop`` over blocks.
The number of blocks is a runtime argument (one compile per batch size); unless ``--steps``
fixes it, it is calibrated so that one timed call lasts about ``--seconds``.

Reported per row: lowering + XLA compile time (timed apart from execution), the first call,
random-playout steps/s (steps of running games / seconds, best of ``--repeats``, after
``block_until_ready``) and games/s (steps/s over the mean game length, which the loop measures
from the ``terminated`` flags and the step counts of the games that end; see
``add_games_per_s``; for Tractor a step is one sub-action and a game is one hand, so games/s is
hands/s, see ``UNITS``). Per game: the size of the jaxpr of one vmapped step, the bytes of one
game's state, and the peers (other simulators of a similar game, timed in the same run when they
are installed; see ``PEERS``): each plays whole random games in one worker process per usable core
(``--peer-processes``) for ``--peer-seconds``, OpenSpiel's inside C++ (``pyspiel.evaluate_bots``),
and is reported in decisions/s and games/s summed over the processes, with cardjax's best steps/s
over its decisions/s.  Tractor's peer is quoted from the ShengJi+ report, not measured.

The batch is split across every local device (``jax.shard_map``) where their number divides it.
On a CPU host, which JAX shows as one device whose operations XLA spreads over its own threads,
``--cpu-devices`` (default: one per usable core) splits the host into that many single-threaded
devices first: each core then plays its own games, as each peer process does, which on the
2-core machine runs ~1.7x the steps/s of one device.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform

import jax

import cardjax
from cardjax.cli import positive_float, positive_int
from cardjax.commands.bench.peers import (PEERS, PeerError, peer_processes_default, peer_ratio,
                                         version)
from cardjax.commands.bench.playout import (MEMORY_FRACTION, SLOT_BYTES_FACTOR, UNITS,
                                            add_games_per_s, bench_cardjax, jaxpr_size,
                                            max_batch, memory_bytes, state_bytes,
                                            use_cpu_devices)
from cardjax.commands.bench.report import describe_device, fmt_rate, print_peer, print_report

DEFAULT_BATCH_SIZES = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536)
QUICK_BATCH_SIZES = (1, 64, 1024)
DEFAULT_SECONDS = 1.0  # target length of one timed call
QUICK_SECONDS = 0.2
DEFAULT_PEER_SECONDS = 2.5
QUICK_PEER_SECONDS = 0.5


# ---------------------------------------------------------------------------------- CLI
def _batch_sizes(text: str) -> list[int]:
    sizes = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            v = int(part)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"batch size {part!r} is not an integer (expected e.g. 1,64,1024)") from None
        if v <= 0:
            raise argparse.ArgumentTypeError(f"batch size must be positive, got {v}")
        sizes.append(v)
    if not sizes:
        raise argparse.ArgumentTypeError("no batch sizes given (expected e.g. 1,64,1024)")
    return sizes


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Random-playout steps/s of cardjax games against batch size, and of peers.",
    )
    p.add_argument("--games", default=",".join(cardjax.GAMES),
                   help=f"comma-separated games (default: all: {','.join(cardjax.GAMES)})")
    p.add_argument("--batch-sizes", type=_batch_sizes, default=None,
                   help="comma-separated batch sizes (default: "
                   f"{','.join(map(str, DEFAULT_BATCH_SIZES))}; with --quick "
                   f"{','.join(map(str, QUICK_BATCH_SIZES))})")
    p.add_argument("--steps", type=positive_int, default=None,
                   help="steps per timed call (default: calibrated so a call lasts --seconds)")
    p.add_argument("--seconds", type=positive_float, default=None,
                   help=f"target length of one timed call when --steps is not given "
                   f"(default {DEFAULT_SECONDS}, --quick {QUICK_SECONDS})")
    p.add_argument("--repeats", type=positive_int, default=None,
                   help="timed calls per batch size, the best is kept (default 3, --quick 2)")
    p.add_argument("--peers", action=argparse.BooleanOptionalAction, default=True,
                   help="time the installed peer simulators too (default: yes)")
    p.add_argument("--peer-seconds", type=positive_float, default=None,
                   help=f"seconds per peer (default {DEFAULT_PEER_SECONDS}, "
                   f"--quick {QUICK_PEER_SECONDS})")
    p.add_argument("--peer-processes", type=positive_int, default=None,
                   help="worker processes per measured peer, all playing at once (default: one "
                   f"per usable core, {peer_processes_default()} here)")
    p.add_argument("--cpu-devices", type=positive_int, default=None,
                   help="XLA devices the host CPU is split into when cardjax runs on it, the "
                   "batch sharded across them (default: one per usable core, "
                   f"{peer_processes_default()} here, as the peers run one process per core; "
                   "1: a single device using XLA's own threads)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", metavar="PATH", default=None, help="write every number to PATH")
    p.add_argument("--quick", action="store_true",
                   help="smoke test: small batch sizes and short calls")
    return p


def parse_args(argv=None) -> argparse.Namespace:
    parser = build_parser()
    args = parser.parse_args(argv)
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    if not games:
        parser.error("--games: no game named")
    unknown = [g for g in games if g not in cardjax.GAMES]
    if unknown:
        parser.error(f"--games: unknown game(s) {', '.join(map(repr, unknown))}; "
                     f"available: {', '.join(cardjax.GAMES)}")
    args.games = list(dict.fromkeys(games))
    if args.batch_sizes is None:
        args.batch_sizes = list(QUICK_BATCH_SIZES if args.quick else DEFAULT_BATCH_SIZES)
    if args.seconds is None:
        args.seconds = QUICK_SECONDS if args.quick else DEFAULT_SECONDS
    if args.repeats is None:
        args.repeats = 2 if args.quick else 3
    if args.peer_seconds is None:
        args.peer_seconds = QUICK_PEER_SECONDS if args.quick else DEFAULT_PEER_SECONDS
    if args.peer_processes is None:
        args.peer_processes = peer_processes_default()
    if args.cpu_devices is None:
        args.cpu_devices = peer_processes_default()
    if args.json is not None:
        parent = os.path.dirname(os.path.abspath(args.json))
        if not os.path.isdir(parent):
            parser.error(f"--json: directory {parent!r} does not exist")
    return args


def main(argv=None) -> dict:
    args = parse_args(argv)
    cpu_devices = use_cpu_devices(args.cpu_devices)
    dev = describe_device()
    report = {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "device": dev,
        "versions": {
            "python": platform.python_version(),
            "jax": jax.__version__,
            "jaxlib": version("jaxlib"),
            "cardjax": cardjax.__version__,
        },
        "config": {
            "games": args.games,
            "batch_sizes": args.batch_sizes,
            "steps": args.steps,
            "seconds": args.seconds,
            "repeats": args.repeats,
            "peers": args.peers,
            "peer_seconds": args.peer_seconds,
            "peer_processes": args.peer_processes,
            "cpu_devices": cpu_devices,
            "seed": args.seed,
        },
        "rows": [],
        "games": {},
    }
    print(f"cardjax {cardjax.__version__}  jax {jax.__version__}  {report['date']}")
    print(f"device: {dev['device_kind']} ({dev['platform']}) x{dev['local_device_count']}, the "
          f"batch split across them where they divide it; host CPUs: {dev['cpu_count']}")
    print(f"random playouts, best of {args.repeats} calls"
          + (f" of {args.steps} steps" if args.steps else f" of ~{args.seconds:g} s") + "\n")

    for name in args.games:
        env = cardjax.make(name)
        sizes = jaxpr_size(env)
        game = {"env": repr(env), "jaxpr_eqns": sizes, "state_bytes": state_bytes(env),
                "peers": {}}
        if name in UNITS:
            game["units"] = UNITS[name]
        report["games"][name] = game
        print(f"{name}: {env!r}; jaxpr of one vmapped step: {sizes['step_total']} equations "
              f"({sizes['step']} top level); with random action + auto-reset: "
              f"{sizes['playout_step_total']}", flush=True)
        rows = []
        cap = max_batch(env)
        skipped = [b for b in args.batch_sizes if cap is not None and b > cap]
        game["max_batch"] = cap
        game["skipped_batch_sizes"] = skipped
        if skipped:
            print(f"  batch sizes {', '.join(map(str, skipped))} skipped: above {cap}, the "
                  f"largest whose states fit {MEMORY_FRACTION:g} of "
                  f"{memory_bytes() / 2 ** 30:.0f} GiB at {SLOT_BYTES_FACTOR} x "
                  f"{state_bytes(env):,} bytes per game", flush=True)
        for batch in [b for b in args.batch_sizes if b not in skipped]:
            row = {"game": name, **bench_cardjax(env, batch, args.steps, args.repeats,
                                                   args.seconds, args.seed)}
            rows.append(row)
            print(f"  batch {batch:>6}: {fmt_rate(row['steps_per_s'])}steps/s "
                  f"({row['steps_per_call']} steps/call; compile "
                  f"{row['lower_s'] + row['compile_s']:.2f} s)", flush=True)
        game["mean_game_length"] = add_games_per_s(rows)
        report["rows"].extend(rows)
        best = max(rows, key=lambda r: r["steps_per_s"])
        game["best"] = {"batch": best["batch"], "steps_per_s": best["steps_per_s"]}

        for peer, fn in PEERS.get(name, []) if args.peers else []:
            try:
                res = fn(args.peer_seconds, seed=args.seed, processes=args.peer_processes)
            except ImportError as e:
                game["peers"][peer] = {"skipped": f"not installed ({e})"}
                continue
            except PeerError as e:
                game["peers"][peer] = {"skipped": f"failed ({e})"}
                continue
            res["ratio"], res["ratio_basis"] = peer_ratio(best, res)
            game["peers"][peer] = res
            print_peer(peer, res, game.get("units", {}).get("game", "game"))
        print(flush=True)

    print_report(report, args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
        print(f"wrote {args.json}")
    return report
