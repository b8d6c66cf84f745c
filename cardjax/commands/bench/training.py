"""Throughput of a training step against ``--num_envs``, on whatever device runs it.

    cardjax bench training                          # ScrofaZero: 32, 128, 512 games
    cardjax bench training --num-envs 1024,4096 --width 512 --depth 6 --json out.json
    cardjax bench training --trainer douzero --num-envs 1024,4096 --lstm 128 \\
        --width 512 --depth 3 --head-width 512 --head-depth 3 --minibatch 8192 --k-fast 4,0

For each size: the compile time of the whole step, seconds per iteration (self-play of
``num_envs`` games, then the network update; best of ``--repeats``), the trained units per second
and the share of the step spent in self-play (timed on its own).  ScrofaZero (``--trainer
scrofazero``, MCTS at every move): positions/s, 52 per game.  The Deep Monte Carlo trainers
(``douzero``, ``shengji``, ``gongzhu_dmc``): frames/s (decisions trained on per second, as
``metrics.jsonl``'s ``frames_per_s``) and the candidates the Q heads scored per decision, for each
``--k-fast`` (the smallest candidate pool per game; 0 scores all ``k`` slots of every game, the
comparison that shows what the pools save).  Network sizes default to the trainer's config
defaults.  The games are split over every local device, as in the training commands.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import time

import jax

from cardjax.cli import positive_int
from cardjax.train import alphazero, dmc, sharding

DMC_GAMES = {"douzero": "doudizhu", "shengji": "tractor", "gongzhu_dmc": "gongzhu"}
TRAINERS = ("scrofazero",) + tuple(DMC_GAMES)


def _ints(minimum: int):
    def parse(text: str) -> list[int]:
        try:
            values = [int(x) for x in text.split(",") if x.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected comma-separated integers, got {text!r}") from None
        if not values or min(values) < minimum:
            raise argparse.ArgumentTypeError(
                f"expected comma-separated integers >= {minimum}, got {text!r}")
        return values
    return parse


def _mesh(make_mesh):
    return make_mesh(jax.local_devices()) if jax.local_device_count() > 1 else None


def _time_step(train, repeats: int) -> tuple[float, float, object, dict]:
    """(compile s, best s/iteration, state, last metrics) of ``train.step``."""
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
    return compile_s, min(times), state, jax.device_get(m)


def _time_self_play(play, params) -> float:
    jax.block_until_ready(play(params, jax.random.PRNGKey(1)))
    t0 = time.perf_counter()
    jax.block_until_ready(play(params, jax.random.PRNGKey(2)))
    return time.perf_counter() - t0


def bench(cfg: alphazero.Config, repeats: int) -> dict:
    """One ScrofaZero row."""
    train = alphazero.make_train(cfg, _mesh(alphazero.data_mesh))
    compile_s, sec, state, _ = _time_step(train, repeats)
    play_s = _time_self_play(train.self_play, state.params)
    return {"num_envs": cfg.num_envs, "compile_s": compile_s, "seconds_per_iteration": sec,
            "positions_per_s": cfg.positions / sec, "selfplay_share": min(play_s / sec, 1.0)}


def bench_dmc(cfg: dmc.Config, repeats: int) -> dict:
    """One DMC row: frames/s from the step's own ``frames`` metric (its last timed call)."""
    train = dmc.make_train(cfg, _mesh(sharding.data_mesh))
    compile_s, sec, state, m = _time_step(train, repeats)
    play_s = _time_self_play(train.self_play, state.params)
    return {"num_envs": cfg.num_envs, "k_fast": cfg.k_fast, "compile_s": compile_s,
            "seconds_per_iteration": sec, "frames": float(m["frames"]),
            "frames_per_s": float(m["frames"]) / sec, "selfplay_share": min(play_s / sec, 1.0),
            "scored_per_decision": float(m["scored_per_decision"]),
            "steps_run": int(m["steps_run"])}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 2)[2])
    p.add_argument("--trainer", choices=TRAINERS, default="scrofazero")
    p.add_argument("--num-envs", type=_ints(1), default=[32, 128, 512])
    p.add_argument("--width", type=positive_int, default=None,
                   help="MLP width [ScrofaZero 128; DMC: the trainer's default]")
    p.add_argument("--depth", type=positive_int, default=None,
                   help="MLP layers [ScrofaZero 2; DMC: the trainer's default]")
    p.add_argument("--minibatch", type=positive_int, default=None,
                   help="decisions per gradient step [ScrofaZero 512; DMC: the trainer's]")
    p.add_argument("--head-width", type=positive_int, default=None, help="DMC head width")
    p.add_argument("--head-depth", type=positive_int, default=None, help="DMC head layers")
    p.add_argument("--lstm", type=positive_int, default=None, help="DouZero LSTM size")
    p.add_argument("--k-fast", type=_ints(0), default=None,
                   help="DMC: comma-separated smallest candidate pools per game (0: every "
                   "slot) [the game's default]")
    p.add_argument("--repeats", type=positive_int, default=2)
    p.add_argument("--json", metavar="PATH", default=None)
    args = p.parse_args(argv)
    if args.trainer == "scrofazero":
        bad = [f for f in ("head_width", "head_depth", "lstm", "k_fast")
               if getattr(args, f) is not None]
        if bad:
            p.error(f"--{bad[0].replace('_', '-')} is a DMC flag (not --trainer scrofazero)")
    elif args.lstm is not None and args.trainer != "douzero":
        p.error("--lstm is DouZero's flag")
    return args


def main(argv=None) -> list[dict]:
    args = parse_args(argv)
    dev = jax.devices()[0]
    nets = {k: getattr(args, k) for k in ("width", "depth", "minibatch", "head_width",
                                          "head_depth", "lstm") if getattr(args, k) is not None}
    head = (f"{jax.local_device_count()} x {dev.device_kind} ({dev.platform}), jax "
            f"{jax.__version__}, {_dt.date.today()}")
    rows = []
    if args.trainer == "scrofazero":
        nets = {"width": 128, "depth": 2, "minibatch": 512, **nets}
        print(f"ScrofaZero training step on {head}, net {nets['width']}x{nets['depth']}, "
              f"minibatch {nets['minibatch']}")
        print(f"{'num_envs':>9} {'compile s':>10} {'s/iter':>8} {'positions/s':>12} "
              f"{'self-play':>10}")
        for n in args.num_envs:
            r = bench(alphazero.Config(num_envs=n, **nets), args.repeats)
            rows.append(r)
            print(f"{n:>9} {r['compile_s']:>10.1f} {r['seconds_per_iteration']:>8.2f} "
                  f"{r['positions_per_s']:>12,.0f} {r['selfplay_share']:>9.0%}", flush=True)
    else:
        game = DMC_GAMES[args.trainer]
        base = dmc.Config.for_game(game, **nets)
        nets = {k: getattr(base, k) for k in ("width", "depth", "head_width", "head_depth",
                                              "minibatch") + (("lstm",) * (game == "doudizhu"))}
        print(f"{args.trainer} (DMC, {game}) training step on {head}, {nets}")
        print(f"{'num_envs':>9} {'k_fast':>7} {'compile s':>10} {'s/iter':>8} {'frames/s':>12} "
              f"{'self-play':>10} {'scored/dec':>11}")
        for n in args.num_envs:
            for kf in args.k_fast or [base.k_fast]:
                r = bench_dmc(dmc.Config.for_game(game, num_envs=n, k_fast=kf, **nets),
                              args.repeats)
                rows.append(r)
                print(f"{n:>9} {kf:>7} {r['compile_s']:>10.1f} "
                      f"{r['seconds_per_iteration']:>8.2f} {r['frames_per_s']:>12,.0f} "
                      f"{r['selfplay_share']:>9.0%} {r['scored_per_decision']:>11.1f}",
                      flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"trainer": args.trainer, "device": dev.device_kind,
                       "platform": dev.platform, "devices": jax.local_device_count(),
                       "jax": jax.__version__, "date": str(_dt.date.today()), **nets,
                       "rows": rows}, f, indent=1)
    return rows
