#!/usr/bin/env python
"""Train DouZero (Deep Monte Carlo) for Dou Dizhu by self-play, and evaluate it against the rule
agent and random.

    python experiments/douzero.py                                      # small CPU run, minutes
    python experiments/douzero.py --num_envs 4096 --iterations 2000 --lstm 128 --width 512 \\
        --depth 3 --head_width 512 --head_depth 3 --minibatch 8192 --eval_every 100 \\
        --eval_deals 1000 --out runs/douzero_gpu                       # one GPU
    python experiments/douzero.py --out runs/douzero_gpu --resume      # continue a stopped run

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
error).  The games are split over every device of every process (``--multihost`` joins a
multi-process run with ``jax.distributed.initialize()``).
"""

from __future__ import annotations

import argparse
import json
import sys

import jax

import cardjax
from cardjax import agents
from cardjax.agents import dmc as dmc_agent
from cardjax.cli import non_negative_int, positive_float, positive_int, probability
from cardjax.eval import arena
from cardjax.train import dmc, runner


def discount(text: str) -> float:
    value = probability(text)
    if value == 0.0:
        raise argparse.ArgumentTypeError("gamma must be > 0")
    return value


# The training flags' defaults: small enough for a CPU run of a few minutes (dmc.Config has
# DouZero's values where it gives them).  They default to None on the command line so that a
# resumed run can tell the flags a user typed from the defaults.
TRAIN_DEFAULTS = {**dmc.Config().to_dict(), "num_envs": 32, "lstm": 64, "width": 128,
                  "depth": 2, "head_width": 128, "head_depth": 2, "minibatch": 512}
_FIXED = ("algorithm", "game")  # config keys that are not flags


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 2)[2])
    runner.add_run_flags(p, out="runs/douzero", iterations=20)
    train = p.add_argument_group("training (saved with the run; defaults in brackets)")

    def flag(name, text, **kw):
        train.add_argument(f"--{name}", default=None,
                           help=f"{text} [{TRAIN_DEFAULTS[name]}]", **kw)

    flag("num_envs", "self-play games per iteration", type=positive_int)
    flag("reward", "reward of the games", choices=("adp", "wp", "logadp"))
    flag("k", "candidate slots per decision (more legal moves are counted as overflow)",
         type=positive_int)
    flag("k_fast", "slots scored at every decision (all k only where more moves are legal; "
         "0 = always all k)", type=non_negative_int)
    flag("max_steps", "longest game played out (longer ones are counted as truncated)",
         type=positive_int)
    flag("epsilon", "exploration of the actors", type=probability)
    flag("gamma", "discount per step", type=discount)
    flag("lr", "RMSProp learning rate", type=positive_float)
    flag("alpha", "RMSProp decay", type=probability)
    flag("clip", "gradient clipping (global norm, per position)", type=positive_float)
    flag("minibatch", "decisions per gradient step (per position)", type=positive_int)
    flag("epochs", "passes over the iteration's decisions", type=positive_int)
    flag("replay", "previous iterations' decisions trained on again", type=non_negative_int)
    flag("lstm", "LSTM size (history of the last 15 moves)", type=positive_int)
    flag("width", "state MLP width", type=positive_int)
    flag("depth", "state MLP layers", type=non_negative_int)
    flag("head_width", "per-candidate head width", type=positive_int)
    flag("head_depth", "per-candidate head layers", type=positive_int)
    ev = p.add_argument_group("evaluation (duplicate deals against the rule agent and random)")
    ev.add_argument("--eval_every", type=non_negative_int, default=10,
                    help="evaluate every this many iterations and after the last (0: only "
                    "after the last)")
    ev.add_argument("--eval_deals", type=non_negative_int, default=64,
                    help="deals per opponent, each played with the roles swapped (0 skips)")
    ev.add_argument("--eval_seed", type=int, default=12345,
                    help="seed of the evaluation deals (the same deals every evaluation)")
    return p.parse_args(argv)


def resolve_config(args) -> tuple[dmc.Config, int | None]:
    """The run's config: from the flags, or from the checkpoint when resuming."""
    typed = {k: getattr(args, k) for k in TRAIN_DEFAULTS
             if k not in _FIXED and getattr(args, k, None) is not None}
    return runner.resolve_config(
        args.out, args.resume, typed, TRAIN_DEFAULTS, dmc.Config.from_dict,
        lambda saved: None if saved.get("algorithm") == "dmc"
        else "it holds a run of another trainer")


def make_evaluate(cfg: dmc.Config, params, deals: int, seed: int):
    """``evaluate(state) -> dict`` for the runner: ADP against the rule agent as ``mean``."""
    env = cardjax.make("doudizhu")  # ADP scoring whatever the training reward
    player = dmc_agent.agent_from_params(env, params, cfg)
    opponents = {name: agents.get(env, name) for name in ("rule", "random")}

    def evaluate(state):
        me = player._replace(params=jax.device_get(state.params))
        out = {}
        for name, opp in opponents.items():
            r = arena.duplicate_match(env, me, opp, deals=deals, seed=seed,
                                      batch=min(deals, 64), progress=False)
            out[f"vs_{name}"] = {k: r[k] for k in (
                "mean", "stderr", "games", "wp_a_landlord", "wp_b_landlord", "adp_a",
                "adp_a_landlord", "adp_a_peasants")}
            # WP as landlord; WP as peasants = 1 - the opponent's landlord WP
            out[f"wp_landlord_vs_{name}"] = r["wp_a_landlord"]
            out[f"wp_peasants_vs_{name}"] = 1.0 - r["wp_b_landlord"]
            out[f"adp_vs_{name}"] = r["mean"]
        return {"mean": out["vs_rule"]["mean"], "stderr": out["vs_rule"]["stderr"],
                "opponent": "rule", **out}

    info = {"opponents": list(opponents), "main_opponent": "rule", "deals": deals,
            "seed": seed, "scoring": "adp", "play": "greedy"}
    return evaluate, info


def main(argv=None) -> dict:
    args = parse_args(argv)
    if args.multihost:
        jax.distributed.initialize()
    is_main = jax.process_index() == 0
    cfg, latest = resolve_config(args)
    train = dmc.cached_train(cfg, runner.games_mesh(cfg.num_envs))
    state, ckpt = runner.initial_state(args.out, latest, train.init, args.seed, is_main)
    if is_main:
        params = sum(x.size for x in jax.tree_util.tree_leaves(state.params))
        print(f"cardjax {cardjax.__version__}: DouZero (DMC) on {jax.device_count()} "
              f"{jax.devices()[0].platform} device(s); {cfg.num_envs} games/iteration, "
              f"3 nets ({params:,} params in all), k={cfg.k}, reward {cfg.reward}, "
              f"out {args.out}", file=sys.stderr)

    evaluate, info = None, None
    if args.eval_deals > 0 and is_main:
        evaluate, info = make_evaluate(cfg, state.params, args.eval_deals, args.eval_seed)

    eval_every = args.eval_every if args.eval_every > 0 else args.iterations
    state = runner.run(out=args.out, state=state, step=train.step, config=cfg.to_dict(),
                       iterations=args.iterations, units_per_iteration="frames",
                       rate_name="frames_per_s", eval_name="ADP vs rule", evaluate=evaluate,
                       eval_every=eval_every, eval_info=info, checkpoint_every=args.checkpoint_every,
                       progress=not args.no_progress, is_main=is_main, checkpoints=ckpt,
                       title=f"DouZero {cfg.num_envs} games/it, reward {cfg.reward}")
    ckpt.close()
    summary = {"iteration": int(state.iteration), "out": args.out}
    if is_main:
        evals = runner.RunFiles(args.out).read_evals()
        if evals:
            last = evals[-1]
            summary.update(adp_vs_rule=last["mean"], adp_vs_rule_stderr=last["stderr"],
                           wp_landlord_vs_rule=last["wp_landlord_vs_rule"],
                           wp_peasants_vs_rule=last["wp_peasants_vs_rule"],
                           adp_vs_random=last["adp_vs_random"])
        print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
