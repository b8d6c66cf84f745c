"""Play a candidate against the shipped player head to head in duplicate, and ship it only
when it wins by over 2 standard errors on 1,024 fresh deals.

    cardjax ladder --game doudizhu --candidate runs/ddz_next/player \\
        --shipped doudizhu-pretrained --deals 1024 --seed 20261128
    cardjax ladder --game doudizhu --candidate lease_out/doudizhu-pretrained/player \\
        --shipped doudizhu-pretrained --deals 2048 --seed 777001 --baselines rule random --ship

The candidate (an artifact directory, a training run directory or a shipped name) plays the
shipped player ``--shipped`` on ``--deals`` duplicate deals, both seatings
(:func:`cardjax.eval.arena.duplicate_match`); the result is the candidate's score per deal
+- one standard error.  The rule (:func:`decide`): it passes only when the mean is above 2
standard errors and at least ``--min-deals`` (1,024) deals were played.  The seed must be fresh:
a seed the candidate's lineage records as used in training or its evaluations (``--seed``,
``--eval_seed`` of its commands and its ancestors', their defaults 0 and 12345 when a training
command typed none) is refused; where nothing is recorded, the caller must pass a seed outside
training and tuning.  A refusal exits with status 2 and one line saying why (the figure and the
2-s.e. bar).  With ``--ship`` and a pass, the candidate is exported over the shipped player
(:func:`cardjax.agents.pretrained.export`, its lineage kept; a Dou Dizhu player keeps the
shipped bid settings unless it has its own) and a row is appended to the "## Ladder" table of
``docs/pretrained.md``.  ``--baselines rule random`` also plays a candidate that passes against
those baselines (reported, and written in the row; they do not decide); a refused one is not
played further.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import re
import shlex
import sys

import cardjax
from cardjax.cli import positive_int

MIN_DEALS = 1024
DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__)))), "docs", "pretrained.md")
LADDER_HEADING = "## Ladder"
LADDER_HEADER = ("| date | player | against the shipped one (mean ± se, deals, seed) "
                 "| against the baselines | lineage |\n|---|---|---|---|---|")
TRAIN_DEFAULT_SEEDS = {"--seed": 0, "--eval_seed": 12345}


def decide(mean: float, stderr: float, deals: int, min_deals: int = MIN_DEALS
           ) -> tuple[bool, str]:
    """``(ok, reason)``: ok only when ``mean > 2 * stderr`` and ``deals >= min_deals``."""
    bar = 2.0 * float(stderr)
    figure = f"{mean:+.4f} ± {stderr:.4f} over {deals} deals (bar: 2 s.e. = {bar:.4f})"
    if not (math.isfinite(mean) and math.isfinite(stderr)):
        return False, f"refused: no finite result, {figure}"
    if deals < min_deals:
        return False, f"refused: {deals} deals < the {min_deals} required; {figure}"
    if not mean > bar:
        return False, f"refused: mean {mean:+.4f} is not above 2 s.e. ({bar:.4f}); {figure}"
    return True, f"passes: mean {mean:+.4f} > 2 s.e. ({bar:.4f}) on {deals} deals"


def _commands(lineage: dict) -> list[str]:
    out = []
    for record in [lineage] + list(lineage.get("ancestors") or []):
        if isinstance(record, dict) and record.get("command"):
            out.append(str(record["command"]))
        if isinstance(record, dict):  # a run's resumes (their evaluation seeds)
            out.extend(str(c) for c in record.get("resumed_by") or [] if c)
    return out


def seeds_used(lineage: dict | None) -> tuple[set[int], bool]:
    """``(seeds, recorded)``: the seeds the lineage's commands (its own and its ancestors') used
    in training and evaluation: their ``--seed`` and ``--eval_seed``, a training command's
    defaults (0, 12345) where it typed none; ``recorded`` is False when no command is known."""
    seeds: set[int] = set()
    commands = _commands(dict(lineage or {}))
    for command in commands:
        try:
            words = shlex.split(command)
        except ValueError:
            words = command.split()
        typed = {}
        for i, w in enumerate(words):
            flag, eq, value = w.partition("=")
            if flag in TRAIN_DEFAULT_SEEDS:
                value = value if eq else (words[i + 1] if i + 1 < len(words) else "")
                if re.fullmatch(r"-?\d+", value.strip(",;")):
                    typed[flag] = int(value.strip(",;"))
        training = any(w == "train" or "experiments/" in w or w.endswith("lease.sh")
                       for w in words)
        for flag, default in TRAIN_DEFAULT_SEEDS.items():
            if flag in typed:
                seeds.add(typed[flag])
            elif training:
                seeds.add(default)
    return seeds, bool(commands)


def check_seed(seed: int, lineage: dict | None) -> tuple[bool, str]:
    """``(ok, note)``: refused when the lineage records ``seed`` as used in training."""
    used, recorded = seeds_used(lineage)
    if seed in used:
        return False, (f"refused: seed {seed} was used in the candidate's training or its "
                       f"evaluations (its lineage's seeds: {sorted(used)}); pass a fresh seed")
    if not recorded:
        return True, ("note: the candidate's lineage records no command, so its seeds are "
                      "unknown: the caller must pass a seed not used in training or tuning")
    return True, f"seed {seed} is fresh (lineage seeds: {sorted(used)})"


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", required=True, choices=cardjax.GAMES)
    parser.add_argument("--candidate", required=True, metavar="DIR",
                        help="the new player: an artifact directory (a run's player/), a "
                        "training run directory or a shipped name")
    parser.add_argument("--shipped", required=True, metavar="NAME",
                        help="the shipped player it would replace (e.g. doudizhu-pretrained)")
    parser.add_argument("--deals", type=positive_int, default=MIN_DEALS)
    parser.add_argument("--seed", type=int, required=True,
                        help="seed of the deals: fresh, not used in training or tuning")
    parser.add_argument("--min-deals", type=positive_int, default=MIN_DEALS,
                        help=f"fewest deals a pass needs [{MIN_DEALS}]")
    parser.add_argument("--baselines", nargs="*", default=[], metavar="NAME",
                        help="on a pass, also play the candidate against these baselines "
                        "(reported, and written in the ladder row; they do not decide)")
    parser.add_argument("--ship", action="store_true",
                        help="on a pass, export the candidate over the shipped player and "
                        "append a row to the ladder in docs/pretrained.md")
    parser.add_argument("--doc", default=DOC, help="the ladder's page [docs/pretrained.md]")
    parser.add_argument("--directory", default=None,
                        help="where the shipped players are (default: the package's)")
    parser.add_argument("--batch", type=positive_int, default=128)
    parser.add_argument("--save", metavar="PATH", default=None,
                        help="also write the results and the decision as JSON")
    parser.add_argument("--no-progress", action="store_true")
    return parser.parse_args(argv)


def inherited_play(shipped: dict, candidate: dict) -> dict:
    """The play settings of the shipped player (its description ``shipped``) that the candidate
    (``candidate``) does not set: it plays and ships with them, so a network continued from the
    shipped one keeps what the shipped one plays with (a Dou Dizhu player's bids, a ScrofaZero
    player's worlds from ``inference=NAME``); the candidate's own settings win."""
    own = candidate.get("play") or {}
    return {k: v for k, v in (shipped.get("play") or {}).items() if k not in own}


def _candidate_meta(word: str) -> dict:
    from cardjax import artifact

    try:
        directory = word if os.path.isdir(word) else artifact.shipped(word)
        if directory and artifact.is_artifact(directory):
            return artifact.read_meta(directory)
        if directory:
            return dict(artifact.from_run(directory).meta)
    except Exception:  # noqa: BLE001  (a run without a checkpoint: no lineage to read)
        pass
    return {}


def _fmt(r: dict) -> str:
    return f"{r['mean']:+.3f} ± {r['stderr']:.3f} ({r['deals']} deals, seed {r['seed']})"


def _parent(parent) -> str:
    """A parent as the repository names it: a path under the working directory made relative
    (the row is read on other machines)."""
    parent = str(parent)
    if os.path.isabs(parent) and parent.startswith(os.getcwd() + os.sep):
        return os.path.relpath(parent)
    return parent


def _amount(value, unit: str, scale: float = 1.0, suffix: str = "") -> str:
    try:
        return f"{float(value) / scale:,.{1 if suffix else 0}f}{suffix} {unit}"
    except (TypeError, ValueError):
        return f"? {unit}"


def ladder_row(date: str, player: str, head: dict, baselines: dict, lineage: dict) -> str:
    vs = "; ".join(f"{name} {_fmt(r)}" for name, r in baselines.items()) or "not measured"
    lin = (f"parent {_parent(lineage.get('parent'))}, "
           f"{_amount(lineage.get('minutes'), 'min')} and "
           f"{_amount(lineage.get('frames'), 'frames', 1e6, ' M')} in the lineage, "
           f"{lineage.get('device') or '?'}")
    return f"| {date} | `{player}` | {_fmt(head)} | {vs} | {lin} |"


def append_row(doc: str, row: str) -> None:
    """Append ``row`` to the table under "## Ladder" in ``doc`` (section and table made when
    missing)."""
    text = open(doc).read() if os.path.isfile(doc) else ""
    lines = text.splitlines()
    if LADDER_HEADING not in lines:
        block = (f"\n{LADDER_HEADING}\n\n{LADDER_HEADER}\n{row}\n")
        with open(doc, "w") as f:
            f.write(text.rstrip("\n") + "\n" + block)
        return
    start = lines.index(LADDER_HEADING)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
               len(lines))
    table = [i for i in range(start + 1, end) if lines[i].startswith("|")]
    if table:
        lines.insert(table[-1] + 1, row)
    else:
        lines[start + 1:start + 1] = ["", *LADDER_HEADER.split("\n"), row]
    with open(doc, "w") as f:
        f.write("\n".join(lines) + "\n")


def main(argv=None) -> dict:
    args = parse_args(argv)
    from cardjax import agents
    from cardjax.agents import pretrained
    from cardjax.eval import arena

    directory = args.directory or pretrained.DIRECTORY
    if args.shipped not in pretrained.names(args.game, directory):
        raise SystemExit(f"error: --shipped {args.shipped!r}: no shipped player of {args.game} "
                         f"({', '.join(pretrained.names(args.game, directory)) or 'none'})")
    meta = _candidate_meta(args.candidate)
    lineage = dict(meta.get("lineage") or {})
    ok_seed, seed_note = check_seed(args.seed, lineage)
    if not ok_seed:
        raise SystemExit(f"error: ladder {seed_note}")
    print(seed_note)
    env = cardjax.make(args.game)

    def agent(spec, **options):
        try:
            return agents.load(env, spec, **options)
        except ValueError as e:
            raise SystemExit(f"error: {' '.join(str(e).split())}") from None

    inherited = inherited_play(pretrained.info(args.shipped, directory), meta)
    if inherited:
        print("the candidate plays with the shipped player's settings it does not set: "
              + ", ".join(f"{k}={v}" for k, v in sorted(inherited.items())))
    # bids are no load option: a player reads them from its description at a table with an
    # auction, so they reach the candidate with the export below
    if args.ship:  # the export below would refuse it: say so before any deal is played
        try:
            pretrained.check_portable(dict(meta.get("play") or {}))
        except ValueError as e:
            raise SystemExit(f"error: --ship: the candidate's {e}") from None
    cand = agent(args.candidate, **{k: v for k, v in inherited.items() if k != "bids"})
    shipped = pretrained.load(env, args.shipped, directory)

    def match(b):
        r = arena.duplicate_match(env, cand, b, deals=args.deals, seed=args.seed,
                                  batch=args.batch, progress=not args.no_progress)
        return {"mean": float(r["mean"]), "stderr": float(r["stderr"]),
                "deals": int(r["deals"]), "seed": args.seed,
                **{k: v for k, v in r.items() if k not in ("mean", "stderr", "deals", "seed")}}

    head = match(shipped)
    print(f"{args.game}: {args.candidate} vs {args.shipped}: {head['mean']:+.4f} +- "
          f"{head['stderr']:.4f} per deal over {head['deals']} deals (seed {args.seed})")
    ok, reason = decide(head["mean"], head["stderr"], head["deals"], args.min_deals)
    against = {}
    for name in args.baselines if ok else ():  # a refused player's row is never written
        against[name] = match(agent(name))
        print(f"  vs {name}: {against[name]['mean']:+.4f} +- {against[name]['stderr']:.4f}")
    if args.baselines and not ok:
        print(f"  the baselines ({', '.join(args.baselines)}) not played: refused")
    result = {"game": args.game, "candidate": args.candidate, "shipped": args.shipped,
              "head_to_head": head, "baselines": against, "ok": ok, "reason": reason,
              "seed_note": seed_note, "min_deals": args.min_deals, "shipped_now": False}
    if ok and args.ship:
        from cardjax.train import continuation

        art = continuation.read_player(args.candidate)
        art = art._replace(meta=dict(art.meta, play={**inherited, **(art.meta.get("play") or {})}))
        written = pretrained.export(art, args.shipped, directory=directory)
        row = ladder_row(datetime.date.today().isoformat(), args.shipped, head, against,
                         dict(written.get("lineage") or {}))
        append_row(args.doc, row)
        result["shipped_now"] = True
        result["row"] = row
    if args.save:
        with open(args.save, "w") as f:
            json.dump(result, f, indent=1, default=str)
    sys.stdout.flush()
    if not ok:
        raise SystemExit(f"error: ladder {reason}")
    print(f"ladder {reason}" + ("; shipped as " + args.shipped if result["shipped_now"]
                                 else " (not shipped: --ship not given)"))
    return result
