"""The several-tractor structure test against an exhaustive search over the path table, on random
trump-suit pair sets with four to six tractors (where the earlier best-fit packing could miss a
packing).  Run from the repository root: prints the cases, how many fit and how many the code on
the path misses (run it on an older tree with PYTHONPATH to count that tree's misses)."""
import sys

import jax
import numpy as np

sys.path[:0] = ["tests/unit", "tests"]
from cardjax.games.tractor import moves as tm
from test_tractor import _np_chains_fit, _np_paths

fit = jax.jit(jax.vmap(lambda p, s, lv, tr, it: tm.chains_fit(p, s, tm.context(lv, tr)[2], it)))
rng = np.random.default_rng(0)
n = 20000
lv, tr = rng.integers(13, size=n), rng.integers(5, size=n)
suit = np.full(n, 4)
pairs = np.zeros((n, tm.PAD), bool)
items = np.zeros((n, tm.MAX_TRACTORS), np.int32)
for i in range(n):
    types = np.flatnonzero(tm.EFF[lv[i], tr[i], :54] == 4)
    pairs[i, types[rng.random(len(types)) < rng.uniform(0.5, 0.9)]] = True
    k = rng.integers(4, 7)
    items[i, :k] = sorted(rng.integers(2, 6, size=k), reverse=True)
got = np.asarray(fit(pairs, suit, lv, tr, items))
want = np.array([_np_chains_fit(frozenset(np.flatnonzero(pairs[i]).tolist()),
                                [x for x in items[i] if x], *_np_paths(int(lv[i]), int(tr[i]), 4))
                 for i in range(n)])
assert not np.any(got & ~want), "a packing found where there is none"
print(f"{n} cases, {want.sum()} fit, missed {int(np.sum(want & ~got))}")
