"""The benchmark's Dou Dizhu playout (one device, 1,024 games, blocks of 8 steps) against the
same scan of pick + step without the deals between blocks, and pick + step called once per
step from Python: where a playout step's time goes besides the step itself.

    python ddz_playout_split.py
"""
import time
import numpy as np
import jax
import jax.numpy as jnp
import cardjax
import cardjax.commands.bench.playout as playout

env = cardjax.make("doudizhu")
B, BLOCK, BLOCKS = 1024, 8, 40
state0 = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), B))
run = playout.make_playout(env, BLOCK, 1)


@jax.jit
def no_deals(state, key):
    def one(s, u):
        return jax.vmap(env.step)(s, jax.vmap(env.pick_action)(u, s)), jnp.sum(~s.terminated)
    us = jax.random.uniform(key, (BLOCK * BLOCKS, B))
    s, live = jax.lax.scan(one, state, us)
    return s, jnp.sum(live)


jax.block_until_ready(run(state0, jax.random.PRNGKey(1), 2))
jax.block_until_ready(no_deals(state0, jax.random.PRNGKey(1)))
rates = {"playout (deals between blocks)": [], "scan without deals": []}
for i in range(6):
    t = time.perf_counter(); out = jax.block_until_ready(run(state0, jax.random.PRNGKey(i), BLOCKS))
    rates["playout (deals between blocks)"].append(int(out[-1]) / (time.perf_counter() - t))
    t = time.perf_counter(); s, live = jax.block_until_ready(no_deals(state0, jax.random.PRNGKey(i)))
    rates["scan without deals"].append(int(live) / (time.perf_counter() - t))
for k, v in rates.items():
    print(f"{k}: best {max(v) / 1e6:.2f} M steps/s, median {np.median(v) / 1e6:.2f} "
          f"({1e9 / max(v):.0f} ns a live step)")
