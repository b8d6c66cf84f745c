"""Dou Dizhu random playouts (the benchmark's playout, one device, 1,024 games): OLD, the pick of
2026-12-04 (a follow reads 4 words; every lead and wide follow builds the 864-word set, a quarter
of the batch at a time), against NEW, ``moves.pick_legal`` (a window of 15 words and the tail in one gather for follows and
for leads from hands without adjacent trios or four of a rank; the rest, a 32nd of the batch at a
time), alternated in one process; also each program's first call (compile) and the share.

    python window_ab.py [CALLS] [SHARE ...]
"""
import statistics, sys, time
import jax
import jax.numpy as jnp
import cardjax
import cardjax.commands.bench.playout as playout
from cardjax import gate, legal_words
from cardjax.games.doudizhu import moves as m

FOLLOW_WORDS = 4


def held_at(hand, first, n):  # the old code's words first .. first + n - 1 of held_words
    cols = jnp.asarray(first, jnp.int32) + jnp.arange(n, dtype=jnp.int32)
    return m._held_in(hand, cols) & legal_words.span(0, m.NUM_ACTIONS, n, first)


def old_every(to_beat):
    lo1, hi1, _ = m._ranges(to_beat)
    following = (to_beat >= 0) & (to_beat != m.PASS)
    span_words = (hi1 - 1) // 32 - lo1 // 32 + 1
    return ~following | ((hi1 > lo1) & (span_words > FOLLOW_WORDS))


def old_follow(u, hand, to_beat):
    lo1, hi1, lo2 = m._ranges(to_beat)
    first = jnp.minimum(lo1 // 32, m.NUM_WORDS - FOLLOW_WORDS)
    same = held_at(hand, first, FOLLOW_WORDS) & legal_words.span(lo1, hi1, FOLLOW_WORDS, first)
    tail = (held_at(hand, m._TAIL_FIRST, m._TAIL_WORDS)
            & legal_words.span(lo2, m.NUM_ACTIONS, m._TAIL_WORDS, m._TAIL_FIRST))
    ids = jnp.concatenate([first + jnp.arange(FOLLOW_WORDS, dtype=jnp.int32),
                           m._TAIL_FIRST + jnp.arange(m._TAIL_WORDS, dtype=jnp.int32)])
    return legal_words.pick_in(jnp.concatenate([same, tail]), ids, u)


def old_pick(u, hand, to_beat):
    return gate.gated(old_every(to_beat), m._pick_every_word, old_follow, jnp.asarray(u, jnp.float32),
                      jnp.asarray(hand), jnp.asarray(to_beat, jnp.int32), share=4)


def new_pick(share):
    def pick(u, hand, to_beat):
        return gate.gated(m._reads_every_word(hand, to_beat), m._pick_every_word, m._pick_in_window,
                          jnp.asarray(u, jnp.float32), jnp.asarray(hand),
                          jnp.asarray(to_beat, jnp.int32), share=share)
    return pick


calls = int(sys.argv[1]) if len(sys.argv) > 1 else 8
shares = [int(x) for x in sys.argv[2:]] or [m._EVERY_WORD_SHARE]
B = 1024
env = cardjax.make("doudizhu")
block = playout.BLOCK["doudizhu"]
variants = {"old": old_pick, **{f"new/{s}": new_pick(s) for s in shares}}
runs, compile_s = {}, {}
for tag, pick in variants.items():
    m.pick_legal = pick
    run = playout.make_playout(env, block, 1)
    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), B))
    t = time.perf_counter()
    jax.block_until_ready(run(state, jax.random.PRNGKey(1), 2))
    compile_s[tag] = round(time.perf_counter() - t, 1)
    runs[tag] = (run, state)
rates = {tag: [] for tag in variants}
order = list(variants)
for i in range(calls):
    for tag in (order if i % 2 == 0 else order[::-1]):
        run, state = runs[tag]
        t = time.perf_counter()
        out = jax.block_until_ready(run(state, jax.random.PRNGKey(i), 40))
        rates[tag].append(int(out[-1]) / (time.perf_counter() - t) / 1e6)
print(jax.devices()[0].device_kind, "first call (compile) s:", compile_s)
print("M steps/s, medians:", {k: round(statistics.median(v), 3) for k, v in rates.items()})
print("sorted:", {k: [round(x, 3) for x in sorted(v)] for k, v in rates.items()})
