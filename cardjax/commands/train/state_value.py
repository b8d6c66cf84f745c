"""Train a state value network on a game corpus: the value of a whole position for a search's
leaves.

    cardjax corpus --game doudizhu --players doudizhu-pretrained --games 40000 \\
        --out corpora/ddz_pretrained
    cardjax train state_value --corpus corpora/ddz_pretrained --out runs/value_ddz
    cardjax arena --game doudizhu --a pimc:worlds=8,candidates=8,value=runs/value_ddz,\\
rank=doudizhu-pretrained --b doudizhu-pretrained --deals 512

From ``env.observe_oracle`` of the seat to act (its own view and every hidden card) the network
predicts the rewards that seat still receives as the corpus's players play the game out (train
it on the games of the players a search expects to meet: it stands for their playouts).  Each
iteration replays ``--batch_games`` training games and takes one Adam step on the squared error
of ``--batch`` of their positions, drawn at random.  Every ``--eval_every`` iterations every
position of the validation games is scored: ``eval.json`` gets the squared error (``mean``,
lower is better, +- standard error over games), the variance of the targets (the squared error
of the best constant), their ratio's complement ``r2``, and the share of positions whose sign
(win or loss for the seat to act) the network gets right.  The best network is kept in
``best.msgpack`` and as the artifact ``player/`` (it loads without the trainer:
``pimc:value=RUN``).  ``--resume`` continues exactly.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

from cardjax import corpus as corpora
from cardjax.cli import positive_float, positive_int
from cardjax.corpus.batches import first_games, over_games, to_device
from cardjax.train import corpus_run, runner
from cardjax.train.state_value import Config, cached_trainer

# The recipe ``cardjax train state_value`` runs; the game is the corpus's.
TRAINER = "state_value"
GAME = None

TRAIN_FLAGS = {
    "batch_games": (positive_int, "corpus games replayed per step"),
    "batch": (positive_int, "positions per step, drawn from those games"),
    "width": (positive_int, "hidden layer width"),
    "depth": (positive_int, "hidden layers"),
    "lr": (positive_float, "Adam learning rate"),
    "return_scale": (positive_float, "the squared error is taken on the return x this"),
}
EVAL_DEFAULTS = {"eval_every": 100, "eval_games": 256, "patience": 0}


def parse_args(argv=None):
    return corpus_run.parse_args(__doc__, argv, out="runs/state_value", iterations=1000,
                                 checkpoint_every=100, defaults=Config(),
                                 train_flags=TRAIN_FLAGS, eval_defaults=EVAL_DEFAULTS)


def resolve(args) -> tuple[Config, int | None]:
    return corpus_run.resolve(args, TRAIN_FLAGS, Config)


def scores(trainer, params, data: corpora.Games, batch: int):
    """``(predicted, to_come, live)`` of every position of ``data``: float32[T, games] twice and
    bool[T, games]."""
    return over_games(lambda g: tuple(trainer.score(params, *to_device(g))), data, batch)


def summarize(predicted, to_come, live) -> dict:
    """The validation figures of the module docstring."""
    err = np.where(live, (predicted - to_come) ** 2, 0.0)
    per_game = err.sum(0) / np.maximum(live.sum(0), 1)
    target = to_come[live]
    mse = float(err.sum() / live.sum())
    var = float(target.var())
    decided = live & (to_come != 0)
    return {"mean": mse,
            "stderr": float(per_game.std(ddof=1) / np.sqrt(per_game.size)) if per_game.size > 1
            else None,
            "target_var": var, "r2": 1.0 - mse / var if var > 0 else None,
            "sign_right": float((np.sign(predicted) == np.sign(to_come))[decided].mean())
            if decided.any() else None,
            "positions": int(live.sum()), "games": int(live.shape[1])}


def make_evaluate(trainer, c: corpora.Corpus, cfg: Config, games: int, out: str):
    data = first_games(c, "valid", games)
    best = {"mse": np.inf}
    for e in runner.RunFiles(out).read_evals():
        best["mse"] = min(best["mse"], e["mean"])

    def evaluate(state):
        s = summarize(*scores(trainer, state.params, data, cfg.batch_games))
        s["best"] = bool(s["mean"] < best["mse"])
        if s["best"]:
            best["mse"] = s["mean"]
            corpus_run.save_params(os.path.join(out, "best.msgpack"), state.params)
        return s

    return evaluate, {"split": "valid", "games": int(data.deal_id.shape[0]),
                      "metric": "squared error of the return still to come, every position"}


def main(argv=None) -> dict:
    args = parse_args(argv)
    run = corpus_run.train(
        args, resolve=resolve, cached_trainer=cached_trainer,
        data=lambda trainer, g: to_device(g), make_evaluate=make_evaluate,
        eval_defaults=EVAL_DEFAULTS, name="state value",
        details=lambda cfg, t: f"{cfg.batch_games} corpus games/iteration, {cfg.batch} "
                               "positions", units="positions", eval_name="valid MSE")
    summary = {"iteration": int(run.state.iteration), "out": args.out, "game": run.cfg.game}
    if run.evals:
        last = run.evals[-1]
        summary.update(valid_mse=last["mean"], target_var=last["target_var"], r2=last["r2"],
                       sign_right=last["sign_right"])
    meaning = (f"squared points a position, lower is better; the best constant's "
               f"{run.evals[-1]['target_var']:.3g}") if run.evals else ""
    # the network values whole positions: a search that deals worlds reads it at its leaves
    # (docs/inference.md)
    use = (f"value PIMC's moves with it: cardjax arena --game {run.cfg.game} --a "
           f"pimc:worlds=8,value={os.path.abspath(args.out)} --b pimc:worlds=8")
    print(runner.closing(args.out, summary["iteration"], run.evals, "valid MSE", meaning,
                         use=use, signed=False), file=sys.stderr, flush=True)
    print(json.dumps(summary))
    return summary
