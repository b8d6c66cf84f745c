"""The command line of a trainer that learns from a corpus (``cardjax train inference``,
``cardjax train deeprocket``, ``cardjax train bid_value``): its flags, a run's config from them
(a new run names its corpus; ``--resume`` keeps the saved one; ``--from`` starts from a trained
network of the same trainer, :mod:`cardjax.train.continuation`), one compiled trainer per network
and env, the training loop with its checkpoints and evaluations, and the best network's files
(``best.msgpack``, and the artifact ``player/`` that loads without the trainer)."""

from __future__ import annotations

import argparse
import dataclasses
import os
from typing import Any, Callable

import jax
from flax import struct

from cardjax import artifact
from cardjax import corpus as corpora
from cardjax.cli import non_negative_int
from cardjax.train import continuation, run_config, runner


@struct.dataclass
class TrainState:
    """A corpus trainer's state: the network(s), the optimizer's state, the run's key (dropout,
    batch draws; folded with the iteration) and the iteration."""

    params: Any
    opt_state: Any
    key: jax.Array
    iteration: jax.Array


def parse_args(doc: str, argv, *, out: str, iterations: int, checkpoint_every: int, defaults,
               train_flags: dict, eval_defaults: dict):
    """The run flags, ``--corpus``, the trainer's ``train_flags`` (``name: (type, help)``, their
    defaults from the ``defaults`` config) and the evaluation flags."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=doc.split("\n\n", 2)[2])
    run = runner.add_run_flags(p, out=out, iterations=iterations,
                               checkpoint_every=checkpoint_every)
    continuation.add_flag(run)
    train = p.add_argument_group("training (saved with the run; defaults in brackets)")
    train.add_argument("--corpus", default=None, help="the corpus directory (a new run)")
    for name, (kind, text) in train_flags.items():
        train.add_argument(f"--{name}", type=kind, default=None,
                           help=f"{text} [{getattr(defaults, name)}]")
    ev = p.add_argument_group("evaluation (saved with the run; a typed flag wins on --resume)")
    ev.add_argument("--eval_every", type=non_negative_int, default=None,
                    help=f"validate every this many iterations and after the last "
                    f"[{eval_defaults['eval_every']}]")
    ev.add_argument("--eval_games", type=non_negative_int, default=None,
                    help=f"validation games scored (0 skips) [{eval_defaults['eval_games']}]")
    ev.add_argument("--patience", type=non_negative_int, default=None,
                    help="stop after this many evaluations without a better one (0: never) "
                    f"[{eval_defaults['patience']}]")
    return p.parse_args(argv)


def resolve(args, train_flags: dict, config_cls, games: tuple | None = None):
    """``(config, latest checkpoint or None)``: a new run's config from the typed flags and its
    corpus (whose game must be one of ``games`` when given), or the saved one on ``--resume``."""
    algorithm = config_cls().algorithm
    typed = {k: getattr(args, k) for k in train_flags if getattr(args, k) is not None}
    latest = run_config.existing_run(args.out)
    if latest is None and not args.resume:
        if args.corpus is None:
            raise SystemExit("error: --corpus is required for a new run")
        try:
            m = corpora.store.read_manifest(args.corpus)
        except corpora.CorpusError as e:
            raise SystemExit(f"error: --corpus: {e}") from None
        if games is not None and m["game"] not in games:
            raise SystemExit(f"error: --corpus: a {m['game']} corpus; {algorithm} learns "
                             f"{', '.join(games)}")
        typed.update(corpus=os.path.abspath(args.corpus), game=m["game"])
    elif args.corpus is not None:
        typed["corpus"] = os.path.abspath(args.corpus)

    def check_saved(saved):
        return None if saved.get("algorithm") == algorithm else \
            "it holds a run of another trainer"

    return run_config.resolve_config(args.out, args.resume, typed, config_cls().to_dict(),
                                 config_cls.from_dict, check_saved)


def cached(make_trainer: Callable) -> Callable:
    """``make_trainer(cfg, env)`` kept per network and env (the corpus aside), so that a second
    run in the same process (tests, notebooks, a resumed run, a player) does not compile again."""
    made: dict = {}

    def get(cfg, env):
        key = (dataclasses.replace(cfg, corpus=""), repr(env))
        if key not in made:
            made[key] = make_trainer(cfg, env)
        return made[key]

    get.__doc__ = f":func:`{make_trainer.__name__}`, kept per network and env ({cached.__name__})."
    return get


def save_params(path: str, params) -> None:
    """``params`` to ``path`` (flax msgpack), written to a temporary file and renamed: a
    half-written file never reads as valid."""
    import jax
    from flax import serialization

    from cardjax.files import write_atomic

    write_atomic(path, serialization.to_bytes(jax.device_get(params)))


def saved_config(run: str, algorithm: str) -> dict:
    """The config saved with a run of ``algorithm``; ``ValueError`` with the reason when
    ``run`` is no such run."""
    if not os.path.isdir(run):
        raise ValueError(f"{run}: not a run directory")
    try:
        _, saved = run_config.readable_config(run)
    except SystemExit as e:
        raise ValueError(str(e).removeprefix("error: ")) from None
    if saved.get("algorithm") != algorithm:
        raise ValueError(f"{run} holds a run of another trainer")
    return saved


def load_best(run: str, like):
    """The best network of a run (``best.msgpack``) in the shape of the params ``like``;
    ``ValueError`` with the reason when it is missing or unreadable."""
    import jax
    import numpy as np
    from flax import serialization

    best = os.path.join(run, "best.msgpack")
    if not os.path.isfile(best):
        raise ValueError(f"no best.msgpack in {run} (a run trained without evaluation)")
    zeros = jax.tree_util.tree_map(lambda x: np.zeros(x.shape, x.dtype), like)
    with open(best, "rb") as f:
        try:
            return serialization.from_bytes(zeros, f.read())
        except Exception as e:  # noqa: BLE001 -- msgpack and flax raise several kinds
            raise ValueError(f"{best}: unreadable ({e})") from None


def stalled(evals: list, patience: int, higher_is_better: bool = False) -> bool:
    """True when none of the last ``patience`` evaluations' ``mean`` beats the best before them
    (``--patience``: early stopping on the validation split)."""
    if len(evals) <= patience:
        return False
    best = max if higher_is_better else min
    recent = best(e["mean"] for e in evals[-patience:])
    before = best(e["mean"] for e in evals[:-patience])
    return best(recent, before) == before


@dataclasses.dataclass
class Run:
    """What :func:`train` leaves: the final state, the run's config, trainer and corpus, and its
    evaluations (``eval.json``'s list)."""

    state: object
    cfg: object
    trainer: object
    corpus: object
    evals: list


def train(args, *, resolve: Callable, cached_trainer: Callable, data: Callable,
          make_evaluate: Callable, eval_defaults: dict, name: str, details: Callable,
          units: str, eval_name: str, higher_is_better: bool = False,
          check_env: Callable | None = None) -> Run:
    """Train (or resume) the run of ``args`` for a corpus trainer: the config (``resolve``), the
    corpus and its env (``check_env(env)`` may refuse it), the trainer, the training batches
    (``data(trainer, games) -> the update's arguments after the state``), the evaluation
    (``make_evaluate(trainer, corpus, cfg, games, out) -> (evaluate, info)``, ``mean`` the
    figure that chooses the best network, ``best`` whether this one is; ``--patience`` stops on
    it), checkpoints and logs.  The best network is also the run's player, the artifact
    ``out/player`` (:mod:`cardjax.artifact`) written when an evaluation finds it, with that
    evaluation's iteration: ``artifact.from_run(out)`` reads the best network from it or, when
    a newer checkpoint stands beside it, from ``best.msgpack``."""
    from cardjax.corpus.batches import Batches

    if args.multihost:
        raise SystemExit(f"error: --multihost: the {name} trainer runs in one process (on its "
                         "default device)")
    continuation.refuse_resume(args)
    runner.check_writable(args.out, create=not args.resume)
    parent = label = None
    if args.from_:  # its training flags are the defaults, its network's shape among them
        parent, label = continuation.load(args.from_)
        for flag, value in (parent.meta.get("network") or {}).items():
            if flag != "corpus" and getattr(args, flag, "not a flag") is None:
                setattr(args, flag, value)
    cfg, latest = resolve(args)
    if parent is not None:
        continuation.check(parent, args.from_, cfg.algorithm, cfg.game)
    try:
        c, env = corpora.open_with_env(cfg.corpus)
    except corpora.CorpusError as e:
        raise SystemExit(f"error: {e}") from None
    if check_env is not None:
        check_env(env)
    trainer = cached_trainer(cfg, env)
    state, ckpt = runner.initial_state(args.out, latest, trainer.init, args.seed)
    state = continuation.start(args, state, ckpt, True, parent, label)
    runner.announce(f"{name} for {cfg.game}", details(cfg, trainer), state.params, args.out)
    ev = run_config.resolve_eval_settings(args.out, args.resume, args, eval_defaults)
    batches = Batches(c, cfg.batch_games, args.seed)

    def step(state):
        return trainer.update(state, *data(trainer, batches(int(state.iteration))))

    evaluate, info, stop = None, None, None
    found = {"best": False}
    if ev["eval_games"] > 0:
        scores, info = make_evaluate(trainer, c, cfg, ev["eval_games"], args.out)

        def noted(state):  # the evaluation, noting whether it found the best network (export)
            result = scores(state)
            found["best"] = result["best"]
            return result

        evaluate = noted
        if ev["patience"] > 0:
            stop = lambda evals: stalled(evals, ev["patience"], higher_is_better)

    def export(state, iteration):
        if found["best"]:
            meta = artifact.describe(cfg.algorithm, cfg.game, network=cfg.to_dict(),
                                     env=env.options, name=cfg.algorithm,
                                     lineage=continuation.lineage(args.out, iteration, units))
            artifact.write(os.path.join(args.out, "player"), meta, state.params)

    eval_every = ev["eval_every"] if ev["eval_every"] > 0 else args.iterations
    state = runner.run(out=args.out, state=state, step=step, config=cfg.to_dict(),
                       iterations=args.iterations,
                       minutes=args.minutes, units_per_iteration=units,
                       rate_name=f"{units}_per_s", evaluate=evaluate, eval_every=eval_every,
                       eval_info=info, checkpoint_every=args.checkpoint_every,
                       progress=not args.no_progress, checkpoints=ckpt,
                       title=f"{name} {cfg.game}, {cfg.batch_games} games/it",
                       eval_name=eval_name, stop=stop, export=export)
    ckpt.close()
    return Run(state, cfg, trainer, c, runner.RunFiles(args.out).read_evals())
