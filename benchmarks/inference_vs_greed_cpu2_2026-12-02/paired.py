"""Two players against the same opponent on the same duplicate deals, and their difference deal
by deal (a paired standard error): does A beat the opponent by more than B does?

    python benchmarks/inference_vs_greed_cpu2_2026-12-02/paired.py --game gongzhu \
        --a "pimc:worlds=8,playout=if,candidates=13,inference=NET" \
        --b "pimc:worlds=8,playout=if,candidates=13" --opponent greed --deals 512 --seed 5353

``--b_from FILE`` takes B's deals from an earlier ``--out`` of the same game, opponent, deals and
seed instead of playing them again.
"""

import argparse
import json

import numpy as np

import cardjax
from cardjax import agents
from cardjax.eval.arena import duplicate_match

p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
p.add_argument("--game", default="gongzhu")
p.add_argument("--a", required=True)
p.add_argument("--b")
p.add_argument("--b_from",
               help="an earlier --out whose B (same game, opponent, deals, seed) is reused")
p.add_argument("--opponent", default="greed")
p.add_argument("--deals", type=int, default=512)
p.add_argument("--seed", type=int, required=True)
p.add_argument("--out")
args = p.parse_args()
if (args.b is None) == (args.b_from is None):
    p.error("give --b or --b_from")

env = cardjax.make(args.game)
opp = agents.load(env, args.opponent)
res = {}
if args.b_from:
    with open(args.b_from) as f:
        old = json.load(f)
    same = (old["game"], old["opponent"], old["seed"], len(old["b"]["per_deal"]))
    if same != (args.game, args.opponent, args.seed, args.deals):
        p.error(f"--b_from {args.b_from}: game, opponent, seed, deals {same}, not "
                f"{(args.game, args.opponent, args.seed, args.deals)}")
    res["b"] = old["b"]
for name, word in (("a", args.a), ("b", args.b)):
    if word is None:
        continue
    r = duplicate_match(env, agents.load(env, word), opp, deals=args.deals, seed=args.seed,
                        per_deal=True)
    res[name] = {"player": word, "mean": r["mean"], "stderr": r["stderr"],
                 "per_deal": [float(x) for x in r["per_deal"]]}
    print(f"{word} vs {args.opponent}: {r['mean']:+.2f} ± {r['stderr']:.2f}", flush=True)
d = np.asarray(res["a"]["per_deal"]) - np.asarray(res["b"]["per_deal"])
diff = {"mean": float(d.mean()), "stderr": float(d.std(ddof=1) / np.sqrt(d.size)),
        "deals": int(d.size)}
print(f"a - b, paired over {d.size} deals: {diff['mean']:+.2f} ± {diff['stderr']:.2f}")
if args.out:
    with open(args.out, "w") as f:
        json.dump({"game": args.game, "opponent": args.opponent, "seed": args.seed,
                   "a": res["a"], "b": res["b"], "a_minus_b": diff}, f)
