"""Where a Dou Dizhu random move goes (``moves.pick_legal``), on one device, measured as in
``step_parts.py`` (1,024 mid-playout states rolled by the loop index, R repetitions in one
jitted loop, ns per game, best of 5; the roll alone subtracted).

    python pick_parts.py
"""
import time
import jax
import jax.numpy as jnp
import cardjax
import cardjax.commands.bench.playout as playout
from cardjax import gate, legal_words
from cardjax.games.doudizhu import moves as m

B, R = 1024, 64
env = cardjax.make("doudizhu")
run = playout.make_playout(env, playout.BLOCK["doudizhu"], 1)
state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), B))
state = run(state, jax.random.PRNGKey(1), 3)[0]
u0 = jax.random.uniform(jax.random.PRNGKey(2), (B,))
hands = jax.vmap(lambda s: s._hands[s.current_player])(state).astype(jnp.int32)
beat = state.to_beat


def loop(body):
    @jax.jit
    def f(u, hands, beat):
        def one(i, acc):
            u_, h, b = (jnp.roll(x, i, 0) for x in (u, hands, beat))
            return acc + body(u_, h, b) + h[:, 0] + b + (u_ > 0.5)
        return jax.lax.fori_loop(0, R, one, jnp.zeros((B,), jnp.int32))
    return f


def held_words(u, h, b):
    lo1, hi1, lo2 = m._ranges(b)
    first = jnp.minimum(lo1 // 32, m.NUM_WORDS - m.WINDOW_WORDS)
    ids = jnp.concatenate([first + jnp.arange(m.WINDOW_WORDS), jnp.array([m._TAIL_FIRST])])
    return jnp.sum(jax.lax.population_count(m._held_in(h, ids)), dtype=jnp.int32)


def pick_in_only(u, h, b):
    words = jnp.full((m.WINDOW_WORDS + 1,), 0x01010101, jnp.uint32) << (h[0] & 7).astype(jnp.uint32)
    return legal_words.pick_in(words, jnp.arange(m.WINDOW_WORDS + 1), u)


def same(u, h, b):
    return gate.gated(m._reads_every_word(h, b), m._pick_in_window, m._pick_in_window, u, h, b,
                      share=m._EVERY_WORD_SHARE)


parts = {
    "nothing (the roll)": lambda u, h, b: jnp.int32(0),
    "pick_legal": m.pick_legal,
    "the window path, every game": m._pick_in_window,
    "  its held words (one gather)": held_words,
    "  pick_in on 16 words": pick_in_only,
    "the gate's test": lambda u, h, b: m._reads_every_word(h, b).astype(jnp.int32),
    "the gate, the window path both ways": same,
    "every word, every game": m._pick_every_word,
}
for name, body in parts.items():
    f = loop(jax.vmap(body))
    jax.block_until_ready(f(u0, hands, beat))
    best = 1e9
    for _ in range(5):
        t = time.perf_counter()
        jax.block_until_ready(f(u0, hands, beat))
        best = min(best, time.perf_counter() - t)
    print(f"{name:40s} {best / R / B * 1e9:8.1f} ns per game")

