"""Train ScrofaZero for Gongzhu by self-play, and evaluate it against Mr Greed.

    cardjax train scrofazero                                               # small CPU run, minutes
    cardjax train scrofazero --num_envs 4096 --iterations 200 --width 512 --depth 6 \\
        --minibatch 8192 --eval_every 20 --eval_deals 256 --out runs/gpu   # one GPU
    cardjax train scrofazero --out runs/gpu --resume                       # continue a stopped run

Every iteration plays ``--num_envs`` games of self-play under perfect information, with MCTS
(``b + k x legal`` simulations per move, value network at the leaves) choosing every move, then
trains the policy/value network on those positions and the previous two batches'
(``cardjax.train.alphazero``); it is one compiled step.  Every ``--eval_every`` iterations (and
after the last) the network plays under hidden information -- sampled worlds, stratified on the
key cards and weighted by IEC, a search in each -- in duplicate deals against two Mr Greeds;
the mean is the paper's WPG.

The run directory ``--out`` gets ``metrics.jsonl``, ``eval.json``, ``eval_settings.json``,
``curves.png``, orbax checkpoints (every ``--checkpoint_every`` iterations) and, at each
evaluation, the player ``player/`` (an artifact that loads without the trainer); ``--resume``
continues the newest checkpoint exactly as if the run had never stopped.  The evaluation settings
are saved with the run too (a flag typed on ``--resume`` replaces its saved value).  The games
are split over every device of every process (``--multihost`` joins a multi-process run with
``jax.distributed.initialize()``).  ``--from PLAYER`` (``scrofazero-pretrained``, an artifact or
a run directory) starts a new run from that player's parameters (fresh optimizer; the network
flags default to the player's); the exported player's lineage names it and adds up the minutes
and positions (``frames``) trained (``docs/pretrained.md``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import jax

from cardjax import agents, artifact
from cardjax.agents import scrofazero as scrofazero_agent
from cardjax.cli import non_negative_int, positive_float, positive_int
from cardjax.eval import arena
from cardjax.nets import policy_value
from cardjax.train import alphazero, continuation, run_config, runner

# The recipe ``cardjax train alphazero --game gongzhu`` runs.
TRAINER = "alphazero"
GAME = "gongzhu"


# The training flags' defaults: small enough for a CPU run of a few minutes (alphazero.Config
# has the paper's values where it gives them).  They default to None on the command line so that
# a resumed run can tell the flags a user typed from the defaults.
TRAIN_DEFAULTS = {**alphazero.Config().to_dict(),
                  "num_envs": 64, "width": 128, "depth": 2, "minibatch": 512}
# the fields that shape the network (a run --from a player takes the player's unless typed; a
# typed one that differs is refused) and what its logits mean (taken unless typed)
NETWORK = ("width", "depth")
MEANING = ("target_beta",)


# The evaluation flags' defaults (None on the command line too: a resumed run keeps the settings
# saved with it, run_config.resolve_eval_settings, unless a flag is typed).
_PLAY = scrofazero_agent.PLAY_DEFAULTS
EVAL_DEFAULTS = {"eval_every": 50, "eval_deals": 16, "eval_worlds": _PLAY["worlds"],
                 "eval_sampling": _PLAY["sampling"], "eval_iec": _PLAY["iec"],
                 "eval_b": _PLAY["b"], "eval_seed": 12345}


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 2)[2])
    run = runner.add_run_flags(p, out="runs/scrofazero", iterations=100)
    continuation.add_flag(run)
    train = p.add_argument_group("training (saved with the run; defaults in brackets)")

    def flag(name, kind, text):
        train.add_argument(f"--{name}", type=kind, default=None,
                           help=f"{text} [{TRAIN_DEFAULTS[name]}]")

    flag("num_envs", positive_int, "self-play games per iteration")
    flag("width", positive_int, "network width")
    flag("depth", positive_int, "residual blocks")
    flag("b", non_negative_int, "self-play simulations per move = b + k x legal moves")
    flag("k", non_negative_int, "see --b")
    flag("c", positive_float, "UCB exploration constant (points)")
    flag("minibatch", non_negative_int, "positions per gradient step (0 = all the replay set)")
    flag("epochs", positive_int, "passes over the replay set per iteration")
    flag("history", non_negative_int, "previous batches of games trained on again")
    flag("lr", positive_float, "Adam learning rate")
    flag("value_weight", positive_float, "lambda: weight of the value error (points) vs KL")
    flag("target_beta", positive_float, "policy target softmax(target_beta x child values)")
    train.add_argument("--value_target", choices=alphazero.VALUE_TARGETS, default=None,
                       help="value target: the search root's value (paper), the game's "
                       f"outcome, or their mean [{TRAIN_DEFAULTS['value_target']}]")
    ev = p.add_argument_group("evaluation (WPG: duplicate deals against two Mr Greeds; saved "
                              "with the run, a typed flag wins on --resume; defaults in brackets)")

    def eval_flag(name, text, **kw):
        ev.add_argument(f"--{name}", default=None, help=f"{text} [{EVAL_DEFAULTS[name]}]", **kw)

    eval_flag("eval_every", "evaluate every this many iterations and after the last (0: only "
              "after the last)", type=non_negative_int)
    eval_flag("eval_deals", "deals per evaluation, each played in both seat rotations (0 skips)",
              type=non_negative_int)
    eval_flag("eval_worlds", "sampled worlds per decision", type=positive_int)
    eval_flag("eval_sampling", "how the worlds are sampled", choices=("stratified", "uniform"))
    eval_flag("eval_iec", "weight the worlds by IEC", action=argparse.BooleanOptionalAction)
    eval_flag("eval_b", "simulations per world at play = b + k x legal moves",
              type=non_negative_int)
    eval_flag("eval_seed", "seed of the evaluation deals (the same deals every evaluation)",
              type=int)
    return p.parse_args(argv)


def resolve_config(args, parent=None) -> tuple[alphazero.Config, int | None]:
    """The run's config: from the flags, or from the checkpoint when resuming.  ``parent``: the
    artifact ``--from`` names, whose network fields replace the defaults (a typed one that
    differs is a ``SystemExit``)."""
    typed = {k: getattr(args, k) for k in TRAIN_DEFAULTS if getattr(args, k, None) is not None}
    defaults = TRAIN_DEFAULTS
    if parent is not None:
        network = parent.meta["network"]
        defaults = {**defaults, **continuation.inherited(network, NETWORK + MEANING, defaults)}
        continuation.check_network(args.from_, network, {**defaults, **typed}, NETWORK,
                                   policy_value, args.grow)
    return run_config.resolve_config(
        args.out, args.resume, typed, defaults, alphazero.Config.from_dict,
        lambda saved: "it holds a run of another trainer" if "algorithm" in saved else None)


def main(argv=None) -> dict:
    args = parse_args(argv)
    continuation.refuse_resume(args)
    parent, parent_label = None, None
    if args.from_:
        parent, parent_label = continuation.load(args.from_, "scrofazero", alphazero.GAME)
    cfg, train, state, ckpt, is_main = runner.begin(
        args, lambda a: resolve_config(a, parent), alphazero.cached_train)
    state = continuation.start(args, state, ckpt, is_main, parent, parent_label, policy_value,
                               cfg.to_dict())
    if is_main:
        runner.announce("ScrofaZero", f"{cfg.num_envs} games/iteration, net "
                        f"{cfg.width}x{cfg.depth}", state.params, args.out)

    ev = run_config.resolve_eval_settings(args.out, args.resume, args, EVAL_DEFAULTS, is_main)
    evaluate = info = None
    if ev["eval_deals"] > 0 and is_main:
        env = train.env
        greed = agents.get(env, "greed")
        player = scrofazero_agent.agent_from_params(
            env, state.params, cfg.to_dict(), worlds=ev["eval_worlds"],
            sampling=ev["eval_sampling"], iec=ev["eval_iec"], b=ev["eval_b"])
        deals, seed = ev["eval_deals"], ev["eval_seed"]
        info = {"opponent": "greed", "deals": deals, "seed": seed,
                "play": {"worlds": ev["eval_worlds"], "sampling": ev["eval_sampling"],
                         "iec": ev["eval_iec"], "b": ev["eval_b"]}}

        def against_greed(st):
            me = player._replace(params=jax.device_get(st.params))
            r = arena.duplicate_match(env, me, greed, deals=deals, seed=seed,
                                      batch=min(deals, 64), progress=False)
            return {"mean": r["mean"], "stderr": r["stderr"], "games": r["games"]}

        evaluate = against_greed
        evaluate.prepare = lambda st: arena.compile_matches(  # compiled while training starts
            env, player._replace(params=jax.device_get(st.params)), [greed], deals, seed,
            min(deals, 64))

    def export(st, iteration):
        meta = artifact.describe("scrofazero", cfg.game, network=cfg.to_dict(),
                                 env=train.env.options,
                                 lineage=continuation.lineage(args.out, iteration, cfg.positions),
                                 name="scrofazero")
        artifact.write(os.path.join(args.out, "player"), meta, jax.device_get(st.params))

    eval_every = ev["eval_every"] if ev["eval_every"] > 0 else args.iterations
    state = runner.run(out=args.out, state=state, step=train.step, config=cfg.to_dict(),
                       iterations=args.iterations,
                       minutes=args.minutes, units_per_iteration=cfg.positions,
                       evaluate=evaluate, eval_every=eval_every, eval_info=info,
                       eval_name="WPG vs two Mr Greeds", checkpoint_every=args.checkpoint_every,
                       progress=not args.no_progress, is_main=is_main, checkpoints=ckpt,
                       title=f"ScrofaZero {cfg.num_envs} games/it, net {cfg.width}x{cfg.depth}",
                       export=export)
    summary = {"iteration": int(state.iteration), "out": args.out}
    if is_main:
        evals = runner.RunFiles(args.out).read_evals()
        if evals:
            summary["wpg"] = evals[-1]["mean"]
            summary["wpg_stderr"] = evals[-1]["stderr"]
        print(runner.closing(args.out, int(state.iteration), evals, "WPG vs two Mr Greeds",
                             "points a game against them: above 0 beats them",
                             game=cfg.game), file=sys.stderr)
        print(json.dumps(summary))
    return summary
