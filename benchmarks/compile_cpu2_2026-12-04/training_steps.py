"""The training step of each self-play training command at its defaults, compiled cold
(programs.compile_cost): at the waiting level where cardjax has programs.jit_training, else at
XLA's default (the code before it).  python training_steps.py OUT.json"""
import importlib, json, sys, jax
from cardjax import programs
from cardjax.train import alphazero, dmc
rows = []
for cmd in ("scrofazero", "gongzhu_dmc", "douzero", "shengji"):
    r = importlib.import_module(f"cardjax.commands.train.{cmd}")
    t = {"alphazero": alphazero, "dmc": dmc}[r.TRAINER]
    train = t.make_train(t.Config.from_dict(r.TRAIN_DEFAULTS))
    state = train.init(jax.random.PRNGKey(0))
    opts = programs.waiting_options() if hasattr(programs, "jit_training") else None
    c = programs.compile_cost(train.step.__wrapped__, state, compiler_options=opts)
    print(cmd, c, flush=True); rows.append({"command": cmd, **c})
json.dump(rows, open(sys.argv[1], "w"), indent=1)
