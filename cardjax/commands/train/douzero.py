"""Train DouZero (Deep Monte Carlo) for Dou Dizhu by self-play, and evaluate it against the rule
agent and random.

    cardjax train douzero                                              # small CPU run, minutes
    cardjax train douzero --num_envs 4096 --iterations 2000 --lstm 128 --width 512 \\
        --depth 3 --head_width 512 --head_depth 3 --minibatch 8192 --eval_every 100 \\
        --eval_deals 1000 --out runs/douzero_gpu                       # one GPU
    cardjax train douzero --out runs/douzero_gpu --resume              # continue a stopped run

Every iteration plays ``--num_envs`` Dou Dizhu games (seat 0 the landlord) with epsilon-greedy
Q networks, one per position -- ``landlord``, ``landlord_down`` (the peasant right after the
landlord) and ``landlord_up`` (the peasant right before it) -- then regresses each position's
Q(s, a_taken) on the Monte-Carlo return of its decisions (MSE, RMSProp, gradient clipping at 40)
(``cardjax.train.dmc``); it is one compiled step.  Every ``--eval_every`` iterations (and after
the last) the greedy networks play duplicate deals against the rule agent and random
(``cardjax.eval.arena``, roles swapped, ADP scoring): ``eval.json`` gets ADP per game against the
rule agent as ``mean`` +- ``stderr`` and the landlord win rates (WP) of both sides for both
opponents.

The run directory ``--out`` gets ``metrics.jsonl`` (loss per position, frames/s = decisions
trained per second, overflow and truncation counts, ...), ``eval.json``, ``curves.png`` and orbax
checkpoints (every ``--checkpoint_every`` iterations); ``--resume`` continues the newest checkpoint
exactly as if the run had never stopped (its training flags win; typing a different one is an
error).  The evaluation settings are saved with the run too (``eval_settings.json``; a flag typed
on ``--resume`` replaces its saved value).  The games are split over every device of every
process (``--multihost`` joins a multi-process run with ``jax.distributed.initialize()``).
Each evaluation writes the greedy player to ``--out``/``player`` (an artifact that loads without
the trainer: ``cardjax arena --game doudizhu --a DIR/player --b rule``).
"""

from __future__ import annotations

import jax

from cardjax import agents
from cardjax.commands.train import evaluation
from cardjax.eval import arena
from cardjax.train import dmc
from cardjax.train.dmc import cli as dmc_cli

# The recipe ``cardjax train dmc --game doudizhu`` runs.
TRAINER = "dmc"
GAME = "doudizhu"

# The training flags' defaults: small enough for a CPU run of a few minutes (dmc.Config has
# DouZero's values where it gives them).
TRAIN_DEFAULTS = dmc_cli.train_defaults(GAME, num_envs=32, lstm=64, width=128, depth=2,
                                        head_width=128, head_depth=2, minibatch=512)


def parse_args(argv=None):
    return dmc_cli.make_parser(
        __doc__, "runs/douzero", 20, TRAIN_DEFAULTS,
        "duplicate deals against the rule agent and random, roles swapped").parse_args(argv)


def make_evaluate(cfg: dmc.Config, params, deals: int, seed: int):
    """``evaluate(state) -> dict`` for the runner: ADP against the rule agent as ``mean``."""
    bidding = bool(cfg.options.bidding)
    # ADP scoring whatever the training reward
    env, player, opponents = evaluation.players(cfg, GAME, ("rule", "random"), bidding=bidding)
    keys = ("mean", "stderr", "games", "wp_a_landlord", "wp_b_landlord", "adp_a") + (
        ("landlord_share_a", "void_rate") if bidding else ("adp_a_landlord", "adp_a_peasants"))

    def evaluate(state):
        me = player._replace(params=jax.device_get(state.params))
        out = {}
        for name, opp in opponents.items():
            r = arena.duplicate_match(env, me, opp, deals=deals, seed=seed,
                                      batch=min(deals, 64), progress=False)
            out[f"vs_{name}"] = {k: r[k] for k in keys}
            # WP as landlord; WP as peasants = 1 - the opponent's landlord WP (None: never)
            out[f"wp_landlord_vs_{name}"] = r["wp_a_landlord"]
            out[f"wp_peasants_vs_{name}"] = (None if r["wp_b_landlord"] is None
                                             else 1.0 - r["wp_b_landlord"])
            out[f"adp_vs_{name}"] = r["mean"]
        return {"mean": out["vs_rule"]["mean"], "stderr": out["vs_rule"]["stderr"],
                "opponent": "rule", **out}

    evaluate.prepare = lambda state: arena.compile_matches(  # compiled while training starts
        env, player._replace(params=jax.device_get(state.params)), opponents.values(), deals,
        seed, min(deals, 64))
    info = {"opponents": list(opponents), "main_opponent": "rule", "deals": deals,
            "seed": seed, "scoring": "adp", "play": "greedy",
            "scheme": "seat subsets (bidding)" if bidding else "role swap"}
    return evaluate, info


def summarize(last: dict) -> dict:
    return {"adp_vs_rule": last["mean"], "adp_vs_rule_stderr": last["stderr"],
            "wp_landlord_vs_rule": last["wp_landlord_vs_rule"],
            "wp_peasants_vs_rule": last["wp_peasants_vs_rule"],
            "adp_vs_random": last["adp_vs_random"]}


def main(argv=None) -> dict:
    return dmc_cli.main(parse_args(argv), TRAIN_DEFAULTS, make_evaluate, label="DouZero (DMC)",
                        eval_name="ADP vs rule", summarize=summarize,
                        load_player=agents.load)
