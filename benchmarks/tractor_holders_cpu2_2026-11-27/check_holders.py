import time, jax, jax.numpy as jnp, numpy as np, cardjax
from cardjax.games.tractor import env as tractor_env
from cardjax.games.tractor import state_facts as tractor
from cardjax.games.tractor import tricks
from cardjax.games.tractor import moves as tm
env = cardjax.make("tractor")
def old(state):
    seat = state.current_player
    completes = ((state.phase == tractor_env.PLAY) & (state.num_in_trick > 0)
                 & (jnp.sum(state.trick[seat], dtype=jnp.int32) + 1 == state.lead_n))
    eff, order, slot = tm.context(state.level, state.trump)
    def one(c):
        plays = state.trick.astype(jnp.int32).at[seat, c].add(1)
        return tricks.trick_winner(tm.pad(plays), state.leader, state.lead_tractors, state.lead_pairs, eff, order, slot)
    return jnp.where(completes, jax.vmap(one)(jnp.arange(54)), -1)
B = 256
@jax.jit
def run(key):
    s = jax.vmap(env.init)(jax.random.split(key, B))
    def body(c, k):
        s = c
        a = jax.vmap(lambda st, kk: jax.random.categorical(kk, jnp.where(st.legal_action_mask, 0.0, -1e9)))(s, jax.random.split(k, B))
        n, o = jax.vmap(tractor.completing_holders)(s), jax.vmap(old)(s)
        bad = jnp.sum(jnp.any(n != o, axis=1) & ~s.terminated)
        live = jnp.sum(jnp.any(o >= 0, axis=1) & ~s.terminated)
        multi = jnp.sum(jnp.any(o >= 0, axis=1) & ~s.terminated & (s.lead_n > 1))
        return jax.vmap(env.step)(s, a), jnp.stack([bad, live, multi])
    return jax.lax.scan(body, s, jax.random.split(key, 400))[1].sum(0)
for seed in range(3):
    print(np.asarray(run(jax.random.PRNGKey(seed))))
# timing on CPU: completing_holders on a batch of states mid-game
s = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 2048))
for name, f in (("new", jax.jit(jax.vmap(tractor.completing_holders))), ("old", jax.jit(jax.vmap(old)))):
    f(s).block_until_ready(); t = time.perf_counter()
    for _ in range(5): f(s).block_until_ready()
    print(name, (time.perf_counter() - t) / 5)
