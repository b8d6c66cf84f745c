import time, numpy as np, jax, jax.numpy as jnp
import cardjax
from cardjax.games.doudizhu import moves as m
from cardjax import legal_words as lw
env = cardjax.make("doudizhu")
B = 256
s = jax.vmap(env.init)(jax.random.split(jax.random.key(0), B))
hands = s._hands[jnp.arange(B), s.current_player]
u = jax.random.uniform(jax.random.key(1), (B,))
beat = jnp.full(B, -1, jnp.int32)
words = jax.jit(jax.vmap(m.legal_words_of))(hands, beat)
fs = {
 "held_words": (jax.jit(jax.vmap(m.held_words)), (hands,)),
 "legal_words_of": (jax.jit(jax.vmap(m.legal_words_of)), (hands, beat)),
 "pick(864)": (jax.jit(jax.vmap(lw.pick)), (words, u)),
 "popcount only": (jax.jit(jax.vmap(lambda w: jax.lax.population_count(w).astype(jnp.int32).reshape(27,32).sum(1))), (words,)),
 "every": (jax.jit(jax.vmap(m._pick_every_word)), (u, hands, beat)),
 "outside": (jax.jit(jax.vmap(m._pick_lead_without_planes)), (u, hands, beat)),
}
ts = {k: [] for k in fs}
for k, (g, a) in fs.items(): jax.block_until_ready(g(*a))
for i in range(300):
    for k, (g, a) in fs.items():
        t = time.perf_counter(); jax.block_until_ready(g(*a)); ts[k].append(time.perf_counter() - t)
for k, v in ts.items(): print(f"{k}: min {np.min(v)*1e6:.0f} us, p25 {np.percentile(v,25)*1e6:.0f} us")
