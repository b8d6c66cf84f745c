"""Mr Greed against Mr Random on 256 duplicate deals, three times in one process (the first
compiles or loads the program): the seconds of each.  python match.py"""
import time, cardjax
from cardjax import agents
from cardjax.eval.arena import duplicate_match
g = cardjax.make("gongzhu")
greed, rnd = agents.get(g, "greed"), agents.get(g, "random")
ts = []
for i in range(3):
    t = time.perf_counter(); r = duplicate_match(g, greed, rnd, deals=256, seed=11 + i, progress=False); ts.append(time.perf_counter() - t)
print([round(x, 1) for x in ts], round(r["mean"], 1))
