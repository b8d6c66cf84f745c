"""A Dou Dizhu random step split in two on a quiet host: the pick of a legal move
(``env.pick_action``) and the transition (``env.step``), each alone on 1,024 states taken from
random play (every 7th step of 1,024 games, leads and follows as they come), beside the whole
step; min and median of 300 alternated calls.

    python ddz_step_split.py
"""
import time
import numpy as np
import jax
import jax.numpy as jnp
import cardjax

env = cardjax.make("doudizhu")
B = 1024
step = jax.jit(jax.vmap(env.step))
pick = jax.jit(jax.vmap(env.pick_action))
s = jax.vmap(env.init)(jax.random.split(jax.random.key(0), B))
for i in range(int(7 * np.random.default_rng(0).integers(1, 6))):  # a mid-game batch
    u = jax.random.uniform(jax.random.key(i), (B,))
    s = step(s, pick(u, s))
u = jax.random.uniform(jax.random.key(99), (B,))
a = pick(u, s)
leading = np.asarray((s.to_beat < 0) | (s.to_beat == 27471)).mean()
whole = jax.jit(lambda u, s: jax.vmap(env.step)(s, jax.vmap(env.pick_action)(u, s)))
fs = {"pick": (pick, (u, s)), "step": (step, (s, a)), "pick + step": (whole, (u, s)),
      "a call returning a field": (jax.jit(lambda s: s.step_count + 1), (s,))}
ts = {k: [] for k in fs}
for k, (f, args) in fs.items():
    jax.block_until_ready(f(*args))
for _ in range(300):
    for k, (f, args) in fs.items():
        t = time.perf_counter(); jax.block_until_ready(f(*args)); ts[k].append(time.perf_counter() - t)
print(f"{B} states, {leading:.0%} leads, {int(s.terminated.sum())} finished")
for k, v in ts.items():
    print(f"{k}: min {np.min(v) * 1e6:.0f} us, median {np.median(v) * 1e6:.0f} us "
          f"({np.min(v) / B * 1e9:.0f} ns a state)")
