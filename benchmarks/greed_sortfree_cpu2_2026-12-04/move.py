"""Mr Greed's move on 256 mid-game positions at once, and its 20 sampled worlds alone, at LLVM
level 1 (best of 5).  python move.py"""
import time, jax, jax.numpy as jnp, cardjax
from cardjax import agents
from cardjax.games.gongzhu import mr_greed
env = cardjax.make("gongzhu"); B = 256
greed = agents.get(env, "greed")
s = jax.vmap(env.init)(jax.random.split(jax.random.key(0), B))
step = jax.jit(jax.vmap(env.step)); ra = jax.jit(jax.vmap(env.random_action))
k = jax.random.key(1)
for i in range(17):
    k, kk = jax.random.split(k); s = step(s, ra(jax.random.split(kk, B), s))
def bench(name, f):
    g = jax.jit(f, compiler_options={"xla_backend_optimization_level": 1}); jax.block_until_ready(g(s)); best = 9
    for _ in range(5):
        t = time.perf_counter(); jax.block_until_ready(g(s)); best = min(best, time.perf_counter() - t)
    print(f"{name:20s} {best*1e3:8.2f} ms / {B} games")
keys = jax.random.split(jax.random.key(2), B)
bench("greed act", lambda s: jax.vmap(greed.act, in_axes=(None, 0, 0))(None, keys, s))
bench("sample_hidden x20", lambda s: jax.vmap(lambda k, st: jax.vmap(env.sample_hidden, in_axes=(0, None, None))(jax.random.split(k, 20), st, st.current_player)._owner)(keys, s))
bench("if act", lambda s: jax.vmap(agents.get(env, "if").act, in_axes=(None, 0, 0))(None, keys, s))
