"""Speed of the search players: UCT iterations per second against the number of roots searched
at once, with a plain single-root Python implementation of the same search (the tests'
reference, :mod:`cardjax.search.uct_reference`) timed in the same run.

    cardjax bench search                         # small defaults, the CPU
    cardjax bench search --games doudizhu --roots 1,64,1024 --out benchmarks/x.json

For every game and player (``det_uct`` with 8 trees, ``ismcts``; ``--iterations`` per tree /
search) one ``jit(vmap(search))`` over ``roots`` random mid-game positions is compiled, then
timed over ``--repeats`` calls (the median is kept).  Reported: iterations per second in total
(roots x trees x iterations / time), per root, and the compile time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time

import jax

import cardjax
from cardjax.cli import positive_int
from cardjax.search import uct, uct_reference


def positions(env, roots: int, moves: int, seed: int = 0):
    """``roots`` positions ``moves`` random actions into fresh deals (still running)."""
    keys = jax.random.split(jax.random.PRNGKey(seed), roots)

    def one(key):
        k0, k1 = jax.random.split(key)
        s = env.init(k0)

        def body(i, s):
            nxt = env.step(s, env.random_action(jax.random.fold_in(k1, i), s))
            return jax.tree_util.tree_map(lambda a, b: jax.numpy.where(nxt.terminated, b, a),
                                          nxt, s)

        return jax.lax.fori_loop(0, moves, body, s)

    return jax.jit(jax.vmap(one))(keys)


def time_batched(env, cfg, states, repeats: int) -> dict:
    roots = states.terminated.shape[0]
    keys = jax.random.split(jax.random.PRNGKey(1), roots)
    f = jax.jit(jax.vmap(lambda s, k: uct.search(env, cfg, s, k).action))
    t = time.perf_counter()
    compiled = f.lower(states, keys).compile()
    compile_s = time.perf_counter() - t
    times = []
    for r in range(repeats):
        t = time.perf_counter()
        compiled(states, jax.random.split(jax.random.PRNGKey(2 + r), roots)).block_until_ready()
        times.append(time.perf_counter() - t)
    sec = statistics.median(times)
    total = roots * cfg.trees * cfg.iterations / sec
    return {"roots": roots, "seconds": sec, "compile_s": compile_s, "iterations_per_s": total,
            "per_root_iterations_per_s": total / roots}


def time_reference(env, cfg, state) -> dict:
    fns = uct_reference.env_fns(env)
    uct_reference.search(env, cfg._replace(iterations=2, trees=1), state, jax.random.PRNGKey(0),
                         fns)  # compile the env's functions
    t = time.perf_counter()
    uct_reference.search(env, cfg, state, jax.random.PRNGKey(1), fns)
    sec = time.perf_counter() - t
    return {"roots": 1, "seconds": sec, "iterations_per_s": cfg.trees * cfg.iterations / sec}


MOVES = {"mini_doudizhu": 2, "gongzhu": 8, "doudizhu": 6, "tractor": 120}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", default="mini_doudizhu,gongzhu,doudizhu")
    p.add_argument("--roots", default="1,16,128", help="comma-separated batch sizes")
    p.add_argument("--iterations", type=positive_int, default=200)
    p.add_argument("--trees", type=positive_int, default=8, help="trees of det_uct")
    p.add_argument("--reference-iterations", type=positive_int, default=40)
    p.add_argument("--repeats", type=positive_int, default=3)
    p.add_argument("--out", default=None, help="write the rows as JSON here")
    args = p.parse_args(argv)
    args.games = [g.strip() for g in args.games.split(",") if g.strip()]
    for g in args.games:
        if g not in cardjax.GAMES:
            p.error(f"--games: unknown game {g!r}; choose from {', '.join(cardjax.GAMES)}")
    try:
        args.roots = [int(r) for r in args.roots.split(",")]
    except ValueError:
        p.error(f"--roots: comma-separated positive integers, got {args.roots!r}")
    if any(r < 1 for r in args.roots):
        p.error(f"--roots: positive integers, got {args.roots}")
    return args


def main(argv=None) -> dict:
    args = parse_args(argv)
    rows = []
    for game in args.games:
        env = cardjax.make(game)
        players = {"det_uct": uct.det_uct(args.trees, args.iterations),
                   "ismcts": uct.ismcts(args.iterations * args.trees)}
        for name, cfg in players.items():
            one = positions(env, 1, MOVES.get(game, 4))
            ref_cfg = cfg._replace(trees=1, iterations=args.reference_iterations)
            ref = time_reference(env, ref_cfg, jax.tree_util.tree_map(lambda x: x[0], one))
            rows.append({"game": game, "player": name, "impl": "python reference", **ref})
            print(f"{game:14s} {name:8s} python reference     {ref['iterations_per_s']:12,.0f} "
                  "iterations/s", flush=True)
            for roots in args.roots:
                r = time_batched(env, cfg, positions(env, roots, MOVES.get(game, 4)),
                                 args.repeats)
                rows.append({"game": game, "player": name, "impl": "cardjax", "trees": cfg.trees,
                             "iterations": cfg.iterations, **r})
                print(f"{game:14s} {name:8s} cardjax {roots:6d} roots "
                      f"{r['iterations_per_s']:12,.0f} iterations/s "
                      f"({r['per_root_iterations_per_s']:,.0f} per root; compile "
                      f"{r['compile_s']:.1f} s)", flush=True)
    report = {"device": str(jax.devices()[0]), "cpu_count": os.cpu_count(),
              "machine": platform.machine(), "jax": jax.__version__,
              "date": time.strftime("%Y-%m-%d"), "rows": rows}
    if args.out:
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(report, f, indent=1)
        os.replace(tmp, args.out)  # a half-written file never reads as valid
    return report
