"""Train a card-location inference network on a game corpus (Solinas, Rebstock and Buro 2019).

    cardjax corpus --game gongzhu --players greed --games 20000 --out corpora/greed
    cardjax train inference --corpus corpora/greed --out runs/inference_greed
    cardjax train inference --out runs/inference_greed --resume --iterations 4000

The network reads the acting seat's view (``env.observe`` and the move history the paper lists:
cards led and sloughed by each seat, when each card was played; see
``cardjax/nets/card_locations/adapters``) and gives, for every kind of card the seat cannot see, a
softmax over the places it may be in (the other hands; Dou Dizhu's face-down bottom), places
ruled out (a shown void, a full hand) masked.  Each iteration replays ``--batch_games`` training
games of the corpus (shuffled, a new order every epoch) and takes one Adam step on the
cross-entropy of every unseen card at every decision (dropout and ELU layers as in the paper).
Every ``--eval_every`` iterations the validation games are scored: ``eval.json`` gets the
cross-entropy per unseen card (``mean``, lower is better, +- standard error over games), the
share of cards whose most likely place is right, the same for the simple baseline that respects
what is ruled out and spreads the rest by hand size, the network's ``gain`` over it (+- a paired
standard error over games), and all of it by trick (or move) and role.  The
best network so far is kept in ``best.msgpack`` and as the artifact ``player/`` (it loads
without the trainer: ``pimc:inference=RUN``); ``--patience N`` stops after N evaluations
without a better one (early stopping on the validation split).  ``--resume`` continues exactly
(the same batches, in the same order).
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

from cardjax import corpus as corpora
from cardjax.corpus.batches import first_games, over_games, to_device
from cardjax.cli import positive_float, positive_int, probability
from cardjax.train import corpus_run, runner
from cardjax.train.inference import Config, cached_trainer

# The recipe ``cardjax train inference`` runs; the game is the corpus's.
TRAINER = "inference"
GAME = None

TRAIN_FLAGS = {
    "batch_games": (positive_int, "corpus games per step (every decision of each is trained on)"),
    "width": (positive_int, "hidden layer width"),
    "depth": (positive_int, "hidden layers"),
    "dropout": (probability, "dropout rate of the hidden layers"),
    "lr": (positive_float, "Adam learning rate"),
    "lr_decay": (positive_float, "learning rate factor every --decay_steps steps"),
    "decay_steps": (positive_int, "steps between learning-rate decays"),
}
EVAL_DEFAULTS = {"eval_every": 50, "eval_games": 256, "patience": 0}


def parse_args(argv=None):
    return corpus_run.parse_args(__doc__, argv, out="runs/inference", iterations=200,
                                 checkpoint_every=50, defaults=Config(),
                                 train_flags=TRAIN_FLAGS, eval_defaults=EVAL_DEFAULTS)


def resolve(args) -> tuple[Config, int | None]:
    return corpus_run.resolve(args, TRAIN_FLAGS, Config)


def make_evaluate(trainer, c: corpora.Corpus, cfg: Config, games: int, out: str):
    """``evaluate(state) -> dict``: the validation games' cross-entropy per unseen card and the
    rest (module docstring); saves ``best.msgpack`` in ``out`` when it is the best so far
    (``out`` None: scores only, e.g. a network on another corpus's games)."""
    data = first_games(c, "valid", games)
    n = data.deal_id.shape[0]
    best = {"ce": np.inf}
    for e in runner.RunFiles(out).read_evals() if out else ():
        best["ce"] = min(best["ce"], e["mean"])

    def evaluate(state):
        r = over_games(lambda g: trainer.evaluate(state.params, *to_device(g)), data,
                       cfg.batch_games)  # [T, games] each
        v = r["valid"]
        cards = np.where(v, r["cards"], 0)

        def summary(ce, right, mask):
            per_game = np.where(mask, ce, 0).sum(0) / np.maximum(np.where(mask, cards, 0).sum(0), 1)
            used = np.where(mask, cards, 0).sum(0) > 0
            total = max(np.where(mask, cards, 0).sum(), 1)
            se = float(per_game[used].std(ddof=1) / np.sqrt(used.sum())) if used.sum() > 1 else None
            return {"ce": float(np.where(mask, ce, 0).sum() / total), "stderr": se,
                    "accuracy": float(np.where(mask, right, 0).sum() / total),
                    "positions": int(mask.sum())}

        net = summary(r["ce"], r["right"], v)
        uni = summary(r["uniform_ce"], r["uniform_right"], v)
        # the gain over the baseline, per game on the same positions (a paired error)
        per_card = lambda ce: np.where(v, ce, 0).sum(0) / np.maximum(cards.sum(0), 1)
        gain = (per_card(r["uniform_ce"]) - per_card(r["ce"]))[cards.sum(0) > 0]
        by_stage = [{"stage": s, "network": summary(r["ce"], r["right"], v & (r["stage"] == s)),
                     "uniform": summary(r["uniform_ce"], r["uniform_right"],
                                        v & (r["stage"] == s))}
                    for s in range(trainer.adapter.stages) if (v & (r["stage"] == s)).any()]
        by_role = [{"role": name,
                    "network": summary(r["ce"], r["right"], v & (r["role"] == k)),
                    "uniform": summary(r["uniform_ce"], r["uniform_right"], v & (r["role"] == k))}
                   for k, name in enumerate(trainer.adapter.role_names)
                   if (v & (r["role"] == k)).any()]
        improved = net["ce"] < best["ce"]
        if improved and out:
            best["ce"] = net["ce"]
            corpus_run.save_params(os.path.join(out, "best.msgpack"), state.params)
        return {"mean": net["ce"], "stderr": net["stderr"], "accuracy": net["accuracy"],
                "uniform_ce": uni["ce"], "uniform_accuracy": uni["accuracy"],
                "gain": uni["ce"] - net["ce"],
                "gain_stderr": float(gain.std(ddof=1) / np.sqrt(gain.size)) if gain.size > 1
                else None,
                "positions": net["positions"], "games": n, "best": bool(improved),
                "by_stage": by_stage, "by_role": by_role}

    return evaluate, {"split": "valid", "games": n, "stage_name": trainer.adapter.stage_name,
                      "metric": "cross-entropy per unseen card (nats)"}


def main(argv=None) -> dict:
    args = parse_args(argv)
    run = corpus_run.train(
        args, resolve=resolve, cached_trainer=cached_trainer,
        data=lambda trainer, g: to_device(g), make_evaluate=make_evaluate,
        eval_defaults=EVAL_DEFAULTS, name="inference",
        details=lambda cfg, t: f"{cfg.batch_games} corpus games/iteration, {t.kinds} kinds x "
                               f"{t.places} places",
        units="decisions", eval_name="valid CE per card")
    summary = {"iteration": int(run.state.iteration), "out": args.out, "game": run.cfg.game}
    if run.evals:
        last, best = run.evals[-1], min(run.evals, key=lambda e: e["mean"])
        summary.update(valid_ce=last["mean"], valid_accuracy=last["accuracy"],
                       uniform_ce=last["uniform_ce"], best_ce=best["mean"],
                       best_iteration=best["iteration"])
    meaning = (f"nats an unseen card, lower is better; the uniform baseline's "
               f"{run.evals[-1]['uniform_ce']:.3g}") if run.evals else ""
    # the network says where the hidden cards are: PIMC draws its worlds with it
    # (docs/inference.md)
    use = (f"draw PIMC's worlds with it: cardjax arena --game {run.cfg.game} --a "
           f"pimc:worlds=16,inference={os.path.abspath(args.out)} --b pimc:worlds=16")
    print(runner.closing(args.out, summary["iteration"], run.evals, "valid CE per card",
                         meaning, use=use, signed=False), file=sys.stderr, flush=True)
    print(json.dumps(summary))
    return summary
