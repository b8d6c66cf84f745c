"""A shipped player's cost a move as the web table pays it: ``act`` on one state (jitted once),
every seat played by the player through whole games; milliseconds per call after the first game
(its compile), median and largest.  Tractor unless ``--game G`` comes first.

    python benchmarks/tractor_grow2_cpu2_2026-12-05/move_cost.py tractor-pretrained OTHER_DIR
    python benchmarks/tractor_grow2_cpu2_2026-12-05/move_cost.py --game gongzhu scrofazero-pretrained
"""

import json
import sys
import time

import jax
import numpy as np

import cardjax
from cardjax import agents

words = sys.argv[1:]
game = "tractor"
if words[:1] == ["--game"]:
    game, words = words[1], words[2:]
env = cardjax.make(game)
step = jax.jit(env.step)
out = {}
for word in words:
    player = agents.load(env, word)
    times, first = [], None
    for game in range(3):
        state = env.init(jax.random.PRNGKey(100 + game))
        key = jax.random.PRNGKey(game)
        n = 0
        while not bool(state.terminated):
            key, k = jax.random.split(key)
            t = time.perf_counter()
            a = player.act(player.params, k, state)
            a = int(a)
            dt = time.perf_counter() - t
            if game == 0 and first is None:
                first = dt
            elif game > 0:
                times.append(dt)
            state = step(state, a)
            n += 1
    ms = np.array(times) * 1e3
    out[word] = {"first_call_s": round(first, 2), "calls": len(ms),
                 "median_ms": round(float(np.median(ms)), 2),
                 "p99_ms": round(float(np.percentile(ms, 99)), 2),
                 "max_ms": round(float(ms.max()), 2)}
    print(word, out[word], flush=True)
print(json.dumps(out))
