"""Compile and run each program of `cardjax bench compile` with its options, with and without
XLA's older CPU emitters, alternated; prints compile seconds and the median call time."""
import sys, time, json, statistics
import jax
from cardjax import programs
from cardjax.commands.bench import compile as bc

OLD = {"xla_cpu_use_fusion_emitters": False}
games = sys.argv[1].split(",")
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
rows = []
for game in games:
    progs = list(bc.programs_of(game, 64, 8)) + list(bc.training_programs(game))
    for name, fn, args, opts in progs:
        if opts is None and name.startswith("step"):
            opts = {}
        res = {}
        compiled = {}
        for label, o in (("fusion", dict(opts or {})), ("older", {**(opts or {}), **OLD})):
            t = time.perf_counter()
            compiled[label] = jax.jit(fn).lower(*args).compile(o or None)
            res[label + "_compile"] = round(time.perf_counter() - t, 2)
            jax.block_until_ready(compiled[label](*args))
        times = {"fusion": [], "older": []}
        for r in range(reps):
            for label in ("fusion", "older"):
                t = time.perf_counter()
                jax.block_until_ready(compiled[label](*args))
                times[label].append(time.perf_counter() - t)
        for label in times:
            res[label + "_ms"] = round(1e3 * statistics.median(times[label]), 3)
        row = dict(game=game, program=name, **res)
        rows.append(row)
        print(json.dumps(row), flush=True)
json.dump(rows, open(f"/tmp/emit/runtime_{'_'.join(games)}.json", "w"), indent=1)
