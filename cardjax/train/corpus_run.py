"""The command line of a trainer that learns from a corpus (``experiments/inference.py``,
``experiments/deeprocket.py``): its flags, a run's config from them (a new run names its corpus;
``--resume`` keeps the saved one), and one compiled trainer per network and env."""

from __future__ import annotations

import argparse
import dataclasses
import os
from typing import Callable

from cardjax import corpus as corpora
from cardjax.cli import non_negative_int
from cardjax.train import runner


def parse_args(doc: str, argv, *, out: str, iterations: int, checkpoint_every: int, defaults,
               train_flags: dict, eval_defaults: dict):
    """The run flags, ``--corpus``, the trainer's ``train_flags`` (``name: (type, help)``, their
    defaults from the ``defaults`` config) and the evaluation flags."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=doc.split("\n\n", 2)[2])
    runner.add_run_flags(p, out=out, iterations=iterations, checkpoint_every=checkpoint_every)
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
    latest = runner.existing_run(args.out)
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

    return runner.resolve_config(args.out, args.resume, typed, config_cls().to_dict(),
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

    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(serialization.to_bytes(jax.device_get(params)))
    os.replace(tmp, path)


def saved_config(run: str, algorithm: str) -> dict:
    """The config saved with a run of ``algorithm``; ``ValueError`` with the reason when
    ``run`` is no such run."""
    if not os.path.isdir(run):
        raise ValueError(f"{run}: not a run directory")
    try:
        _, saved = runner.readable_config(run)
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
