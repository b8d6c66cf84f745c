"""Cold compile of the Tractor step and of its parts, each jitted alone under ``vmap``: trace,
lower and XLA seconds and the optimized program's size.

    python benchmarks/compile_cpu2_2026-12-01/tractor_step_parts.py [HANDS] [PART,PART,...]

The parts reuse the step's traced inner functions, so only the XLA column compares."""

import sys
import time

import jax
import jax.numpy as jnp

import cardjax
from cardjax.games.tractor import legal, moves, tricks

jax.config.update("jax_enable_compilation_cache", False)

env = cardjax.make("tractor")
V = jax.vmap
PARTS = {
    "step": lambda s, a: V(env.step)(s, a),
    "legal_mask": lambda s, a: V(lambda x: legal.legal_mask(x, True))(s),
    "end_lead": lambda s, a: V(lambda x: env._end_lead(x, True))(s),
    "end_follow": lambda s, a: V(lambda x: env._end_follow(x, True))(s),
    "end_trick": lambda s, a: V(lambda x: env._end_trick(x, True))(s),
    "declare": lambda s, a: V(env._declare)(s, a),
    "bury": lambda s, a: V(env._bury)(s, a),
    "chaodi": lambda s, a: V(env._chaodi_step)(s, a),
    "winner_at": lambda s, a: V(lambda x: tricks.winner_at(
        x.trick, x.leader, x.lead_tractors, x.lead_pairs, x.level, x.trump))(s),
    "throw_check_at": lambda s, a: V(lambda x: tricks.throw_check_at(
        moves.pad(x.trick[0]), x._hands, x.current_player, x.level, x.trump))(s),
    "longest_tractor": lambda s, a: V(lambda x: moves.longest_tractor(
        moves.pad(x.trick[0]), x.level, x.trump))(s),
}


def cost(name, fn, *args):
    t0 = time.perf_counter()
    traced = jax.jit(fn).trace(*args)
    t1 = time.perf_counter()
    lowered = traced.lower()
    t2 = time.perf_counter()
    compiled = lowered.compile()
    t3 = time.perf_counter()
    print(f"{name:16s} trace {t1 - t0:5.2f} lower {t2 - t1:5.2f} xla {t3 - t2:6.2f}  "
          f"{len(compiled.as_text()) / 1024:8.0f} KB", flush=True)


if __name__ == "__main__":
    hands = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    names = sys.argv[2].split(",") if len(sys.argv) > 2 else list(PARTS)
    states = V(env.init)(jax.random.split(jax.random.PRNGKey(0), hands))
    actions = jnp.zeros(hands, jnp.int32)
    for name in names:
        cost(name, PARTS[name], states, actions)
