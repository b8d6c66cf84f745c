"""Train a Deep Monte Carlo (DMC) player for Gongzhu by self-play, and evaluate it against Mr Greed.

    cardjax train gongzhu_dmc                                          # small CPU run, minutes
    cardjax train gongzhu_dmc --num_envs 4096 --iterations 2000 --width 512 --depth 3 \\
        --head_width 512 --head_depth 3 --minibatch 8192 --eval_every 100 --eval_deals 1000 \\
        --out runs/gongzhu_dmc_gpu                                     # one GPU
    cardjax train gongzhu_dmc --out runs/gongzhu_dmc_gpu --resume      # continue a run

A cheap baseline beside ScrofaZero (``cardjax train scrofazero``): no search, no perfect
information.  Every iteration plays ``--num_envs`` Gongzhu games (no exposure phase) in which one
epsilon-greedy Q network plays all four seats from each seat's own observation, then regresses
Q(s, a_taken) on the acting seat's Monte-Carlo return -- its team's point margin at the end of the
game, times ``--reward_scale`` (MSE, RMSProp, gradient clipping) (``cardjax.train.dmc``); it is
one compiled step.  Every ``--eval_every`` iterations (and after the last) the greedy network
plays duplicate deals against two Mr Greeds (``cardjax.eval.arena``, each deal in both seat
rotations): ``eval.json`` gets the ScrofaZero paper's WPG (winning points per game, points of the
network's team minus Mr Greeds') as ``mean`` +- ``stderr``.

The run directory ``--out`` gets ``metrics.jsonl`` (loss, frames/s = decisions trained per
second, the self-play margin, ...), ``eval.json``, ``curves.png`` and orbax checkpoints (every
``--checkpoint_every`` iterations); ``--resume`` continues the newest checkpoint exactly as if the
run had never stopped (its training flags win; typing a different one is an error).  The
evaluation settings are saved with the run too (``eval_settings.json``; a flag typed on
``--resume`` replaces its saved value).  Each evaluation writes the greedy player to
``--out``/``player``, an artifact that loads without the trainer; play it with
``cardjax arena --game gongzhu --a RUN_DIR/player --b greed`` (or ``--a RUN_DIR``).  The
games are split over every device of every process (``--multihost`` joins a multi-process run
with ``jax.distributed.initialize()``).
"""

from __future__ import annotations

import jax

from cardjax import agents
from cardjax.commands.train import evaluation
from cardjax.eval import arena
from cardjax.train import dmc
from cardjax.train.dmc import cli as dmc_cli

# The recipe ``cardjax train dmc --game gongzhu`` runs.
TRAINER = "dmc"
GAME = "gongzhu"

# The training flags' defaults: small enough for a CPU run of a minute or two.
TRAIN_DEFAULTS = dmc_cli.train_defaults(GAME, num_envs=32, width=128, depth=2,
                                        head_width=128, head_depth=2, minibatch=512, lr=1e-3)


def parse_args(argv=None):
    return dmc_cli.make_parser(
        __doc__, "runs/gongzhu_dmc", 200, TRAIN_DEFAULTS,
        "WPG: duplicate deals against two Mr Greeds, both seat rotations",
        eval_every=50, eval_deals=32, checkpoint_every=50).parse_args(argv)


def make_evaluate(cfg: dmc.Config, params, deals: int, seed: int):
    """``evaluate(state) -> dict`` for the runner: WPG against Mr Greed as ``mean``."""
    env, player, opponents = evaluation.players(cfg, GAME, ("greed",))
    greed = opponents["greed"]

    def evaluate(state):
        me = player._replace(params=jax.device_get(state.params))
        r = arena.duplicate_match(env, me, greed, deals=deals, seed=seed,
                                  batch=min(deals, 64), progress=False)
        return {"mean": r["mean"], "stderr": r["stderr"], "games": r["games"]}

    evaluate.prepare = lambda state: arena.compile_matches(  # compiled while training starts
        env, player._replace(params=jax.device_get(state.params)), [greed], deals, seed,
        min(deals, 64))
    info = {"opponent": "greed", "deals": deals, "seed": seed, "scoring": "wpg",
            "play": "greedy"}
    return evaluate, info


def summarize(last: dict) -> dict:
    return {"wpg": last["mean"], "wpg_stderr": last["stderr"]}


def main(argv=None) -> dict:
    return dmc_cli.main(parse_args(argv), TRAIN_DEFAULTS, make_evaluate, label="Gongzhu DMC",
                        eval_name="WPG vs greed", summarize=summarize,
                        load_player=agents.load)
