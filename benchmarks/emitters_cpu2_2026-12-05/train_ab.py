import sys, time, json, statistics
import jax
from cardjax.commands.bench import compile as bc
OLD = {"xla_cpu_use_fusion_emitters": False}
reps = int(sys.argv[2])
for game in sys.argv[1].split(","):
    for name, fn, args, opts in bc.training_programs(game):
        c = {l: jax.jit(fn).lower(*args).compile(o) for l, o in (("fusion", opts), ("older", {**opts, **OLD}))}
        t = {l: [] for l in c}
        for l in c: jax.block_until_ready(c[l](*args))
        for r in range(reps):
            for l in (("fusion", "older") if r % 2 else ("older", "fusion")):
                s = time.perf_counter(); jax.block_until_ready(c[l](*args)); t[l].append(time.perf_counter() - s)
        print(json.dumps(dict(program=name, **{l: round(1e3*statistics.median(v), 1) for l, v in t.items()},
              **{l+"_min": round(1e3*min(v), 1) for l, v in t.items()})), flush=True)
