"""Command-line pieces shared by the DMC commands (``experiments/douzero.py``,
``experiments/shengji.py``): the training flags, the config of a new or resumed run, and the run
itself (runner loop, evaluation, checkpoints, summary line).

The training flags default to None on the command line so that a resumed run can tell the flags
a user typed from the defaults (``TRAIN_DEFAULTS`` of each command holds the real defaults).
"""

from __future__ import annotations

import argparse
import json
import sys

import jax

import cardjax
from cardjax.cli import non_negative_int, positive_float, positive_int, probability
from cardjax.train import dmc, runner

FIXED = ("algorithm", "game")  # config keys that are not flags


def discount(text: str) -> float:
    value = probability(text)
    if value == 0.0:
        raise argparse.ArgumentTypeError("gamma must be > 0")
    return value


# name -> (help, argparse options) of the flags both commands have
COMMON_FLAGS = {
    "num_envs": ("self-play games per iteration", dict(type=positive_int)),
    "k": ("candidate slots per decision (more legal moves are counted as overflow)",
          dict(type=positive_int)),
    "k_fast": ("slots scored at every decision (all k only where more moves are legal; "
               "0 = always all k)", dict(type=non_negative_int)),
    "max_steps": ("longest game played out (longer ones are counted as truncated)",
                  dict(type=positive_int)),
    "epsilon": ("exploration of the actors", dict(type=probability)),
    "gamma": ("discount per step", dict(type=discount)),
    "lr": ("RMSProp learning rate", dict(type=positive_float)),
    "alpha": ("RMSProp decay", dict(type=probability)),
    "clip": ("gradient clipping (global norm, per network)", dict(type=positive_float)),
    "minibatch": ("decisions per gradient step (per network)", dict(type=positive_int)),
    "epochs": ("passes over the iteration's decisions", dict(type=positive_int)),
    "replay": ("previous iterations' decisions trained on again", dict(type=non_negative_int)),
    "width": ("state MLP width", dict(type=positive_int)),
    "depth": ("state MLP layers", dict(type=non_negative_int)),
    "head_width": ("per-candidate head width", dict(type=positive_int)),
    "head_depth": ("per-candidate head layers", dict(type=positive_int)),
}


def make_parser(doc: str, out: str, iterations: int, defaults: dict, flags: dict,
                eval_text: str, eval_every: int = 10,
                eval_deals: int = 64) -> argparse.ArgumentParser:
    """The parser of a DMC command: run flags, the training ``flags`` (name -> (help,
    options); shown with their ``defaults``), the evaluation flags."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=doc.split("\n\n", 2)[2])
    runner.add_run_flags(p, out=out, iterations=iterations)
    train = p.add_argument_group("training (saved with the run; defaults in brackets)")
    for name, (text, kw) in flags.items():
        train.add_argument(f"--{name}", default=None, help=f"{text} [{defaults[name]}]", **kw)
    ev = p.add_argument_group(f"evaluation ({eval_text})")
    ev.add_argument("--eval_every", type=non_negative_int, default=eval_every,
                    help="evaluate every this many iterations and after the last (0: only "
                    "after the last)")
    ev.add_argument("--eval_deals", type=non_negative_int, default=eval_deals,
                    help="deals per opponent, each played in every seat arrangement (0 skips)")
    ev.add_argument("--eval_seed", type=int, default=12345,
                    help="seed of the evaluation deals (the same deals every evaluation)")
    return p


def resolve_config(args, defaults: dict) -> tuple[dmc.Config, int | None]:
    """The run's config: from the flags, or from the checkpoint when resuming."""
    typed = {k: getattr(args, k) for k in defaults
             if k not in FIXED and getattr(args, k, None) is not None}
    return runner.resolve_config(
        args.out, args.resume, typed, defaults, dmc.Config.from_dict,
        lambda saved: None if saved.get("algorithm") == "dmc" and saved.get("game") ==
        defaults["game"] else "it holds a run of another trainer or game")


def run_command(args, defaults: dict, make_evaluate, eval_name: str, title, describe,
                summarize) -> dict:
    """Train (and evaluate) a DMC run from parsed ``args``: ``make_evaluate(cfg, params, deals,
    seed) -> (evaluate, info)``; ``title(cfg)`` of the curves; ``describe(cfg, n_params)`` the
    start line; ``summarize(last_eval) -> dict`` the summary's evaluation keys."""
    if args.multihost:
        jax.distributed.initialize()
    is_main = jax.process_index() == 0
    cfg, latest = resolve_config(args, defaults)
    train = dmc.cached_train(cfg, runner.games_mesh(cfg.num_envs))
    state, ckpt = runner.initial_state(args.out, latest, train.init, args.seed, is_main)
    if is_main:
        params = sum(x.size for x in jax.tree_util.tree_leaves(state.params))
        print(f"cardjax {cardjax.__version__}: {describe(cfg, params)} on {jax.device_count()} "
              f"{jax.devices()[0].platform} device(s); out {args.out}", file=sys.stderr)

    evaluate, info = None, None
    if args.eval_deals > 0 and is_main:
        evaluate, info = make_evaluate(cfg, state.params, args.eval_deals, args.eval_seed)

    eval_every = args.eval_every if args.eval_every > 0 else args.iterations
    state = runner.run(out=args.out, state=state, step=train.step, config=cfg.to_dict(),
                       iterations=args.iterations, units_per_iteration="frames",
                       rate_name="frames_per_s", eval_name=eval_name, evaluate=evaluate,
                       eval_every=eval_every, eval_info=info,
                       checkpoint_every=args.checkpoint_every,
                       progress=not args.no_progress, is_main=is_main, checkpoints=ckpt,
                       title=title(cfg))
    ckpt.close()
    summary = {"iteration": int(state.iteration), "out": args.out}
    if is_main:
        evals = runner.RunFiles(args.out).read_evals()
        if evals:
            summary.update(summarize(evals[-1]))
        print(json.dumps(summary))
    return summary
