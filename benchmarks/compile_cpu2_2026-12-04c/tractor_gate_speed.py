import os, sys, time
os.environ["XLA_FLAGS"] = os.environ.get("CARDJAX_TEST_XLA_FLAGS", "")
import jax, jax.numpy as jnp
import cardjax
from cardjax.games.tractor import tricks, env as T
variant = sys.argv[1]; B = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
if variant == "onechain":
    tricks._chains_fit_each = tricks._one_chain
if variant == "nogate":
    tricks.gated = lambda need, f, g, *a, **k: f(*a)
env = cardjax.make("tractor")
def run(key):
    s = jax.vmap(env.init)(jax.random.split(key, B))
    def one(s, k):
        a = jax.vmap(env.random_action)(jax.random.split(k, B), s)
        return jax.vmap(env.step)(s, a), None
    return jax.lax.scan(one, s, jax.random.split(key, 300))[0]
f = jax.jit(run)
t = time.perf_counter(); c = f.lower(jax.random.key(0)).compile(); tc = time.perf_counter() - t
jax.block_until_ready(c(jax.random.key(1)))
ts = []
for i in range(3):
    t = time.perf_counter(); out = jax.block_until_ready(c(jax.random.key(2 + i))); ts.append(time.perf_counter() - t)
print(f"{variant} B={B}: compile {tc:.1f}s run {min(ts)*1e3:.0f} ms / 300 steps, {B*300/min(ts)/1e3:.0f} k steps/s, ended {int(out.terminated.sum())}")
