"""Cold compile of the Tractor step's parts: trace / lower / XLA seconds and optimized KB."""
import sys, time
import jax, jax.numpy as jnp
jax.config.update("jax_enable_compilation_cache", False)
import cardjax
from cardjax.games.tractor import tricks, moves as tm, legal as tl

env = cardjax.make("tractor")
N = int(sys.argv[1]) if len(sys.argv) > 1 else 64
keys = jax.random.split(jax.random.PRNGKey(0), N)
s = jax.vmap(env.init)(keys)
a = jnp.zeros(N, jnp.int32)

def cost(name, fn, *args):
    t0 = time.perf_counter(); tr = jax.jit(fn).trace(*args)
    t1 = time.perf_counter(); lo = tr.lower()
    t2 = time.perf_counter(); co = lo.compile()
    t3 = time.perf_counter()
    eqns = len(tr.jaxpr.jaxpr.eqns)
    print(f"{name:28s} trace {t1-t0:5.2f} lower {t2-t1:5.2f} xla {t3-t2:6.2f}  "
          f"{len(co.as_text())/1024:8.0f} KB", flush=True)

V = jax.vmap
parts = {
    "step": lambda s, a: V(env.step)(s, a),
    "step_impl(no mask)": None,
    "legal_mask": lambda s, a: V(lambda x: tl.legal_mask(x, True))(s),
    "end_lead(throws)": lambda s, a: V(lambda x: env._end_lead(x, True))(s),
    "end_follow(+trick,hand)": lambda s, a: V(lambda x: env._end_follow(x, True))(s),
    "end_trick": lambda s, a: V(lambda x: env._end_trick(x, True))(s),
    "declare": lambda s, a: V(env._declare)(s, a),
    "bury": lambda s, a: V(env._bury)(s, a),
    "chaodi": lambda s, a: V(env._chaodi_step)(s, a),
}
which = sys.argv[2].split(",") if len(sys.argv) > 2 else list(parts)
for k in which:
    if parts.get(k) is not None:
        cost(k, parts[k], s, a)
# the leaves
from cardjax.games.tractor import tricks as TR
def winner(s, a):
    return V(lambda x: TR.winner_at(x.trick, x.leader, x.lead_tractors, x.lead_pairs, x.level, x.trump))(s)
def throwc(s, a):
    return V(lambda x: TR.throw_check_at(tm.pad(x.trick[0]), x._hands, x.current_player, x.level, x.trump))(s)
def tract(s, a):
    return V(lambda x: tm.tractors_at(tm.pad(x.trick[0]), x.level, x.trump))(s)
for name, fn in (("winner_at", winner), ("throw_check_at", throwc), ("tractors_at", tract)):
    if "leaves" in sys.argv[2:]:
        cost(name, fn, s, a)
