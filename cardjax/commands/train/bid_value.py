"""Train a bid value network on a Dou Dizhu corpus (the DouZero+ approach to bidding).

    cardjax corpus --game doudizhu --players rule --games 50000 \
        --out corpora/ddz_rule
    cardjax train bid_value --corpus corpora/ddz_rule --out runs/bid_rule
    cardjax arena --game doudizhu --bidding --a bidder:value=runs/bid_rule,play=rule \\
        --b rule --deals 1000

From the landlord's 17 cards before it takes the bottom, the network predicts its chance to win
and its expected points, as the corpus's players play the cards out (train it on a corpus of the
card player that will bid with it).  Each iteration takes ``--batch_games`` training games (one
example each: the landlord's hand and its result).  Every ``--eval_every`` iterations the
validation games are scored: ``eval.json`` gets the cross-entropy of the win probability
(``mean``), the squared error of the points, and the calibration (predicted against realised
win rate by decile of the prediction); the best network is kept in ``best.msgpack`` and as the
artifact ``player/`` (it loads without the trainer), the one ``bidder:value=RUN`` loads.
``--resume`` continues exactly.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

from cardjax import corpus as corpora
from cardjax.cli import positive_float, positive_int
from cardjax.corpus.batches import first_games, over_games, to_device
from cardjax.nets.bid_value.adapter import available
from cardjax.train import corpus_run, runner
from cardjax.train.bid_value import Config, cached_trainer

# The recipe ``cardjax train bid_value --game doudizhu`` runs.
TRAINER = "bid_value"
GAME = "doudizhu"

TRAIN_FLAGS = {
    "batch_games": (positive_int, "games (examples) per step"),
    "width": (positive_int, "hidden layer width"),
    "depth": (positive_int, "hidden layers"),
    "lr": (positive_float, "Adam learning rate"),
    "return_scale": (positive_float, "the points' squared error is taken on points x this"),
}
EVAL_DEFAULTS = {"eval_every": 100, "eval_games": 2000, "patience": 0}


def parse_args(argv=None):
    return corpus_run.parse_args(__doc__, argv, out="runs/bid_value", iterations=500,
                                 checkpoint_every=100, defaults=Config(),
                                 train_flags=TRAIN_FLAGS, eval_defaults=EVAL_DEFAULTS)


def resolve(args) -> tuple[Config, int | None]:
    return corpus_run.resolve(args, TRAIN_FLAGS, Config, games=available())


def predictions(trainer, params, data: corpora.Games, batch: int) -> dict:
    """``{p_win, points, won, realised}``: one entry per game of ``data``."""
    got = over_games(lambda g: tuple(trainer.predict(params, *to_device_returns(g))), data,
                     batch, per_position=False)
    return dict(zip(("p_win", "points", "won", "realised"), got))


def to_device_returns(g: corpora.Games):
    states, _ = to_device(g)
    return states, np.asarray(g.returns)


def calibration(p, won, bins: int = 10) -> list[dict]:
    """Predicted against realised win rate, by decile of the prediction."""
    edges = np.quantile(p, np.linspace(0, 1, bins + 1))
    which = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, bins - 1)
    return [{"decile": int(b), "predicted": float(p[which == b].mean()),
             "realised": float(won[which == b].mean()), "games": int((which == b).sum())}
            for b in range(bins) if (which == b).any()]


def summarize(r: dict) -> dict:
    p = np.clip(r["p_win"], 1e-7, 1 - 1e-7)
    won = r["won"].astype(np.float64)
    ce = -(won * np.log(p) + (1 - won) * np.log(1 - p))
    base = won.mean()
    base_ce = -(won * np.log(base) + (1 - won) * np.log(1 - base))
    return {"mean": float(ce.mean()), "stderr": float(ce.std(ddof=1) / np.sqrt(ce.size)),
            "base_rate_ce": float(base_ce.mean()), "win_rate": float(base),
            "points_mse": float(((r["points"] - r["realised"]) ** 2).mean()),
            "points_var": float(r["realised"].var()), "games": int(ce.size),
            "calibration": calibration(r["p_win"], won)}


def make_evaluate(trainer, c, cfg: Config, games: int, out: str):
    data = first_games(c, "valid", games)
    best = {"ce": np.inf}
    for e in runner.RunFiles(out).read_evals():
        best["ce"] = min(best["ce"], e["mean"])

    def evaluate(state):
        s = summarize(predictions(trainer, state.params, data, cfg.batch_games))
        s["best"] = bool(s["mean"] < best["ce"])
        if s["best"]:
            best["ce"] = s["mean"]
            corpus_run.save_params(os.path.join(out, "best.msgpack"), state.params)
        return s

    return evaluate, {"split": "valid", "games": int(data.deal_id.shape[0]),
                      "metric": "cross-entropy of the landlord's win probability (nats)"}


def main(argv=None) -> dict:
    args = parse_args(argv)

    def fixed_landlord(env):
        if getattr(env, "bidding", False):
            raise SystemExit("error: --corpus: its games have an auction; the examples need a "
                             "corpus with a fixed landlord")

    run = corpus_run.train(
        args, resolve=resolve, cached_trainer=cached_trainer,
        data=lambda trainer, g: to_device_returns(g), make_evaluate=make_evaluate,
        eval_defaults=EVAL_DEFAULTS, name="bid value",
        details=lambda cfg, t: f"{cfg.batch_games} games/iteration", units="games",
        eval_name="valid CE", check_env=fixed_landlord)
    summary = {"iteration": int(run.state.iteration), "out": args.out, "game": run.cfg.game}
    if run.evals:
        last = run.evals[-1]
        summary.update(valid_ce=last["mean"], base_rate_ce=last["base_rate_ce"],
                       points_mse=last["points_mse"], points_var=last["points_var"])
    meaning = (f"nats a hand of the landlord's win probability, lower is better; the base "
               f"rate's {run.evals[-1]['base_rate_ce']:.3g}") if run.evals else ""
    # the network values hands: the bidder player uses it (docs/bidding.md)
    use = (f"bid with it: cardjax arena --game doudizhu --bidding --a "
           f"bidder:value={os.path.abspath(args.out)},play=rule")
    print(runner.closing(args.out, summary["iteration"], run.evals, "valid CE", meaning,
                         use=use, signed=False), file=sys.stderr, flush=True)
    print(json.dumps(summary))
    return summary
