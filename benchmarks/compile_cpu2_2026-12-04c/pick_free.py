import time, numpy as np, jax, jax.numpy as jnp
import cardjax
from cardjax.games.doudizhu import moves as m
from cardjax import legal_words as lw
BITS = 32

def _at(x, i):  # x[..., i] without a gather: a one-hot sum over the last axis
    return jnp.sum(jnp.where(jnp.arange(x.shape[-1]) == i, x, 0), axis=-1, dtype=x.dtype)

def pick_free(words, u):
    nw = words.shape[-1]
    blocks = -(-nw // BITS)
    per_word = jax.lax.population_count(words).astype(jnp.int32).reshape(blocks, BITS)
    per_block = jnp.sum(per_word, axis=1)
    upto = lw.running_sum(per_block)
    total = upto[-1]
    k = jnp.minimum(jnp.floor(u * total).astype(jnp.int32), total - 1)
    block = jnp.minimum(jnp.sum(upto <= k), blocks - 1)
    k_in = k - _at(upto - per_block, block)
    onehot = (jnp.arange(blocks) == block)[:, None]
    row = jnp.sum(jnp.where(onehot, per_word, 0), axis=0)          # per_word[block]
    wrow = jnp.sum(jnp.where(onehot, words.reshape(blocks, BITS), 0), axis=0, dtype=jnp.uint32)  # words of the block
    up2 = lw.running_sum(row)
    off = jnp.minimum(jnp.sum(up2 <= k_in), BITS - 1)
    rank = k_in - _at(up2 - row, off)
    w = _at(wrow, off)
    return ((block * BITS + off) * BITS + lw._select_in_word(w, rank)).astype(jnp.int32)

env = cardjax.make("doudizhu")
B = 256
s = jax.vmap(env.init)(jax.random.split(jax.random.key(0), B))
hands = s._hands[jnp.arange(B), s.current_player]
u = jax.random.uniform(jax.random.key(1), (B,))
beat = jnp.full(B, -1, jnp.int32)
words = jax.jit(jax.vmap(m.legal_words_of))(hands, beat)
a = jax.jit(jax.vmap(lw.pick))(words, u); b = jax.jit(jax.vmap(pick_free))(words, u)
us = jnp.concatenate([u, jnp.array([0.0, 0.9999999])]); wd = jnp.concatenate([words, words[:2]])
assert np.array_equal(np.asarray(jax.jit(jax.vmap(lw.pick))(wd, us)), np.asarray(jax.jit(jax.vmap(pick_free))(wd, us)))
print("same picks")
fs = {"pick": (jax.jit(jax.vmap(lw.pick)), (words, u)), "pick_free": (jax.jit(jax.vmap(pick_free)), (words, u)),
      "first word only": (jax.jit(jax.vmap(lambda w, u: w[0].astype(jnp.int32) + u.astype(jnp.int32))), (words, u)),
      "popcount only": (jax.jit(jax.vmap(lambda w: jax.lax.population_count(w).astype(jnp.int32).reshape(27,32).sum(1))), (words,))}
ts = {k: [] for k in fs}
for i in range(300):
    for k, (g, a) in fs.items():
        t = time.perf_counter(); jax.block_until_ready(g(*a)); ts[k].append(time.perf_counter() - t)
for k, v in ts.items(): print(f"{k}: min {np.min(v)*1e6:.0f} us, p25 {np.percentile(v,25)*1e6:.0f} us")
