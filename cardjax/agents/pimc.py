"""The PIMC player (:mod:`cardjax.search.pimc`) as an agent, with or without card-location
inference: ``get(env, "pimc", worlds=16, playouts=1, candidates=32, playout="if",
inference=RUN_DIR)``.

Worlds: without ``inference``, uniform over the information set, drawn exactly
(``cardjax.inference.worlds.sampler``; the paper's NI player); a game that does not describe its
hidden cards (Tractor, Mini Dou Di Zhu) uses ``env.sample_hidden``.  With ``inference`` (an
``experiments/inference.py`` run directory of the same game, or its artifact), in proportion to
its best network's predictions (the paper's equation 1; :mod:`cardjax.agents.world_sources`).
``inference="oracle"`` cheats: every world is the true state (the TSSR oracle; the most any
inference could give this search, for measurement only).  ``playout`` names a baseline or a
training run that plays every seat from each move to the end of the game (default
``random``); ``value=RUN`` values the position after each move with a training run's network
instead (a ScrofaZero run in Gongzhu, a DMC run in any game; no playouts).
"""

from __future__ import annotations

from cardjax.core import Agent
from cardjax.agents import search, world_sources
from cardjax.search import pimc

SETTINGS = ("worlds", "playouts", "candidates", "playout", "inference", "value")


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
    sample_worlds, sampler_params, tag = world_sources.sampler(env, run)
    name = "pimc" + tag
    act = pimc.make_act(env, cfg, sample_worlds=sample_worlds, policy=policy, value_fn=value_fn)
    return Agent(name, act, (sampler_params, policy_params))
