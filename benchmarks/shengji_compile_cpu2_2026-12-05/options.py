"""The ShengJi+ training step (the command's defaults) compiled cold with XLA's CPU options
added to the waiting level (1), each twice, alternated; then a few steps of each compiled program
timed (best of 5).

    python options.py
"""
import sys, time
import jax
from cardjax import programs
from cardjax.commands.train import shengji
from cardjax.train import dmc

cfg = dmc.Config.from_dict(shengji.TRAIN_DEFAULTS)
train = dmc.make_train(cfg)
state = train.init(jax.random.PRNGKey(0))
base = programs.waiting_options() or {}
variants = {
    "level 1": {},
    "split 1": {"xla_cpu_parallel_codegen_split_count": 1},
    "split 4": {"xla_cpu_parallel_codegen_split_count": 4},
    "no slp vectorizer": {"xla_cpu_disable_slp_vectorizer": True},
    "no loop unrolling": {"xla_cpu_disable_loop_unrolling": True},
    "optimize for size": {"xla_cpu_optimize_for_size": True},
    "level 0": {"xla_backend_optimization_level": 0},
}
names = sys.argv[1:] or list(variants)
for rnd in range(2):
    for name in names:
        opts = dict(base, **variants[name])
        t0 = time.perf_counter()
        try:
            compiled = jax.jit(lambda s: train.step.__wrapped__(s), compiler_options=opts).lower(state).compile()
        except Exception as e:
            print(f"{name:20s} failed: {str(e)[:100]}"); continue
        sec = time.perf_counter() - t0
        run = []
        if rnd == 1:
            s = state
            for _ in range(6):
                t = time.perf_counter(); s, m = compiled(s); jax.block_until_ready(m); run.append(time.perf_counter() - t)
        print(f"{name:20s} compile {sec:6.2f} s" + (f"  step best {min(run[1:]):.3f} s" if run else ""), flush=True)
