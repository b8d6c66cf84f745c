"""The ScrofaZero paper's table 3: a trained network under four ways of playing hidden information.

    cardjax sampling_table runs/scrofazero --deals 128 --json table3.json

Rows: uniform sampling (US), stratified sampling (SS), US with IEC weights, SS with IEC -- each
against two Mr Greeds (WPG, duplicate deals in both seat rotations) -- and SS with IEC against
plain US on the same deals.  Every row uses the same deals (``--seed``), ``--worlds`` worlds per
decision and ``b + 2 x legal`` simulations per world.  With ``--inference RUN`` (an
``cardjax train inference`` run) a fifth row draws the worlds in proportion to that card-location
network (IS), and IS plays US head to head.
"""

from __future__ import annotations

import argparse
import json

import cardjax
from cardjax import agents
from cardjax.agents import scrofazero
from cardjax.cli import positive_int
from cardjax.eval import arena

ROWS = (
    ("US", dict(sampling="uniform", iec=False)),
    ("SS", dict(sampling="stratified", iec=False)),
    ("US with IEC", dict(sampling="uniform", iec=True)),
    ("SS with IEC", dict(sampling="stratified", iec=True)),
)


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", help="training run directory (cardjax train scrofazero --out) or a "
                   "ScrofaZero player artifact")
    p.add_argument("--deals", type=positive_int, default=64)
    p.add_argument("--worlds", type=positive_int, default=9)
    p.add_argument("--b", type=int, default=10, help="simulations per world = b + 2 x legal")
    p.add_argument("--seed", type=int, default=2021)
    p.add_argument("--batch", type=positive_int, default=64)
    p.add_argument("--inference", metavar="RUN", default=None,
                   help="a card-location inference run: adds the row of its worlds (IS)")
    p.add_argument("--json", metavar="PATH", default=None)
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    env = cardjax.make("gongzhu")
    try:
        params, cfg = scrofazero.load_params(args.run)
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    greed = agents.get(env, "greed")
    rows_played = ROWS + ((("IS", dict(iec=False, inference=args.inference)),)
                          if args.inference else ())
    try:
        players = {name: scrofazero.agent_from_params(env, params, cfg, name=name,
                                                      worlds=args.worlds, b=args.b, **opts)
                   for name, opts in rows_played}
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    games = [(name, "greed") for name, _ in rows_played] + [("SS with IEC", "US")]
    if args.inference:
        games.append(("IS", "US"))
    rows = []
    for a, b in games:
        opponent = greed if b == "greed" else players[b]
        r = arena.duplicate_match(env, players[a], opponent, deals=args.deals, seed=args.seed,
                                  batch=min(args.batch, args.deals),
                                  progress=not args.no_progress, per_deal=True)
        per_game = [x for g in r["per_game"] for x in g]
        win = sum(x > 0 for x in per_game) / len(per_game)
        draw = sum(x == 0 for x in per_game) / len(per_game)
        rows.append({"a": a, "b": b, "mean": r["mean"], "stderr": r["stderr"], "win": win,
                     "draw": draw, "deals": r["deals"], "games": r["games"]})
        print(f"{a:>12} vs {b:<6} {r['mean']:+7.1f} +- {r['stderr']:4.1f}   "
              f"win {100 * win:4.1f}% (+{100 * draw:.1f}% draws)", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"run": args.run, "iteration_config": cfg, "seed": args.seed,
                       "worlds": args.worlds, "b": args.b, "rows": rows}, f, indent=1)
    return rows
