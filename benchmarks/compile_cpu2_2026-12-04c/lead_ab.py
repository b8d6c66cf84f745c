"""Dou Dizhu random playouts (the benchmark's playout, one device, 1,024 games) with a lead's
whole 864-word set built for every lead (OLD: ``moves._pick_wide`` patched to
``_pick_every_word``) against the words outside the airplanes for hands that hold none (NEW),
alternated in one process; also each program's compile seconds.

    python lead_ab.py
"""
import statistics, sys, time
import jax
import cardjax
import cardjax.commands.bench.playout as playout
from cardjax.games.doudizhu import moves

B = 1024
env = cardjax.make("doudizhu")
block = playout.BLOCK["doudizhu"]
runs, compile_s = {}, {}
new_wide = moves._pick_wide
for tag in ("old", "new"):
    moves._pick_wide = moves._pick_every_word if tag == "old" else new_wide
    run = playout.make_playout(env, block, 1)
    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), B))
    t = time.perf_counter()
    jax.block_until_ready(run(state, jax.random.PRNGKey(1), 2))
    compile_s[tag] = round(time.perf_counter() - t, 1)
    runs[tag] = (run, state)
moves._pick_wide = new_wide
rates = {"old": [], "new": []}
for i in range(int(sys.argv[1]) if len(sys.argv) > 1 else 8):
    for tag in ("old", "new") if i % 2 == 0 else ("new", "old"):
        run, state = runs[tag]
        t = time.perf_counter()
        out = jax.block_until_ready(run(state, jax.random.PRNGKey(i), 40))
        rates[tag].append(int(out[-1]) / (time.perf_counter() - t) / 1e6)
print("first call (compile) s:", compile_s)
print("M steps/s, medians:", {k: round(statistics.median(v), 3) for k, v in rates.items()})
print("sorted:", {k: [round(x, 3) for x in sorted(v)] for k, v in rates.items()})
