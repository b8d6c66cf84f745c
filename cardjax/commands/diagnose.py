"""Where a Tractor player is weak: its leads and last-seat follows, and its phases mixed with the
rule player's.

    cardjax diagnose runs/shengji --deals 64 --json diag.json

PLAYER is a training run directory (``cardjax train shengji --out``) or a baseline (``rule``,
``random``).  First its play against random (:func:`cardjax.games.tractor.diagnostics.play_stats`):
cards per lead, the share of leads that are failed throws, and, as the last seat to follow a
one-card lead where its card changes the points its team takes in the trick, how often it takes
the most and its mean shortfall in points.  Then (unless ``--no-mix``) the leveling rate against
random, teams swapped on the same deals, of the player; of the rule player's declarations, burial
and chaodi with the player's tricks; of the player's with the rule player's tricks; and of the
rule player.  The rule player's tricks beat random about 95-99% of the time whatever comes before.
``--against rule`` plays the mixes against the rule player instead (levels a hand +- standard
error, leveling rate, AAPD), and adds the player's leads (and pre-round) with the rule player's
follows, and the rule player's leads with the player's follows.
"""

from __future__ import annotations

import argparse
import json

import cardjax
from cardjax import agents
from cardjax.cli import positive_int
from cardjax.eval import arena
from cardjax.games.tractor import metrics as tractor_metrics
from cardjax.games.tractor.diagnostics import follow_mix, phase_mix, play_stats


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 2)[2])
    p.add_argument("player", help="training run directory, or a baseline: rule, random")
    p.add_argument("--deals", type=positive_int, default=64, help="deals (each played twice, "
                   "teams swapped) [64]")
    p.add_argument("--seed", type=int, default=1, help="seed of the deals [1]")
    p.add_argument("--batch", type=positive_int, default=64, help="deals played at once [64]")
    p.add_argument("--no-mix", action="store_true", help="skip the phase-mixed matches")
    p.add_argument("--against", choices=("random", "rule"), default="random",
                   help="the opponent of the mixed matches [random]")
    p.add_argument("--json", metavar="PATH", default=None, help="also write the results here")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    env = cardjax.make("tractor")
    try:
        player = agents.load(env, args.player)
    except ValueError as e:
        p.error(str(e))
    rule, rnd = agents.get(env, "rule"), agents.get(env, "random")

    stats = play_stats(env, player, rnd, deals=args.deals, seed=args.seed, batch=args.batch)
    print(f"{player.name} against random, {args.deals} deals x 2:")
    print(f"  leads {stats['leads']}: {stats['cards_per_lead']:.2f} cards each, "
          f"{100 * stats['failed_throw_rate']:.1f}% failed throws")
    print(f"  last seat after a one-card lead ({stats['last_seat_decisions']} decisions): the most "
          f"points taken {100 * stats['last_seat_best_rate']:.1f}%, shortfall "
          f"{stats['last_seat_shortfall']:.2f} points")
    mixes = []
    if not args.no_mix and args.against == "random":
        print("leveling rate against random (teams swapped):")
        for a in (player, phase_mix(rule, player), phase_mix(player, rule), rule):
            r = arena.duplicate_match(env, a, rnd, deals=args.deals, seed=args.seed,
                                      batch=args.batch, progress=not args.no_progress,
                                      per_deal=True)
            rate, se = tractor_metrics.leveling_rate(r["per_game"])
            mixes.append({"player": a.name, "leveling_rate": rate, "stderr": se,
                          "aapd": r["aapd"]})
            print(f"  {a.name:<44} {rate:.3f} +- {se:.3f}   AAPD {r['aapd']:+.1f}", flush=True)
    elif not args.no_mix:
        print("against the rule player (teams swapped): levels a hand, leveling rate, AAPD")
        for a in (player, phase_mix(rule, player), phase_mix(player, rule),
                  follow_mix(player, rule), follow_mix(rule, player)):
            r = arena.duplicate_match(env, a, rule, deals=args.deals, seed=args.seed,
                                      batch=args.batch, progress=not args.no_progress)
            mixes.append({"player": a.name, "levels": r["mean"], "stderr": r["stderr"],
                          "leveling_rate": r["leveling_rate"], "aapd": r["aapd"]})
            print(f"  {a.name:<44} {r['mean']:+.3f} +- {r['stderr']:.3f}   "
                  f"{r['leveling_rate']:.3f}   AAPD {r['aapd']:+.1f}", flush=True)
    result = {"player": args.player, "deals": args.deals, "seed": args.seed,
              "play_vs_random": stats, f"phase_mix_vs_{args.against}": mixes}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return result
