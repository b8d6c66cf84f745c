"""The Dou Dizhu playout (one device, 1,024 games, blocks of 8) with its random move replaced:
``real`` (moves.pick_legal), ``cheap`` (pass when following, the lowest solo when leading: the
cost of everything but the move), and the window path alone without the gate (not the same games:
leads that could play an airplane pick among the window's moves only).

    python playout_floor.py
"""
import time, jax, jax.numpy as jnp, cardjax
import cardjax.commands.bench.playout as playout
from cardjax.games.doudizhu import moves as m
env = cardjax.make("doudizhu")
real = m.pick_legal
def cheap(u, hand, to_beat):
    following = (to_beat >= 0) & (to_beat != m.PASS)
    lowest = jnp.argmax(hand > 0).astype(jnp.int32)  # a solo id is its rank
    return jnp.where(following & (u < 0.5), m.PASS, jnp.where(following, m.PASS, lowest))
for tag, f in (("real", real), ("cheap", cheap), ("window only (no gate)", m._pick_in_window)):
    m.pick_legal = f
    B = 1024
    run = playout.make_playout(env, 8, 1)
    st = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), B))
    jax.block_until_ready(run(st, jax.random.PRNGKey(1), 2))
    r = []
    for i in range(5):
        t = time.perf_counter(); out = jax.block_until_ready(run(st, jax.random.PRNGKey(i), 40)); r.append(int(out[-1]) / (time.perf_counter() - t) / 1e6)
    print(tag, round(max(r), 3), "M steps/s one device,", round(1e3 / max(r), 1), "ns/step")
