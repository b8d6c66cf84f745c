"""Cold compile of the ShengJi+ trainer's iteration (self-play + learner, one program) and of its
self-play alone, for a setting given as ``flag=value`` words (tiny network sizes: the compile
does not depend on them), without the compilation cache.

    XLA_FLAGS="" python benchmarks/compile_cpu2_2026-12-02b/shengji_step.py \\
        consequences=true counterfactual=1.0 leads=units throws=true init_from=rule \\
        prior_iterations=4 prior_share=1.0 advice=true advice_bonus=0.5 exact_rewards=true \\
        train_forced=false

``XLA_FLAGS`` unset: the tests' flags (LLVM level 0, the older CPU emitters); ``""``: XLA's
defaults, what a training run compiles with.  Run it with ``PYTHONPATH=TREE`` to measure another
checkout.
"""

import os
import sys
import time

os.environ.setdefault("XLA_FLAGS", "--xla_backend_optimization_level=0 "
                      "--xla_cpu_use_fusion_emitters=false")
os.environ["CARDJAX_COMPILE_CACHE"] = "off"

import jax  # noqa: E402

import cardjax  # noqa: E402
from cardjax import agents  # noqa: E402
from cardjax.commands.train import shengji  # noqa: E402
from cardjax.train.dmc import cli as dmc_cli  # noqa: E402
from cardjax.train.dmc.train import make_train  # noqa: E402

TINY = {"num_envs": 2, "width": 16, "depth": 1, "head_width": 16, "head_depth": 2,
        "minibatch": 256, "replay": 1}
setting = dict(word.split("=", 1) for word in sys.argv[1:])
flags = [x for k, v in {**TINY, **setting}.items() for x in (f"--{k}", str(v))]
cfg, _ = dmc_cli.resolve_config(shengji.parse_args(flags + ["--out", "/tmp/unused"]),
                                shengji.TRAIN_DEFAULTS)
prior = agents.load(cardjax.make("tractor"), cfg.init_from) if cfg.init_from else None
train = make_train(cfg, prior=prior)
state = jax.eval_shape(train.init, jax.random.PRNGKey(0))
t0 = time.time()
lowered = train.step.lower(state)
t1 = time.time()
lowered.compile()
t2 = time.time()
lines = lowered.as_text().count("\n")
lowered = train.self_play.lower(state.params, jax.random.PRNGKey(0), 0)
t3 = time.time()
lowered.compile()
t4 = time.time()
print(f"{setting}: iteration traced and lowered {t1 - t0:.1f} s, compiled {t2 - t1:.1f} s "
      f"({lines} StableHLO lines); self-play alone lowered {t3 - t2:.1f} s, compiled "
      f"{t4 - t3:.1f} s")
