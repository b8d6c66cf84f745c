import time, jax, jax.numpy as jnp, numpy as np, cardjax
from cardjax.games.tractor import env as tractor_env
from cardjax.games.tractor import state_facts as tractor
from cardjax.games.tractor import tricks
from cardjax.games.tractor import moves as tm
from cardjax.gate import gated
env = cardjax.make("tractor")
def _old_w(trick, seat, leader, tractors, pairs, level, trump):
    eff, order, slot = tm.context(level, trump)
    def one(c):
        plays = trick.astype(jnp.int32).at[seat, c].add(1)
        return tricks.trick_winner(tm.pad(plays), leader, tractors, pairs, eff, order, slot)
    return jax.vmap(one)(jnp.arange(54))
def old(state):
    seat = state.current_player
    completes = ((state.phase == tractor_env.PLAY) & (state.num_in_trick > 0)
                 & (jnp.sum(state.trick[seat], dtype=jnp.int32) + 1 == state.lead_n))
    held = gated(completes, _old_w, tractor._no_winners, state.trick, seat, state.leader,
                 state.lead_tractors, state.lead_pairs, state.level, state.trump)
    return jnp.where(completes, held, -1)
B = 1024
@jax.jit
def advance(key):
    s = jax.vmap(env.init)(jax.random.split(key, B))
    def body(s, k):
        a = jax.vmap(lambda st, kk: jax.random.categorical(kk, jnp.where(st.legal_action_mask, 0.0, -1e9)))(s, jax.random.split(k, B))
        return jax.vmap(env.step)(s, a), None
    return jax.lax.scan(body, s, jax.random.split(key, 180))[0]
s = advance(jax.random.PRNGKey(1))
print("completing:", int(jnp.sum(jnp.any(jax.vmap(old)(s) >= 0, axis=1))), "of", B)
for name, f in (("new", jax.jit(jax.vmap(tractor.completing_holders))), ("old", jax.jit(jax.vmap(old)))):
    f(s).block_until_ready(); t = time.perf_counter()
    for _ in range(5): f(s).block_until_ready()
    print(name, round((time.perf_counter() - t) / 5 * 1000, 1), "ms")
