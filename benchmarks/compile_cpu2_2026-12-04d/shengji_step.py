"""The ShengJi+ training step at its defaults, cold: lowering (tracing included) and XLA's compile,
wall and process CPU seconds, and the optimized program's size.  One JSON line.

    python shengji_step.py                      # the code on the path
    PYTHONPATH=/tmp/old python shengji_step.py  # another tree (git archive REV cardjax | tar -x -C /tmp/old)
"""
import json
import time

import jax

jax.config.update("jax_enable_compilation_cache", False)
from cardjax import programs
from cardjax.commands.train import shengji
from cardjax.train import dmc

train = dmc.make_train(dmc.Config.from_dict(shengji.TRAIN_DEFAULTS))
state = train.init(jax.random.PRNGKey(0))
c0, t0 = time.process_time(), time.perf_counter()
low = jax.jit(train.step.__wrapped__, compiler_options=programs.waiting_options()).lower(state)
c1, t1 = time.process_time(), time.perf_counter()
compiled = low.compile()
c2, t2 = time.process_time(), time.perf_counter()
print(json.dumps(dict(lower=round(t1 - t0, 2), compile=round(t2 - t1, 2), total=round(t2 - t0, 2),
                      cpu_lower=round(c1 - c0, 2), cpu_compile=round(c2 - c1, 2),
                      kb=len(compiled.as_text()) // 1024)))
