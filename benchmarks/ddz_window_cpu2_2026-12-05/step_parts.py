"""Where a Dou Dizhu random-playout step goes, on one device: 1,024 states taken mid-playout
(after 3 blocks of the benchmark's playout, so leads, follows and fresh deals are mixed), each
part repeated R times inside one jitted loop on the states rolled along the batch by the loop index
(so XLA cannot hoist the work out of the loop; the roll alone is a row of its own), ns per game per
repetition, best of 5.

    python step_parts.py
"""
import time
import jax
import jax.numpy as jnp
import cardjax
import cardjax.commands.bench.playout as playout

B, R = 1024, 64
env = cardjax.make("doudizhu")
run = playout.make_playout(env, playout.BLOCK["doudizhu"], 1)
state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), B))
state = run(state, jax.random.PRNGKey(1), 3)[0]
u0 = jax.random.uniform(jax.random.PRNGKey(2), (B,))
pick = jax.vmap(env.pick_action)
step = jax.vmap(env.step)
actions = pick(u0, state)


def loop(body):
    @jax.jit
    def f(state, u, actions):
        def one(i, acc):
            rolled = jax.tree_util.tree_map(lambda x: jnp.roll(x, i, 0), (state, u, actions))
            return acc + body(*rolled, i)
        return jax.lax.fori_loop(0, R, one, jnp.zeros((B,), jnp.int32))
    return f


def used(s):  # every field of a state, so that none of its work is dropped
    return sum(jnp.sum(x.reshape(B, -1), axis=1, dtype=jnp.int32)
               for x in jax.tree_util.tree_leaves(s) if x.dtype != bool)


parts = {
    "the roll alone": loop(lambda s, u, a, i: used(s) + (u > 0.5)),
    "pick_action": loop(lambda s, u, a, i: used(s) + pick(u, s)),
    "step (the actions given)": loop(lambda s, u, a, i: used(step(s, a))),
    "pick + step": loop(lambda s, u, a, i: used(step(s, pick(u, s)))),
    "uniforms (one key per block of 8 steps)": loop(
        lambda s, u, a, i: used(s) + (jax.random.uniform(jax.random.fold_in(
            jax.random.PRNGKey(0), i), (B,)) > u)),
    "reset_finished": loop(lambda s, u, a, i: used(cardjax.core.reset_finished(
        s, env.init, jax.random.fold_in(jax.random.PRNGKey(0), i)))),
}
for name, f in parts.items():
    jax.block_until_ready(f(state, u0, actions))
    best = 1e9
    for _ in range(5):
        t = time.perf_counter()
        jax.block_until_ready(f(state, u0, actions))
        best = min(best, time.perf_counter() - t)
    print(f"{name:45s} {best / R / B * 1e9:8.1f} ns per game")
