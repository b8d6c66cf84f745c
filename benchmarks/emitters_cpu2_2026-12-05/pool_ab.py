import sys, time, json, statistics, importlib.util, jax
from cardjax import programs
from cardjax.commands.train import shengji, douzero, gongzhu_dmc
from cardjax.train import dmc
import cardjax.nets.dmc.acting as acting
spec = importlib.util.spec_from_file_location("acting_old", "/tmp/acting_old.py")
old = importlib.util.module_from_spec(spec); spec.loader.exec_module(old)
mod = {"shengji": shengji, "douzero": douzero, "gongzhu_dmc": gongzhu_dmc}[sys.argv[1]]
new_fn = acting.score_slots
runs = {}
for label, fn in (("old", old.score_slots), ("new", new_fn)):
    acting.score_slots = fn
    import cardjax.train.dmc.self_play as sp
    sp.score_slots = fn
    cfg = dmc.Config.from_dict(dict(mod.TRAIN_DEFAULTS))
    train = dmc.make_train(cfg)
    state = train.init(jax.random.PRNGKey(0))
    t = time.perf_counter()
    c = train.step.trace(state).lower().compile(programs.training_options())
    ct = time.perf_counter() - t
    s = state
    for i in range(2): s, m = c(s)
    runs[label] = [c, s, [], ct, m]
acting.score_slots = new_fn
sp.score_slots = new_fn
for r in range(int(sys.argv[2]) if len(sys.argv) > 2 else 16):
    for label in (("old", "new") if r % 2 else ("new", "old")):
        c, s, ts = runs[label][:3]
        a = time.perf_counter(); s2, m = c(s); jax.block_until_ready(s2); ts.append(time.perf_counter() - a)
        runs[label][4] = m
print(json.dumps({"cmd": sys.argv[1], **{f"{l} compile": round(v[3], 2) for l, v in runs.items()},
                  **{f"{l} ms": round(1e3*statistics.median(v[2]), 1) for l, v in runs.items()},
                  **{f"{l} min": round(1e3*min(v[2]), 1) for l, v in runs.items()},
                  **{f"{l} scored/decision": round(float(v[4]["scored_per_decision"]), 2) for l, v in runs.items()},
                  **{f"{l} loss": float(v[4]["loss"]) for l, v in runs.items()}}))
