"""Tune a player's settings: a grid of duplicate matches against one opponent.

    cardjax tune --game doudizhu --bidding --a bidder:value=runs/bid_rule,play=rule \
        --grid threshold=0.4,0.5,0.6 --grid high=0.5,1.0 --b rule --deals 256 --seed 100 \
        --check_deals 256
    cardjax tune --game doudizhu --bidding --a bidder:play=rule \
        --grid strength=-2,-1,0,1,2 --b rule
    cardjax tune --game gongzhu --a ismcts:iterations=300 --grid k=0.3,0.7,1.0 --b greed

Every combination of the ``--grid`` values is added to the player word ``--a`` and played against
``--b`` on the same deals (``--deals``, ``--seed``; with ``--bidding``, the Dou Dizhu auction and
its six-game scheme).  Prints one line per combination (score per deal +- standard error) and the
best; the best's score is biased upwards by the choice, so ``--check_deals N`` plays the chosen
setting again on N fresh deals (seed ``--seed`` + 1) and prints that unbiased score.  ``--json``
prints one JSON object instead.
"""

from __future__ import annotations

import argparse
import json
import sys

import cardjax
from cardjax import agents
from cardjax.cli import non_negative_int, positive_int
from cardjax.eval import tune


def grid_axis(text: str) -> tuple[str, list]:
    """``"threshold=0.4,0.5"`` -> ``("threshold", [0.4, 0.5])`` (numbers where they parse)."""
    key, eq, values = text.partition("=")
    items = [v.strip() for v in values.split(",")]
    if not eq or not key.strip() or not all(items):
        raise argparse.ArgumentTypeError(f"expected KEY=V1,V2,..., got {text!r}")
    key = key.strip()
    return key, [agents.parse_spec(f"x:{key}={v}")[1][key] for v in items]


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--game", default="doudizhu", choices=cardjax.GAMES)
    p.add_argument("--bidding", action="store_true", help="Dou Dizhu with its auction")
    p.add_argument("--a", required=True, help="the player word to tune (its fixed settings)")
    p.add_argument("--grid", type=grid_axis, action="append", required=True,
                   metavar="KEY=V1,V2", help="a setting and the values to try (repeat for more)")
    p.add_argument("--b", default="rule", help="the opponent (default: rule)")
    p.add_argument("--deals", type=positive_int, default=256)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--check_deals", type=non_negative_int, default=0,
                   help="play the best setting again on this many fresh deals (seed + 1)")
    p.add_argument("--batch", type=positive_int, default=128)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    keys = [k for k, _ in args.grid]
    if len(set(keys)) != len(keys):
        p.error(f"--grid: a setting given twice in {', '.join(keys)}")
    if args.bidding and args.game != "doudizhu":
        p.error(f"--bidding: only Dou Dizhu has an auction, not {args.game}")
    return args


def main(argv=None) -> dict:
    args = parse_args(argv)
    env = cardjax.make(args.game, **({"bidding": True} if args.bidding else {}))

    def load(spec):
        try:
            return agents.load(env, spec)
        except (ValueError, TypeError) as e:
            raise SystemExit(f"error: {spec}: {e}") from None

    try:
        result = tune.tune(env, args.a, dict(args.grid), load(args.b), load, deals=args.deals,
                           seed=args.seed, check_deals=args.check_deals, batch=args.batch,
                           progress=not args.no_progress)
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    if args.json:
        print(json.dumps(result))
    else:
        for r in result["rows"]:
            print(f"{r['spec']}: {r['mean']:+.3f} +- {r['stderr']:.3f} per deal")
        best = result["best"]
        print(f"best: {best['spec']} ({best['mean']:+.3f} on the deals it was chosen on)")
        if "check" in result:
            c = result["check"]
            print(f"check on {c['deals']} fresh deals (seed {c['seed']}): {c['mean']:+.3f} +- "
                  f"{c['stderr']:.3f}")
    sys.stdout.flush()
    return result
