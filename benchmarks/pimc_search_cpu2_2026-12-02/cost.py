"""Cost of a PIMC move with and without a search in each world (``search=N``): compile seconds
and milliseconds a move, for a batch of mid-game positions played at once.

    python benchmarks/pimc_search_cpu2_2026-12-02/cost.py --game gongzhu \
        --players "pimc:worlds=8,playout=if,candidates=13" \
                  "pimc:worlds=8,playout=if,candidates=13,search=8" --batch 16
"""

import argparse
import json
import time

import jax
import numpy as np

import cardjax
from cardjax import agents

p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
p.add_argument("--game", default="gongzhu")
p.add_argument("--players", nargs="+", required=True)
p.add_argument("--batch", type=int, default=16)
p.add_argument("--moves", type=int, default=12, help="random moves played before the positions")
p.add_argument("--repeats", type=int, default=3)
p.add_argument("--out")
args = p.parse_args()

env = cardjax.make(args.game)


@jax.jit
def positions(key):
    def one(k):
        s = env.init(k)
        for i in range(args.moves):
            s = env.step(s, env.random_action(jax.random.fold_in(k, i), s))
        return s
    return jax.vmap(one)(jax.random.split(key, args.batch))


states = positions(jax.random.PRNGKey(0))
rows = []
for word in args.players:
    player = agents.load(env, word)
    act = jax.jit(jax.vmap(player.act, in_axes=(None, 0, 0)))
    keys = jax.random.split(jax.random.PRNGKey(1), args.batch)
    t = time.perf_counter()
    act.lower(player.params, keys, states).compile()
    compile_s = time.perf_counter() - t
    times = []
    for r in range(args.repeats):
        t = time.perf_counter()
        np.asarray(act(player.params, jax.random.split(jax.random.PRNGKey(2 + r), args.batch),
                       states))
        times.append(time.perf_counter() - t)
    ms = 1000 * float(np.median(times)) / args.batch
    rows.append({"player": word, "compile_s": round(compile_s, 1), "ms_a_move": round(ms, 1)})
    print(f"{word}: compile {compile_s:.1f} s, {ms:.1f} ms a move ({args.batch} at once)",
          flush=True)
if args.out:
    with open(args.out, "w") as f:
        json.dump({"game": args.game, "batch": args.batch, "moves": args.moves,
                   "device": jax.devices()[0].device_kind, "rows": rows}, f, indent=1)
