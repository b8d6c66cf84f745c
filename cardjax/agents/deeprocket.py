"""A DeepRocket player loaded from a training run (``experiments/deeprocket.py --out DIR``).

The policy network chooses the most likely category among those with a legal move, then the
kicker network its kickers, the most likely legal one at a time
(:func:`cardjax.train.deeprocket.choose`); no search, no sampling.  As in the paper, bidding is
not learned: loaded through ``cardjax.agents.load`` for an env with an auction, the player bids
as the rule player does (the paper's bid module is hand-written logic too).

``load(env, path)`` reads the run's best network (``best.msgpack``, the best validation accuracy)
or, with ``iteration=`` or when the run has no evaluation, a checkpoint.  :func:`is_run` tells
whether a directory holds a DeepRocket run, for ``cardjax.agents.load`` to dispatch on.
"""

from __future__ import annotations

import os

import jax

from cardjax.core import Agent

def _config(path: str) -> dict:
    from cardjax.train import corpus_run

    return corpus_run.saved_config(path, "deeprocket")


def is_run(path: str) -> bool:
    """True when ``path`` is a run directory of the DeepRocket trainer."""
    try:
        _config(path)
    except ValueError:
        return False
    return True


def load_params(env, path: str, iteration: int | None = None):
    """``(params, config)`` of a run: its ``best.msgpack``, or the checkpoint at ``iteration``
    (default: the newest when there is no best network).  ``ValueError`` with the reason."""
    from cardjax.train import corpus_run
    from cardjax.train.checkpoint import Checkpoints, find_run
    from cardjax.train.deeprocket import Config, cached_trainer

    cfg = Config.from_dict(_config(path))
    if env.name != cfg.game:
        raise ValueError(f"a {cfg.game} DeepRocket run cannot play {env.name}")
    trainer = cached_trainer(cfg, env)
    like = jax.eval_shape(trainer.init, jax.random.PRNGKey(0))
    if iteration is None and os.path.isfile(os.path.join(path, "best.msgpack")):
        return corpus_run.load_best(path, like.params), cfg
    ckpt = Checkpoints(find_run(path))
    try:
        return ckpt.restore(like, iteration).params, cfg
    finally:
        ckpt.close()


def agent_from_params(env, params, cfg, name: str = "deeprocket") -> Agent:
    """The greedy player of DeepRocket networks ``params`` trained with ``cfg``."""
    from cardjax.train.deeprocket import cached_trainer, choose

    nets = cached_trainer(cfg, env).nets

    def act(params, key, state):
        del key
        return choose(nets, params, state)

    return Agent(name, act, params)


def load(env, path: str, iteration: int | None = None, name: str = "deeprocket", **options):
    """The DeepRocket player of the run at ``path``.  The search players' options that
    ``scripts/arena.py`` passes to every loader are accepted and ignored; others are an error."""
    from cardjax.agents.dmc import ARENA_OPTIONS

    unknown = set(options) - ARENA_OPTIONS
    if unknown:
        raise ValueError(f"unknown options {sorted(unknown)} for a DeepRocket player; known: "
                         "iteration, name")
    params, cfg = load_params(env, path, iteration)
    return agent_from_params(env, params, cfg, name=name)
