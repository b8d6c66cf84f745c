"""Self-play card-location inference, iterated: corpora of the very players that meet, a network
trained on each, each network scored on the next round's games.

    cardjax inference_rounds --game gongzhu --rounds 3 --games 2000 --out runs/rounds \
        --players "pimc:worlds=8,playout=if,inference=NET" greed \
        --train "--iterations 300 --width 512 --depth 3"
    cardjax inference_rounds --out runs/rounds --rounds 4 --resume   # one more round

A network learns the players of its corpus (``docs/inference.md``): trained on Mr Greed's games
it misplaces a PIMC player's cards.  So each round plays a corpus with the players that meet at
the table -- ``--players``, one word for every seat or one per seat, where the setting value
``NET`` stands for the previous round's network (the first round's: ``--start RUN``; without it
the setting is dropped and the first round's search draws uniform worlds) -- and trains a new
network on it (``cardjax train inference`` with the ``--train`` flags).  Before training, the
previous network is scored on the new round's games: its mean log10 TSSR on ``--score_games``
test games (above 0: the true world more likely than a uniform draw) and its cross-entropy per
unseen card on the validation games, beside the baseline's.  That is the model mismatch, measured
rather than assumed: the players changed, since their worlds now come from that network.

``--out`` holds ``round_N/corpus``, ``round_N/network`` (a run: ``player/`` loads as
``inference=...``) and ``round_N/score.json`` for each round, and ``rounds.json``, the report.
Every part is kept when it is done, so a stopped command continues where it was with
``--resume`` (the same settings; a larger ``--rounds`` adds rounds).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import sys
import types

import cardjax
from cardjax import agents
from cardjax import corpus as corpora
from cardjax.cli import positive_int
from cardjax.files import write_atomic

PLACEHOLDER = "NET"
SETTINGS = "settings.json"
REPORT = "rounds.json"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--out", required=True, help="the directory of the rounds")
    p.add_argument("--game", choices=cardjax.GAMES, default=None, help="the game [gongzhu]")
    p.add_argument("--players", nargs="+", default=None, metavar="PLAYER",
                   help="one player for every seat or one per seat; a setting value NET is the "
                        "previous round's network (e.g. pimc:worlds=8,inference=NET)")
    p.add_argument("--rounds", type=positive_int, default=None, help="rounds [2]")
    p.add_argument("--games", type=positive_int, default=None, help="deals per round's corpus "
                   "[2000]")
    p.add_argument("--start", default=None, metavar="RUN",
                   help="the network NET stands for in the first round (an inference run); "
                        "without it the first round's setting is dropped (uniform worlds)")
    p.add_argument("--train", default=None, metavar="FLAGS",
                   help="flags of cardjax train inference for each round's network, as one "
                        "quoted word (e.g. \"--iterations 300 --width 512\")")
    p.add_argument("--score_games", type=positive_int, default=None,
                   help="test games of the next round the TSSR is computed on [200]")
    p.add_argument("--seed", type=int, default=None, help="round N's corpus seed is seed + N [0]")
    p.add_argument("--batch", type=positive_int, default=64, help="games played at once")
    p.add_argument("--resume", action="store_true",
                   help="continue the rounds in --out (their saved settings)")
    p.add_argument("--no-progress", action="store_true")
    return p.parse_args(argv)


DEFAULTS = {"game": "gongzhu", "players": None, "rounds": 2, "games": 2000, "start": None,
            "train": "", "score_games": 200, "seed": 0}


def settings_of(args) -> dict:
    """The rounds' settings: saved in ``--out`` by the first call, read back on ``--resume``
    (``--rounds`` may grow; any other typed setting must match)."""
    path = os.path.join(args.out, SETTINGS)
    typed = {k: getattr(args, k) for k in DEFAULTS if getattr(args, k) is not None}
    if typed.get("start"):
        typed["start"] = os.path.abspath(typed["start"])
    if args.resume:
        try:
            with open(path) as f:
                saved = json.load(f)
        except (OSError, ValueError) as e:
            raise SystemExit(f"error: --resume: no readable {SETTINGS} in {args.out} ({e})")
        clash = [f"--{k} {v!r} (the rounds have {saved[k]!r})" for k, v in typed.items()
                 if k != "rounds" and v != saved.get(k)]
        if clash:
            raise SystemExit(f"error: --resume: {', '.join(clash)}")
        return {**saved, **typed}
    if os.path.exists(path):
        raise SystemExit(f"error: {args.out} already holds rounds; pass --resume to continue "
                         "them or choose another --out")
    s = {**DEFAULTS, **typed}
    s["players"] = s["players"] or [f"pimc:worlds=8,inference={PLACEHOLDER}"]
    env = cardjax.make(s["game"])
    if len(s["players"]) not in (1, env.num_players):
        raise SystemExit(f"error: --players: one player or {env.num_players} (one per seat) for "
                         f"{s['game']}, got {len(s['players'])}")
    try:
        shlex.split(s["train"])
        for word in s["players"]:
            agents.parse_spec(word)
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    if s["start"] is not None and not os.path.isdir(s["start"]):
        raise SystemExit(f"error: --start: {s['start']} is not a directory")
    os.makedirs(args.out, exist_ok=True)
    write_atomic(path, json.dumps(s, indent=1).encode())
    return s


def with_network(word: str, net: str | None) -> str:
    """``word`` with each setting value NET replaced by ``net``, or dropped when ``net`` is None
    (``pimc:worlds=8,inference=NET`` -> ``pimc:worlds=8``)."""
    name, _, rest = word.partition(":")  # the grammar of agents.parse_spec, kept as typed
    items = []
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        if value == PLACEHOLDER:
            if net is None:
                continue
            item = f"{key}={net}"
        items.append(item)
    return name + (":" + ",".join(items) if items else "")


def score(run: str, corpus_dir: str, games: int) -> dict:
    """The network of the inference run ``run`` on the games of ``corpus_dir``: mean log10 TSSR
    over the positions of ``games`` test games (network, baseline, oracle) and the cross-entropy
    per unseen card on the validation games (network, baseline)."""
    from cardjax.commands import tssr
    from cardjax.commands.train import inference as inference_command
    from cardjax.train import corpus_run
    from cardjax.train.inference import Config, load_run

    with contextlib.redirect_stdout(sys.stderr):  # its table is a log line here
        t = tssr.main(["--run", run, "--corpus", corpus_dir, "--games", str(games)])
    trainer, params, _ = load_run(run)
    cfg = Config.from_dict(corpus_run.saved_config(run, "inference"))
    c = corpora.Corpus(corpus_dir, trainer.env)
    evaluate, _ = inference_command.make_evaluate(trainer, c, cfg, games, out=None)
    e = evaluate(types.SimpleNamespace(params=params))
    return {"network": run, "games_of": corpus_dir,
            "tssr_log10": t["overall"]["network_log10"],
            "baseline_tssr_log10": t["overall"]["baseline_log10"],
            "oracle_tssr_log10": t["overall"]["oracle_log10"], "tssr_positions": t["positions"],
            "ce": e["mean"], "ce_stderr": e["stderr"], "baseline_ce": e["uniform_ce"],
            "accuracy": e["accuracy"], "baseline_accuracy": e["uniform_accuracy"],
            "ce_games": e["games"]}


def _read(path: str) -> dict | None:
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main(argv=None) -> dict:
    from cardjax.commands import corpus as corpus_command
    from cardjax.commands.train import inference as inference_command

    args = parse_args(argv)
    s = settings_of(args)
    quiet = ["--no-progress"] if args.no_progress else []
    net, rows = s["start"], []
    for r in range(1, s["rounds"] + 1):
        here = os.path.join(args.out, f"round_{r}")
        players = [with_network(w, net) for w in s["players"]]
        corpus_dir, run = os.path.join(here, "corpus"), os.path.join(here, "network")
        print(f"round {r}: {' '.join(players)}", file=sys.stderr, flush=True)
        resume = ["--resume"] if os.path.isfile(os.path.join(corpus_dir, "manifest.json")) else []
        with contextlib.redirect_stdout(sys.stderr):  # the stages' output is the log
            corpus_command.main(["--game", s["game"], "--players", *players,
                                 "--games", str(s["games"]), "--seed", str(s["seed"] + r),
                                 "--batch", str(args.batch), "--out", corpus_dir, *resume,
                                 *quiet])
        row = {"round": r, "players": players, "corpus": corpus_dir, "network": run}
        if net is not None:  # the previous network on the games of the players it made
            path = os.path.join(here, "score.json")
            row["previous"] = _read(path)
            if row["previous"] is None:
                row["previous"] = score(net, corpus_dir, s["score_games"])
                write_atomic(path, json.dumps(row["previous"], indent=1).encode())
        resume = ["--resume"] if os.path.isdir(os.path.join(run, "checkpoints")) else []
        with contextlib.redirect_stdout(sys.stderr):
            trained = inference_command.main(["--corpus", corpus_dir, "--out", run,
                                              *shlex.split(s["train"]), *resume, *quiet])
        row.update(valid_ce=trained.get("best_ce"), baseline_ce=trained.get("uniform_ce"))
        rows.append(row)
        write_atomic(os.path.join(args.out, REPORT),
                     json.dumps({"settings": s, "rounds": rows}, indent=1).encode())
        net = run
    print(f"{'round':>5} {'own valid CE':>12} {'previous net on these games: log10 TSSR':>40} "
          f"{'CE (baseline)':>16}")
    for row in rows:
        p = row.get("previous")
        prev = (f"{p['tssr_log10']:+40.3f} {p['ce']:8.3f} ({p['baseline_ce']:.3f})" if p
                else f"{'-':>40} {'-':>16}")
        print(f"{row['round']:>5} {row['valid_ce'] or float('nan'):12.3f} {prev}")
    return {"settings": s, "rounds": rows}

