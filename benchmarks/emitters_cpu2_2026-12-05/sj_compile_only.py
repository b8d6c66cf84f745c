import time, json, sys, jax
from cardjax import programs
from cardjax.commands.train import shengji, douzero
from cardjax.train import dmc
mod = {"shengji": shengji, "douzero": douzero}[sys.argv[1]]
train = dmc.make_train(dmc.Config.from_dict(mod.TRAIN_DEFAULTS))
state = train.init(jax.random.PRNGKey(0))
t = time.perf_counter(); low = train.step.trace(state).lower(); t1 = time.perf_counter()
c = low.compile(programs.training_options()); t2 = time.perf_counter()
print(json.dumps(dict(cmd=sys.argv[1], tree=sys.argv[2], trace_lower=round(t1 - t, 2), xla=round(t2 - t1, 2), total=round(t2 - t, 2))))
