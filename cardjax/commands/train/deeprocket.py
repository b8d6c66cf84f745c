"""Train DeepRocket's policy and kicker networks on a Dou Dizhu corpus (Jiang et al.).

    cardjax corpus --game doudizhu --players runs/douzero --games 50000 \\
        --out corpora/ddz_douzero
    cardjax train deeprocket --corpus corpora/ddz_douzero --out runs/deeprocket
    cardjax train deeprocket --out runs/deeprocket --resume --iterations 4000
    cardjax arena --game doudizhu --a runs/deeprocket --b rule --deals 1000

The policy network reads the paper's 15 x 19 x 21 planes (the last six rounds of moves, the
cards played before them, the unseen cards and the hand; ``cardjax/nets/deeprocket/adapters``)
plus the seat's role and the cards each seat holds, and chooses one of the 309 move categories
of the paper's table 3; the kicker network then chooses the kickers one at a time (15 solo and 13
pair outputs).  Each iteration replays ``--batch_games`` training games (shuffled, a new order
every epoch), draws ``--batch`` of their decisions and ``--kicker_batch`` of their kicker choices,
and takes one Adam step on the two cross-entropies, each softmax over the legal choices.
Every ``--eval_every`` iterations the validation games are scored: ``eval.json`` gets the
policy's top-1 accuracy against the corpus's players (``mean``, +- standard error over games),
its cross-entropy, the kicker network's top-1 accuracy (earlier kickers given), the accuracy of
the whole move the combined player chooses, the accuracy of a uniform choice among the legal
categories, and all of it by role.  The best network so far (by policy accuracy) is kept in
``best.msgpack`` and as the run's player ``player/`` (an artifact that loads without the
trainer: the one a player loads), written by the evaluation that found it; ``--patience N``
stops after N evaluations without a better one.  After the last iteration the best network is
scored on the test split's first ``--eval_games`` games (``test.json``).  ``--resume`` continues
exactly (the same batches, in the same order).  The paper's
network is ``--depth 10 --width 512`` (a GPU).
"""

from __future__ import annotations

import json
import os
import sys

import jax
import numpy as np

from cardjax import artifact
from cardjax import corpus as corpora
from cardjax.cli import positive_float, positive_int
from cardjax.corpus.batches import first_games, to_device
from cardjax.nets.deeprocket.adapter import available
from cardjax.train import corpus_run, runner
from cardjax.train.deeprocket import Config, cached_trainer

# The recipe ``cardjax train deeprocket --game doudizhu`` runs.
TRAINER = "deeprocket"
GAME = "doudizhu"

TRAIN_FLAGS = {
    "batch_games": (positive_int, "corpus games replayed per step (the batches' source)"),
    "batch": (positive_int, "decisions per step (policy network)"),
    "kicker_batch": (positive_int, "kicker choices per step (kicker network)"),
    "width": (positive_int, "policy network filters"),
    "depth": (positive_int, "policy network convolution layers"),
    "fc": (positive_int, "policy network fully connected units"),
    "kicker_width": (positive_int, "kicker network filters"),
    "kicker_depth": (positive_int, "kicker network convolution layers"),
    "kicker_fc": (positive_int, "kicker network fully connected units"),
    "lr": (positive_float, "Adam learning rate"),
    "lr_decay": (positive_float, "learning rate factor every --decay_steps steps"),
    "decay_steps": (positive_int, "steps between learning-rate decays"),
}
EVAL_DEFAULTS = {"eval_every": 100, "eval_games": 256, "patience": 0}
CHUNK = 512  # decisions scored at once


def parse_args(argv=None):
    return corpus_run.parse_args(__doc__, argv, out="runs/deeprocket", iterations=300,
                                 checkpoint_every=100, defaults=Config(),
                                 train_flags=TRAIN_FLAGS, eval_defaults=EVAL_DEFAULTS)


def resolve(args) -> tuple[Config, int | None]:
    return corpus_run.resolve(args, TRAIN_FLAGS, Config, games=available())


def score_games(trainer, params, data: corpora.Games, batch_games: int) -> dict:
    """Every decision of ``data`` scored (``trainer.score``), with the game each belongs to:
    ``{name: array[decisions]}``.  The decisions of successive batches of games fill chunks of
    :data:`CHUNK` (one compiled program); only the last chunk is padded."""
    n = data.deal_id.shape[0]
    parts, waiting = [], []  # scored chunks; decisions not scored yet: (states, actions, games)

    def score(st, act, game):  # at most CHUNK decisions, padded to a whole chunk
        pad = np.resize(np.arange(game.size), CHUNK)
        res = jax.device_get(trainer.score(params, jax.tree_util.tree_map(lambda x: x[pad], st),
                                           act[pad]))
        parts.append({**{k: v[:game.size] for k, v in res.items()}, "game": game})

    def flush(last: bool):  # score the whole chunks of what waits (and, last, the rest)
        st, act, game = (jax.tree_util.tree_map(lambda *x: np.concatenate(x), *parts_of)
                         for parts_of in zip(*waiting))
        end = game.size if last else game.size - game.size % CHUNK
        for c in range(0, end, CHUNK):
            part = slice(c, min(c + CHUNK, end))
            score(jax.tree_util.tree_map(lambda x: x[part], st), act[part], game[part])
        rest = slice(end, None)
        return [(jax.tree_util.tree_map(lambda x: x[rest], st), act[rest], game[rest])]

    waiting_size = 0
    for start in range(0, n, batch_games):
        rows = np.arange(start, min(start + batch_games, n))
        st, act, decides = trainer.positions(*to_device(data.take(rows)))
        decides = np.asarray(decides)
        game = np.tile(rows, decides.size // rows.size)  # positions are [T x B], game-minor
        idx = np.flatnonzero(decides)
        waiting.append((jax.tree_util.tree_map(lambda x: np.asarray(x)[idx], st),
                        np.asarray(act)[idx], game[idx]))
        waiting_size += idx.size
        if waiting_size >= CHUNK:
            waiting = flush(last=False)
            waiting_size %= CHUNK
    if waiting_size:
        flush(last=True)
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def summarize(r: dict, role_names) -> dict:
    """Accuracies of scored decisions (:func:`score_games`), ± standard error over games."""

    def rate(hit, mask):
        games = np.unique(r["game"][mask])
        if not games.size:
            return {"accuracy": None, "stderr": None, "n": 0}
        per = np.array([hit[mask & (r["game"] == g)].mean() for g in games])
        se = float(per.std(ddof=1) / np.sqrt(per.size)) if per.size > 1 else None
        return {"accuracy": float(hit[mask].mean()), "stderr": se, "n": int(mask.sum())}

    every = np.ones_like(r["right"], bool)
    kv = r["kicker_valid"]
    kgame = np.repeat(r["game"][:, None], kv.shape[1], 1)

    def kicker(mask):
        m = kv & mask[:, None]
        if not m.any():
            return {"accuracy": None, "n": 0}
        return {"accuracy": float(r["kicker_right"][m].mean()), "n": int(m.sum()),
                "games": int(np.unique(kgame[m]).size)}

    def block(mask):
        return {"policy": rate(r["right"], mask), "ce": float(r["ce"][mask].mean()),
                "move": rate(r["move_right"], mask), "kicker": kicker(mask),
                "uniform": float((1.0 / r["legal"][mask]).mean()),
                "choices": rate(r["right"], mask & (r["legal"] > 1))}

    out = block(every)
    out["by_role"] = [dict(role=name, **block(r["role"] == k)) for k, name in enumerate(role_names)
                      if (r["role"] == k).any()]
    return out


def make_evaluate(trainer, c: corpora.Corpus, cfg: Config, games: int, out: str):
    """``evaluate(state) -> dict``: the validation games' accuracies (module docstring); saves
    ``best.msgpack`` when the policy's is the best so far."""
    data = first_games(c, "valid", games)
    best = {"acc": -np.inf}
    for e in runner.RunFiles(out).read_evals():
        best["acc"] = max(best["acc"], e["mean"])

    def evaluate(state):
        s = summarize(score_games(trainer, state.params, data, cfg.batch_games),
                      trainer.nets.adapter.role_names)
        improved = s["policy"]["accuracy"] > best["acc"]
        if improved:
            best["acc"] = s["policy"]["accuracy"]
            corpus_run.save_params(os.path.join(out, "best.msgpack"), state.params)
        return {"mean": s["policy"]["accuracy"], "stderr": s["policy"]["stderr"],
                "ce": s["ce"], "kicker_accuracy": s["kicker"]["accuracy"],
                "move_accuracy": s["move"]["accuracy"], "uniform_accuracy": s["uniform"],
                "decisions": s["policy"]["n"], "games": int(data.deal_id.shape[0]),
                "best": bool(improved), "detail": s}

    return evaluate, {"split": "valid", "games": int(data.deal_id.shape[0]),
                      "metric": "policy top-1 accuracy against the corpus's players"}


def main(argv=None) -> dict:
    args = parse_args(argv)
    run = corpus_run.train(
        args, resolve=resolve, cached_trainer=cached_trainer,
        data=lambda trainer, g: to_device(g), make_evaluate=make_evaluate,
        eval_defaults=EVAL_DEFAULTS, name="DeepRocket",
        details=lambda cfg, t: f"{cfg.batch} decisions + {cfg.kicker_batch} kickers/iteration "
                               f"from {cfg.batch_games} games, policy {cfg.depth} x {cfg.width}",
        units="decisions", eval_name="valid policy accuracy", higher_is_better=True)
    summary = {"iteration": int(run.state.iteration), "out": args.out, "game": run.cfg.game}
    if run.evals:
        last, best = run.evals[-1], max(run.evals, key=lambda e: e["mean"])
        summary.update(policy_accuracy=last["mean"], kicker_accuracy=last["kicker_accuracy"],
                       move_accuracy=last["move_accuracy"],
                       uniform_accuracy=last["uniform_accuracy"], best_accuracy=best["mean"],
                       best_iteration=best["iteration"])
        summary["test_accuracy"] = score_test(run.trainer, run.corpus, run.cfg,
                                              last["games"], args.out)
    meaning = ""
    if run.evals:
        meaning = (f"the share of the validation games' decisions where it plays the corpus's "
                   f"move, choosing uniformly {run.evals[-1]['uniform_accuracy']:.3g}"
                   + (f", the test split {summary['test_accuracy']:.3g}"
                      if summary.get("test_accuracy") is not None else ""))
    print(runner.closing(args.out, summary["iteration"], run.evals, "valid policy accuracy",
                         meaning, game=run.cfg.game, signed=False), file=sys.stderr, flush=True)
    print(json.dumps(summary))
    return summary


def score_test(trainer, c: corpora.Corpus, cfg: Config, games: int, out: str) -> float | None:
    """The best network (the run's player) scored on the test split's first ``games`` games,
    written to ``test.json`` (the validation split chose it; the test split reports it).  Its
    policy accuracy, or None when the corpus has no test games."""
    if not c.count("test"):
        return None
    params = artifact.from_run(out).params
    data = first_games(c, "test", games)
    s = summarize(score_games(trainer, params, data, cfg.batch_games),
                  trainer.nets.adapter.role_names)
    s["games"] = int(data.deal_id.shape[0])
    tmp = os.path.join(out, "test.json.tmp")
    with open(tmp, "w") as f:
        json.dump(s, f, indent=1)
    os.replace(tmp, os.path.join(out, "test.json"))
    return s["policy"]["accuracy"]
