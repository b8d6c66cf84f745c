"""The PIMC player (:mod:`cardjax.search.pimc`) as an agent, with or without card-location
inference: ``get(env, "pimc", worlds=16, playouts=1, candidates=32, playout="if",
inference=RUN_DIR)``.

Worlds: without ``inference``, uniform over the information set, drawn exactly
(``cardjax.inference.worlds.sampler``; the paper's NI player); a game that does not describe its
hidden cards (Tractor, Mini Dou Di Zhu) uses ``env.sample_hidden``.  With ``inference`` (an
``experiments/inference.py`` run directory of the same game, or its artifact), in proportion to
its best network's predictions (the paper's equation 1; :func:`load_log_q`).
``inference="oracle"`` cheats: every world is the true state (the TSSR oracle; the most any
inference could give this search, for measurement only).  ``playout`` names a baseline or a
training run that plays every seat from each move to the end of the game (default
``random``); ``value=RUN`` values the position after each move with a training run's network
instead (a ScrofaZero run in Gongzhu, a DMC run in any game; no playouts).
"""

from __future__ import annotations

import jax

from cardjax.core import Agent
from cardjax.agents import search
from cardjax.inference import worlds
from cardjax.search import pimc

SETTINGS = ("worlds", "playouts", "candidates", "playout", "inference", "value")


def _sample_hidden(env):
    def sample_worlds(key, state, seat, n, params=None):
        return jax.vmap(lambda k: env.sample_hidden(k, state, seat))(jax.random.split(key, n))

    return sample_worlds


def _oracle(key, state, seat, n, params=None):
    return jax.tree_util.tree_map(lambda x: jax.numpy.broadcast_to(x, (n,) + x.shape), state)


def make(env, **options) -> Agent:
    unknown = set(options) - set(SETTINGS)
    if unknown:
        raise ValueError(f"unknown setting(s) {', '.join(sorted(unknown))} for pimc; settings: "
                         f"{', '.join(SETTINGS)}")
    playout = options.pop("playout", "random")
    run = options.pop("inference", None)
    value = options.pop("value", None)
    cfg = pimc.Config(**{k: int(v) for k, v in options.items()})
    policy, policy_params, value_fn = search.evaluator(env, playout, value)
    sampler_params = None
    if run == "oracle":
        sample_worlds = _oracle
    elif run is not None:
        log_q, sampler_params = load_log_q(env, str(run))
        sample_worlds = worlds.sampler(env, log_q)
    elif env.hidden_space is not None:
        sample_worlds = worlds.sampler(env)
    else:
        sample_worlds = _sample_hidden(env)
    name = {None: "pimc", "oracle": "pimc+oracle"}.get(run, "pimc+inference")
    act = pimc.make_act(env, cfg, sample_worlds=sample_worlds, policy=policy, value_fn=value_fn)
    return Agent(name, act, (sampler_params, policy_params))


def load_log_q(env, path: str):
    """``(log_q, params)`` of a card-location network for ``env``
    (:func:`cardjax.nets.card_locations.network.log_q_fn`): an artifact directory, or an
    ``experiments/inference.py`` run (its best network), read without the trainer.
    ``ValueError`` when it cannot be read or was trained for another env."""
    from cardjax import artifact, registry
    from cardjax.nets.card_locations import network

    try:
        art = artifact.load(path, "inference")
    except ValueError as e:
        raise ValueError(f"inference: {e} (a card-location network: experiments/inference.py)"
                         ) from None
    trained = registry.make(art.game, **_trained_options(art))
    if repr(trained) != repr(env):
        raise ValueError(f"inference: {path} was trained for {trained!r}, not {env!r}")
    return network.from_config(art.meta["network"], env), art.params


def _trained_options(art) -> dict:
    """The options of the env a card-location network was trained in: its description's, or
    where a run read without an export records none, its corpus's."""
    if art.meta.get("env"):
        return dict(art.meta["env"])
    from cardjax.corpus import store

    try:
        return dict(store.read_manifest(art.meta["network"]["corpus"]).get("options", {}))
    except (KeyError, ValueError):  # no corpus named, or it is gone
        return {}
