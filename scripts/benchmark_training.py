#!/usr/bin/env python
"""Throughput of the ScrofaZero training step against ``--num_envs``, on whatever device runs it.

    python scripts/benchmark_training.py                          # 32, 128, 512 games per iteration
    python scripts/benchmark_training.py --num-envs 1024,4096 --width 512 --depth 6 --json out.json

For each size: the compile time of the whole step, seconds per iteration (self-play of
``num_envs`` games with MCTS at every move, then the network update; best of ``--repeats``),
self-play positions/s (52 per game), and the share of the step spent in self-play (timed on its
own).  The games are split over every local device, as in ``experiments/scrofazero.py``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import time

import jax

from cardjax.cli import positive_int
from cardjax.train import alphazero


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}")
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"sizes must be positive integers, got {text!r}")
    return sizes


def bench(cfg: alphazero.Config, repeats: int) -> dict:
    devices = jax.local_device_count()
    mesh = alphazero.data_mesh(jax.local_devices()) if devices > 1 else None
    train = alphazero.make_train(cfg, mesh)
    state = train.init(jax.random.PRNGKey(0))
    t0 = time.perf_counter()
    step = train.step.lower(state).compile()
    compile_s = time.perf_counter() - t0
    state, m = step(state)  # warm up
    jax.block_until_ready(m)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        state, m = step(state)
        jax.block_until_ready(m)
        times.append(time.perf_counter() - t0)
    sec = min(times)
    play = train.self_play
    jax.block_until_ready(play(state.params, jax.random.PRNGKey(1)))
    t0 = time.perf_counter()
    jax.block_until_ready(play(state.params, jax.random.PRNGKey(2)))
    play_s = time.perf_counter() - t0
    return {"num_envs": cfg.num_envs, "compile_s": compile_s, "seconds_per_iteration": sec,
            "positions_per_s": cfg.positions / sec, "selfplay_share": min(play_s / sec, 1.0)}


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--num-envs", type=_sizes, default=[32, 128, 512])
    p.add_argument("--width", type=positive_int, default=128)
    p.add_argument("--depth", type=positive_int, default=2)
    p.add_argument("--minibatch", type=positive_int, default=512)
    p.add_argument("--repeats", type=positive_int, default=2)
    p.add_argument("--json", metavar="PATH", default=None)
    args = p.parse_args(argv)
    dev = jax.devices()[0]
    print(f"ScrofaZero training step on {jax.local_device_count()} x {dev.device_kind} "
          f"({dev.platform}), jax {jax.__version__}, net {args.width}x{args.depth}, "
          f"minibatch {args.minibatch}, {_dt.date.today()}")
    print(f"{'num_envs':>9} {'compile s':>10} {'s/iter':>8} {'positions/s':>12} {'self-play':>10}")
    rows = []
    for n in args.num_envs:
        cfg = alphazero.Config(num_envs=n, width=args.width, depth=args.depth,
                               minibatch=args.minibatch)
        r = bench(cfg, args.repeats)
        rows.append(r)
        print(f"{n:>9} {r['compile_s']:>10.1f} {r['seconds_per_iteration']:>8.2f} "
              f"{r['positions_per_s']:>12,.0f} {r['selfplay_share']:>9.0%}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": dev.device_kind, "platform": dev.platform,
                       "jax": jax.__version__, "date": str(_dt.date.today()),
                       "width": args.width, "depth": args.depth, "rows": rows}, f, indent=1)
    return rows


if __name__ == "__main__":
    main()
