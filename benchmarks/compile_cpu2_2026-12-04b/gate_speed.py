import time, jax, json, os, sys, importlib
recipe = importlib.import_module("cardjax.commands.train." + os.environ.get("RECIPE", "shengji"))
from cardjax.train import dmc
cfg = dmc.Config.from_dict(recipe.TRAIN_DEFAULTS)
train = dmc.make_train(cfg)
st = train.init(jax.random.PRNGKey(0))
t = time.perf_counter(); step = train.step.lower(st).compile(); c = time.perf_counter() - t
st, m = step(st); jax.block_until_ready(st)
ts = []
for i in range(int(sys.argv[1]) if len(sys.argv) > 1 else 6):
    t = time.perf_counter(); st, m = step(st); jax.block_until_ready(st); ts.append(time.perf_counter() - t)
print(json.dumps({"gate": os.environ.get("CARDJAX_GATE", "auto"), "compile": round(c, 2), "step_s": sorted(round(x, 3) for x in ts), "frames": float(m["frames"])}))
