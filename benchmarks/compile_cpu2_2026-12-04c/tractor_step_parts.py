import os, sys, time
os.environ["XLA_FLAGS"] = os.environ.get("CARDJAX_TEST_XLA_FLAGS", "")
import jax, jax.numpy as jnp
import cardjax
from cardjax.games.tractor import tricks, env as T
variant = sys.argv[1]
kw = {}
if variant == "nothrows": kw = dict(throws=False)
if variant == "nowinner":
    tricks.winner_at = tricks.no_winner
    T.tricks.winner_at = tricks.no_winner
if variant == "onechain":
    tricks._chains_fit_each = tricks._one_chain
if variant == "nogate":
    import cardjax.gate as G
    tricks.gated = lambda need, f, g, *a, **k: f(*a)
if variant == "nolegal":
    T.Tractor._legal_mask = lambda self, s: jnp.ones(66, bool)
env = cardjax.make("tractor", **kw)
s = jax.vmap(env.init)(jax.random.split(jax.random.key(0), 64))
f = jax.jit(jax.vmap(env._step_impl))
t = time.perf_counter()
lowered = f.lower(s, jnp.zeros(64, jnp.int32))
t1 = time.perf_counter()
c = lowered.compile()
t2 = time.perf_counter()
hlo = len(c.as_text())
print(f"{variant}: lower {t1-t:.2f}s compile {t2-t1:.2f}s hlo {hlo/1e3:.0f} KB")
