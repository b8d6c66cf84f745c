"""Duplicate match between two agents.

    cardjax arena --game gongzhu --a greed --b random --deals 256 --seed 11 --json
    cardjax arena --game doudizhu --a rule --b random --deals 500 --seed 3 --json
    cardjax arena --game tractor --a rule --b random --deals 64 --json

Every deal is played in each game of the game's duplicate scheme (``cardjax.eval.arena``):
Gongzhu and Mini Dou Di Zhu in each seat rotation, A at team 0's seats (each side holds each hand;
Mini Dou Di Zhu: A leads once, B once); Dou Dizhu twice, A the landlord against B's two peasants,
then B the landlord against A's peasants; Tractor twice, A at seats {0, 2} then {1, 3} (same deal,
level and dealer: each side attacks once and defends once with the same hands).  Prints A's score
per deal (its side's total averaged over the deal's games) +- standard error, and the game's own
figures: WPG against Mr Greed (Gongzhu), landlord win rates and ADP (Dou Dizhu), A's win rate
(Mini Dou Di Zhu), win rate, leveling rate and AAPD (Tractor; the mean is A's level reward per
hand).  ``--json`` prints one JSON object (at least ``mean``, ``stderr``, ``games``, ``deals``,
``seed``); a progress bar goes to stderr.  An agent is a baseline registered for the game
(``cardjax.agents``) or, for Gongzhu, a ScrofaZero training run directory
(``cardjax train scrofazero --out DIR``): its newest checkpoint plays under hidden information
(``--worlds``, ``--sampling``, ``--iec``, ``--play_b``).  The search players ``cheat_uct``,
``det_uct`` and ``ismcts`` take their settings after a colon:

    cardjax arena --game doudizhu --a ismcts:iterations=2000 --b det_uct:trees=10,iterations=200

    cardjax arena --a runs/scrofazero --b greed --deals 128
    cardjax arena --a runs/scrofazero --b greed --sampling uniform --no-iec

``--paired OPPONENT`` plays A and B each against OPPONENT on the same deals and prints A's score
less B's deal by deal, with the standard error of the per-deal differences (the deals' own luck
cancels; ``cardjax.eval.arena.paired_match``):

    cardjax arena --game gongzhu --a pimc:worlds=8,inference=RUN --b pimc:worlds=8 \
        --paired greed --deals 512 --seed 5353

``--round-robin greed if random`` (at least 2 players, no --a or --b) plays every pair on the
same deals and prints the matrix of mean scores and the ScrofaZero paper's intransitivity ε
(``cardjax.eval.round_robin``; ``--json`` for one JSON object, ``--png PATH`` for a heat map):

    cardjax arena --game gongzhu --round-robin greed if random --deals 128 --png rr.png
    cardjax arena --game doudizhu --round-robin rule det_uct:trees=10 ismcts:iterations=2000
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import cardjax
from cardjax import agents, registry
from cardjax.cli import positive_int
from cardjax.eval import arena, round_robin


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="gongzhu", choices=cardjax.GAMES)
    parser.add_argument("--a", default=None,
                        help="agent A (a baseline name or a run directory; default: the game's "
                        "strongest baseline, greed for Gongzhu, rule for Dou Dizhu and "
                        "Tractor, random for Mini Dou Di Zhu)")
    parser.add_argument("--b", default=None,
                        help="agent B (a baseline name or run directory; default: random)")
    parser.add_argument("--bidding", action="store_true",
                        help="Dou Dizhu with its auction: every deal played six times, A at each "
                             "non-empty proper subset of the seats")
    parser.add_argument("--deals", type=positive_int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=positive_int, default=128,
                        help="deals played at once (each in all its duplicate games)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    trained = parser.add_argument_group("trained players (run directories)")
    trained.add_argument("--worlds", type=positive_int, default=9, help="sampled worlds per move")
    trained.add_argument("--sampling", choices=("stratified", "uniform"), default="stratified")
    trained.add_argument("--iec", action=argparse.BooleanOptionalAction, default=True,
                         help="weight the worlds by IEC")
    trained.add_argument("--play_b", type=int, default=10,
                         help="simulations per world = play_b + 2 x legal moves")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.add_argument("--paired", metavar="OPPONENT", default=None,
                        help="A and B each against OPPONENT (a player as for --a) on the same "
                        "deals, and A's score less B's deal by deal, with its paired standard "
                        "error")
    rr = parser.add_argument_group("round robin")
    rr.add_argument("--round-robin", metavar="SPEC", nargs="+", default=None,
                    help="players (at least 2, each as for --a): play every "
                    "pair on the same deals instead of --a against --b; prints the matrix of "
                    "mean scores and the intransitivity epsilon")
    rr.add_argument("--png", metavar="PATH", default=None,
                    help="with --round-robin: also write the matrix as a heat map PNG")
    args = parser.parse_args(argv)
    names = agents.baselines(args.game)
    if args.round_robin is not None or args.png is not None:
        if args.paired is not None:
            parser.error("--paired plays --a and --b against one opponent; --round-robin "
                         "plays every pair: choose one")
        return round_robin_args(parser, args, names)
    if args.paired is not None:
        if args.a is None or args.b is None:
            parser.error("--paired compares two players: give both --a and --b")
        check_spec(parser, "--paired", args.paired, names, args.game)
    if args.b is None:
        args.b = "random"
    if args.a is None:
        strongest = registry.spec(args.game).default_opponent  # the game card's
        args.a = strongest if strongest in names else "random"
    for side in ("a", "b"):
        check_spec(parser, f"--{side}", getattr(args, side), names, args.game)
    return args


def check_spec(parser, flag: str, spec: str, names, game: str) -> None:
    """A player is a registered name (with settings after a colon) or a run directory."""
    try:
        name, _ = agents.parse_spec(spec)
    except ValueError as e:
        parser.error(f"{flag}: {e}")
    if name not in names and not os.path.isdir(name):
        parser.error(f"{flag}: unknown agent {name!r} for {game}; "
                     f"choose from {', '.join(names)} or give a run directory (or an exported "
                     "player's)")


def round_robin_args(parser, args, names) -> argparse.Namespace:
    """Check the round-robin flags: ``args.round_robin`` becomes the list of specs."""
    if args.round_robin is None:
        parser.error("--png needs --round-robin")
    if args.a is not None or args.b is not None:
        parser.error("--round-robin plays every pair of its players; drop --a and --b")
    specs = [s.strip() for s in args.round_robin]
    if any(not s for s in specs):
        parser.error(f"--round-robin: empty player in {' '.join(args.round_robin)!r}")
    if len(specs) < 2:
        parser.error(f"--round-robin needs at least 2 players, got {' '.join(specs)!r}")
    repeated = sorted({s for s in specs if specs.count(s) > 1})
    if repeated:
        parser.error(f"--round-robin: {', '.join(repeated)} given more than once")
    for spec in specs:
        check_spec(parser, "--round-robin", spec, names, args.game)
    if args.png is not None and not os.path.isdir(os.path.dirname(args.png) or "."):
        parser.error(f"--png: no directory {os.path.dirname(args.png)!r}")
    args.round_robin = specs
    return args


def summary_line(args, r: dict) -> str:
    line = (f"{args.game}: {args.a} vs {args.b} over {r['deals']} deals ({r['games']} games): "
            f"{r['mean']:+.3f} +- {r['stderr']:.3f} per deal")
    if "wpg" in r:
        line += f"  (WPG {r['wpg']:+.1f})"
    if "void_rate" in r:
        def pct(key):
            x, e = r[key], r.get(key + "_stderr")
            return "-" if x is None else f"{x:.3f}" + ("" if e is None else f" +- {e:.3f}")

        line += (f"\n  with bidding: {args.a} takes the landlord seat in "
                 f"{pct('landlord_share_a')} of played deals (0.5 between equals), wins as "
                 f"landlord {pct('wp_a_landlord')} ({args.b}: {pct('wp_b_landlord')}); "
                 f"ADP of {args.a}: {r['adp_a']:+.3f} per game (one seat "
                 f"{r['adp_a_one_seat']:+.3f}, two seats {r['adp_a_two_seats']:+.3f}); void deals "
                 f"{r['void_rate']:.3f}")
    elif "wp_a_landlord" in r:
        line += (f"\n  WP as landlord: {args.a} {r['wp_a_landlord']:.3f}, {args.b} "
                 f"{r['wp_b_landlord']:.3f};  ADP of {args.a}: {r['adp_a']:+.3f} per game "
                 f"(landlord {r['adp_a_landlord']:+.3f}, peasants {r['adp_a_peasants']:+.3f})")
    if "leveling_rate" in r:
        line += (f"\n  {args.a}: win rate {r['win_rate']:.3f}, leveling rate "
                 f"{r['leveling_rate']:.3f} ({r['levels_a']:.0f} levels to {r['levels_b']:.0f}), "
                 f"levels up in {r['level_up_rate']:.3f} of hands;  AAPD {r['aapd']:+.1f} "
                 f"(attacking: {args.a} {r['a_attack_points']:.1f}, {args.b} "
                 f"{r['b_attack_points']:.1f} points)")
    if "wp_a" in r:
        line += (f"\n  {args.a} wins {r['wp_a']:.3f} of games (leading {r['wp_a_first']:.3f}; "
                 f"{args.b} leading wins {r['wp_b_first']:.3f})")
    return line


def main(argv=None) -> dict:
    args = parse_args(argv)
    if args.bidding and args.game != "doudizhu":
        raise SystemExit(f"error: --bidding: only Dou Dizhu has an auction, not {args.game}")
    env = cardjax.make(args.game, **({"bidding": True} if args.bidding else {}))
    play = dict(worlds=args.worlds, sampling=args.sampling, iec=args.iec, b=args.play_b)

    def agent(spec):
        try:
            return agents.load(env, spec, **play)
        except ValueError as e:
            raise SystemExit(f"error: {e}") from None

    if args.round_robin is not None:
        return play_round_robin(args, env, agent)
    if args.paired is not None:
        return play_paired(args, env, agent)
    result = arena.duplicate_match(
        env, agent(args.a), agent(args.b), deals=args.deals, seed=args.seed,
        batch=args.batch, progress=not args.no_progress,
    )
    if args.json:
        print(json.dumps(result))
    else:
        print(summary_line(args, result))
    sys.stdout.flush()
    return result


def play_round_robin(args, env, agent) -> dict:
    """``--round-robin``: every pair; prints the table (or JSON), writes ``--png``."""
    rr = round_robin.round_robin(env, {spec: agent(spec) for spec in args.round_robin},
                                 deals=args.deals, seed=args.seed, batch=args.batch,
                                 progress=not args.no_progress)
    if args.png is not None:
        round_robin.heatmap(rr, args.png)
    result = round_robin.to_json(rr)
    print(json.dumps(result) if args.json else round_robin.to_table(rr))
    sys.stdout.flush()
    return result


def play_paired(args, env, agent) -> dict:
    """``--paired OPPONENT``: A and B each against it on the same deals; prints each match's
    line and the paired difference (or one JSON object without the per-deal lists)."""
    r = arena.paired_match(env, agent(args.a), agent(args.b), agent(args.paired),
                           deals=args.deals, seed=args.seed, batch=args.batch,
                           progress=not args.no_progress)
    d = r["difference"]
    if args.json:
        drop = ("per_deal", "per_game", "per_game_outcome")
        print(json.dumps({"a": {k: v for k, v in r["a"].items() if k not in drop},
                          "b": {k: v for k, v in r["b"].items() if k not in drop},
                          "opponent": args.paired, "difference": d}))
    else:
        for side in ("a", "b"):
            match = argparse.Namespace(game=args.game, a=getattr(args, side), b=args.paired)
            print(summary_line(match, r[side]))
        print(f"{args.a} - {args.b}, paired over {d['deals']} deals (both against "
              f"{args.paired}): {d['mean']:+.3f} +- {d['stderr']:.3f} per deal")
    sys.stdout.flush()
    return r
