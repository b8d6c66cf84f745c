#!/usr/bin/env python
"""Duplicate match between two agents.

    python scripts/arena.py --game gongzhu --a greed --b random --deals 256 --seed 11 --json

Agent A sits at team 0's seats, B at the others; every deal is played in each seat rotation so
each side holds each hand.  Prints the mean team margin of A per deal +- standard error (``--json``:
one JSON object with at least ``mean``, ``stderr``, ``games``); a progress bar goes to stderr.
Against ``--b greed`` on Gongzhu the mean is the ScrofaZero paper's WPG.
"""

from __future__ import annotations

import argparse
import json
import sys

import cardjax
from cardjax import agents
from cardjax.eval import arena


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="gongzhu", choices=cardjax.GAMES)
    parser.add_argument("--a", default="greed", help="agent A (a baseline name)")
    parser.add_argument("--b", default="random", help="agent B (a baseline name)")
    parser.add_argument("--deals", type=positive_int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=positive_int, default=128,
                        help="deals played at once (each in every rotation)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    args = parser.parse_args(argv)
    names = agents.baselines(args.game)
    for side in ("a", "b"):
        if getattr(args, side) not in names:
            parser.error(f"--{side}: unknown agent {getattr(args, side)!r} for {args.game}; "
                         f"choose from {', '.join(names)}")
    return args


def main(argv=None) -> dict:
    args = parse_args(argv)
    env = cardjax.make(args.game)
    result = arena.duplicate_match(
        env, agents.get(env, args.a), agents.get(env, args.b), deals=args.deals, seed=args.seed,
        batch=args.batch, progress=not args.no_progress,
    )
    if args.json:
        print(json.dumps(result))
    else:
        extra = f"  (WPG {result['wpg']:+.1f})" if "wpg" in result else ""
        print(f"{args.game}: {args.a} vs {args.b} over {result['deals']} deals "
              f"({result['games']} games): {result['mean']:+.1f} +- {result['stderr']:.1f}{extra}")
    sys.stdout.flush()
    return result


if __name__ == "__main__":
    main()
