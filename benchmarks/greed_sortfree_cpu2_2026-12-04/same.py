"""A digest of Mr Greed's moves and of sample_hidden's worlds over a whole game of 128 deals:
equal before and after the sort-free code.  python same.py"""
import hashlib, jax, jax.numpy as jnp, numpy as np, cardjax
from cardjax import agents
env = cardjax.make("gongzhu"); B = 128
greed = agents.get(env, "greed")
s = jax.vmap(env.init)(jax.random.split(jax.random.key(0), B))
step = jax.jit(jax.vmap(env.step)); ra = jax.jit(jax.vmap(env.random_action))
act = jax.jit(jax.vmap(greed.act, in_axes=(None, 0, 0)))
hid = jax.jit(jax.vmap(lambda k, st: env.sample_hidden(k, st, st.current_player)._owner))
h = hashlib.sha256(); k = jax.random.key(1)
for i in range(52):
    k, k1, k2, k3 = jax.random.split(k, 4)
    h.update(np.asarray(act(None, jax.random.split(k2, B), s)).tobytes())
    h.update(np.asarray(hid(jax.random.split(k3, B), s)).tobytes())
    s = step(s, ra(jax.random.split(k1, B), s))
print(h.hexdigest()[:16])
