"""Random playouts with a key per game and step (OLD: a copy of playout.py from before
``pick_action``) against the block's numbers drawn at once (the installed playout.py), one
device, alternated in one process.

    git show b6efd2d:cardjax/commands/bench/playout.py > /tmp/old_playout.py
    python pick_ab.py doudizhu,gongzhu,tractor /tmp/old_playout.py
"""
import importlib.util, sys, time, statistics, jax, jax.numpy as jnp
import cardjax
import cardjax.commands.bench.playout as installed
def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m
old = load(sys.argv[2], "old_playout")
new = installed
for game in sys.argv[1].split(","):
    env = cardjax.make(game); B = 1024; block = new.BLOCK[game]
    runs = {}
    for tag, mod in (("old", old), ("new", new)):
        run = mod.make_playout(env, block, 1)
        state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), B))
        out = run(state, jax.random.PRNGKey(1), 2); jax.block_until_ready(out)
        runs[tag] = (run, state)
    n = max(1, 200 // block) if game != "doudizhu" else 40
    rates = {"old": [], "new": []}
    for i in range(8):
        for tag in ("old", "new") if i % 2 == 0 else ("new", "old"):
            run, state = runs[tag]
            t = time.perf_counter(); out = run(state, jax.random.PRNGKey(i), n); jax.block_until_ready(out); dt = time.perf_counter() - t
            rates[tag].append(int(out[-1]) / dt / 1e6)
    print(game, {k: round(statistics.median(v), 2) for k, v in rates.items()}, {k: [round(x, 2) for x in sorted(v)] for k, v in rates.items()})
