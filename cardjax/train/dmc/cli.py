"""The command line shared by the DMC experiments (``cardjax train douzero``,
``cardjax train gongzhu_dmc``, ``cardjax train shengji``).

The commands share the training flags, the resolution of a run's config (new or resumed) and the
training ``main``; a game's command only gives its small defaults, how it is evaluated and the
loader of the players ``--init_from`` names (the trainer imports no players):

    defaults = train_defaults("gongzhu", num_envs=64, width=128)
    parser = make_parser(__doc__, "runs/x", 20, defaults, "...")
    main(parser.parse_args(argv), defaults, make_evaluate, label="Gongzhu DMC", ...,
         load_player=cardjax.agents.load)
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from typing import Callable

import jax

from cardjax import artifact
from cardjax.cli import non_negative_int
from cardjax.train import continuation, run_config, runner
from cardjax.nets.dmc import adapter, q_net
from cardjax.train.dmc.config import Config
from cardjax.train.dmc.extensions import EXTENSIONS
from cardjax.train.dmc.train import cached_train

_FIXED = ("algorithm", "game")  # config keys that are not flags
# the fields that shape a DMC network or say what its numbers mean: a run --from a player takes
# the player's unless typed, and a typed network-shaping one that differs is refused
NETWORK = ("lstm", "width", "depth", "head_width", "head_depth")
MEANING = ("oracle_iterations", "reward", "reward_scale", "exact_rewards", "advice_bonus")
# adapter options that change the rewards only, not what the network reads
NOT_NETWORK = ("point_reward", "throw_penalty", "rollouts")


def network_fields(game: str) -> tuple:
    """The network-shaping fields of ``game``'s DMC configs: the core sizes and the adapter's
    options that change the features or the roles (and ``oracle``, whether the input ends with
    an oracle block, :func:`_shape`)."""
    return NETWORK + tuple(k for k in adapter.get(game).option_names() if k not in NOT_NETWORK)


def _shape(config: dict) -> dict:
    """``config`` with ``oracle``: whether its network reads an oracle block."""
    return {**config, "oracle": int(config.get("oracle_iterations") or 0) > 0}


def train_defaults(game: str, **small) -> dict:
    """The training flags' defaults of ``game``: its :meth:`Config.for_game` updated by the
    command's ``small`` values (sized for a CPU run of minutes)."""
    return {**Config.for_game(game).to_dict(), **small}


def _flag(f: dataclasses.Field) -> tuple:
    """``(argparse keywords, help)`` of a config field (:func:`cardjax.cli.option`)."""
    return ({k: f.metadata[k] for k in ("type", "choices") if k in f.metadata},
            f.metadata.get("help", ""))


def _flags(game: adapter.Adapter) -> dict:
    """flag -> (argparse keywords, help) of a game's command, read from the config's schema: the
    core fields the game uses, the options of the extensions its adapter can have, then the
    adapter's own options."""
    out = {}
    for f in dataclasses.fields(Config):
        if "help" in f.metadata and f.name not in game.unused:
            out[f.name] = _flag(f)
    if "reward" in out:
        out["reward"][0]["choices"] = game.rewards
    for ext in EXTENSIONS:
        if ext.offered(game):
            out.update({f.name: _flag(f) for f in dataclasses.fields(ext.options)})
    for f in dataclasses.fields(game.options) if game.options else ():
        out[f.name] = _flag(f)
    return out


def make_parser(doc: str, out: str, iterations: int, defaults: dict, eval_title: str,
                skip: tuple = (), eval_every: int = 10, eval_deals: int = 64,
                checkpoint_every: int = 1) -> argparse.ArgumentParser:
    """The command's parser: run flags, the training flags of the game (but ``skip``; they
    default to None so that a resumed run can tell the flags a user typed) and ``--eval_every
    --eval_deals --eval_seed`` (None too; their defaults are in the parsed ``eval_defaults``)."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=doc.split("\n\n", 2)[2])
    run = runner.add_run_flags(p, out=out, iterations=iterations,
                               checkpoint_every=checkpoint_every)
    continuation.add_flag(run)
    train = p.add_argument_group("training (saved with the run; defaults in brackets)")
    for name, (kw, text) in _flags(adapter.get(defaults["game"])).items():
        if name in skip:
            continue
        train.add_argument(f"--{name}", default=None, help=f"{text} [{defaults[name]}]", **kw)
    evals = {"eval_every": eval_every, "eval_deals": eval_deals, "eval_seed": 12345}
    ev = p.add_argument_group(f"evaluation ({eval_title}; saved with the run, a typed flag "
                              "wins on --resume; defaults in brackets)")
    ev.add_argument("--eval_every", type=non_negative_int, default=None,
                    help="evaluate every this many iterations and after the last (0: only "
                    f"after the last) [{eval_every}]")
    ev.add_argument("--eval_deals", type=non_negative_int, default=None,
                    help=f"duplicate deals per opponent (0 skips) [{eval_deals}]")
    ev.add_argument("--eval_seed", type=int, default=None,
                    help="seed of the evaluation deals (the same deals every evaluation) "
                    f"[{evals['eval_seed']}]")
    p.set_defaults(eval_defaults=evals)  # for main: run_config.resolve_eval_settings
    return p


def resolve_config(args, defaults: dict, parent=None) -> tuple[Config, int | None]:
    """The run's config: from the flags, or from the checkpoint when resuming.  ``parent``: the
    artifact ``--from`` names (:func:`continuation.load`), whose network-shaping and meaning
    fields replace the defaults; a typed network field that differs from the player's is a
    ``SystemExit``."""
    typed = {k: getattr(args, k) for k in defaults
             if k not in _FIXED and getattr(args, k, None) is not None}
    if parent is not None:
        fields = network_fields(defaults["game"])
        defaults = {**defaults, **continuation.inherited(parent.meta["network"],
                                                         fields + MEANING, defaults)}
        continuation.check_network(args.from_, _shape(parent.meta["network"]),
                                   _shape({**defaults, **typed}), fields + ("oracle",), q_net,
                                   getattr(args, "grow", False))
    if typed.get("init_from") and os.path.isdir(typed["init_from"]):
        typed["init_from"] = os.path.abspath(typed["init_from"])  # a run directory
    game = defaults["game"]

    def check_saved(saved):
        if saved.get("algorithm") != "dmc":
            return "it holds a run of another trainer"
        if saved.get("game", "doudizhu") != game:
            return f"it holds a DMC run of {saved.get('game')}, not {game}"
        return None

    return run_config.resolve_config(args.out, args.resume, typed, defaults, Config.from_dict,
                                 check_saved)


def export_player(cfg: Config, out: str) -> Callable:
    """``export(state, iteration)`` for the runner: the greedy player of ``state``'s networks as
    an artifact in ``out/player`` (:mod:`cardjax.artifact`), which loads without the trainer.
    Its lineage (:func:`continuation.lineage`) names the player the run started ``--from`` and
    the accumulated minutes and frames."""
    directory = os.path.join(out, "player")
    name = adapter.get(cfg.game).player

    def export(state, iteration: int) -> None:
        meta = artifact.describe(
            "dmc", cfg.game, network=cfg.to_dict(), play={"k": cfg.k}, name=name,
            lineage=continuation.lineage(out, int(iteration), "frames",
                                         prior=cfg.init_from or None))
        artifact.write(directory, meta, jax.device_get(state.params))

    return export


def main(args, defaults: dict, make_evaluate: Callable, *, label: str, eval_name: str,
         summarize: Callable, load_player: Callable) -> dict:
    """Train (or resume) the run of ``args`` and print a JSON summary (returned too).

    The evaluation flags are resolved against those saved with the run
    (:func:`run_config.resolve_eval_settings`).

    ``make_evaluate(cfg, params, deals, seed) -> (evaluate(state) -> dict, info)`` for the runner;
    ``summarize(last evaluation) -> dict`` adds its key numbers to the summary;
    ``load_player(env, word) -> Agent`` (``cardjax.agents.load``) resolves ``--init_from`` (the
    trainer imports no players).  Each evaluation writes the player to ``out/player``.
    ``--from PLAYER`` starts the new run from that player's parameters
    (:mod:`cardjax.train.continuation`).
    """
    continuation.refuse_resume(args)
    parent, parent_label = None, None
    if getattr(args, "from_", None):
        parent, parent_label = continuation.load(args.from_, "dmc", defaults["game"])
    cfg, train, state, ckpt, is_main = runner.begin(
        args, lambda a: resolve_config(a, defaults, parent),
        lambda c, mesh: cached_train(c, mesh, load_player))
    state = continuation.start(args, state, ckpt, is_main, parent, parent_label, q_net,
                               cfg.to_dict())
    if is_main:
        runner.announce(label, f"{cfg.num_envs} games/iteration, {cfg.num_roles} net(s), "
                        f"k={cfg.k}, reward {cfg.reward}", state.params, args.out)

    ev = run_config.resolve_eval_settings(args.out, args.resume, args, args.eval_defaults, is_main)
    evaluate, info = None, None
    if ev["eval_deals"] > 0 and is_main:
        evaluate, info = make_evaluate(cfg, state.params, ev["eval_deals"], ev["eval_seed"])

    eval_every = ev["eval_every"] if ev["eval_every"] > 0 else args.iterations
    state = runner.run(out=args.out, state=state, step=train.step, config=cfg.to_dict(),
                       iterations=args.iterations,
                       minutes=args.minutes, units_per_iteration="frames",
                       rate_name="frames_per_s", eval_name=eval_name, evaluate=evaluate,
                       eval_every=eval_every, eval_info=info,
                       checkpoint_every=args.checkpoint_every, progress=not args.no_progress,
                       is_main=is_main, checkpoints=ckpt, export=export_player(cfg, args.out),
                       title=f"{label} {cfg.num_envs} games/it, reward {cfg.reward}")
    ckpt.close()
    summary = {"iteration": int(state.iteration), "out": args.out}
    if is_main:
        evals = runner.RunFiles(args.out).read_evals()
        if evals:
            summary.update(summarize(evals[-1]))
        print(runner.closing(args.out, int(state.iteration), evals, eval_name, game=cfg.game),
              file=sys.stderr)
        print(json.dumps(summary))
    return summary
