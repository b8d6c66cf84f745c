"""The PIMC player (:mod:`cardjax.search.pimc`) as an agent, with or without card-location
inference: ``get(env, "pimc", worlds=16, playouts=1, candidates=32, playout="if",
inference=RUN_DIR)``.

Worlds: without ``inference``, uniform over the information set, drawn exactly
(``cardjax.inference.worlds.sampler``; the paper's NI player); a game that does not describe its
hidden cards (Mini Dou Di Zhu), and Tractor while the cards are dealt, use ``env.sample_hidden``.  With ``inference`` (an
``experiments/inference.py`` run directory of the same game, or its artifact), in proportion to
its best network's predictions (the paper's equation 1; :mod:`cardjax.agents.world_sources`).
``inference="oracle"`` cheats: every world is the true state (the TSSR oracle; the most any
inference could give this search, for measurement only).  ``playout`` names a baseline or a
training run that plays every seat from each move to the end of the game (default
``random``); ``value=RUN`` values the position after each move with a training run's network
instead (a ScrofaZero run in Gongzhu, a DMC run in any game, or a shipped player by name; no
playouts).  ``search=N`` values each move in each world by a search of ``N`` iterations after it
(cheating UCT on points, exploration ``k``, the game's by default; its leaves the playouts or the
value): the opponents' best answers found, not guessed by a policy.  ``rank=PLAYER`` (a DMC run,
artifact or shipped player) makes the ``candidates`` the legal moves that player values most,
instead of the first in id order (in Dou Dizhu singles, pairs and trios: never a chain).
"""

from __future__ import annotations

from cardjax import agents
from cardjax.core import Agent
from cardjax.agents import search, world_sources
from cardjax.search import pimc

SETTINGS = ("worlds", "playouts", "candidates", "search", "k", "playout", "inference", "value",
            "rank")


def make(env, **options) -> Agent:
    unknown = set(options) - set(SETTINGS)
    if unknown:
        raise ValueError(f"unknown setting(s) {', '.join(sorted(unknown))} for pimc; settings: "
                         f"{', '.join(SETTINGS)}")
    playout = options.pop("playout", "random")
    run = options.pop("inference", None)
    value = options.pop("value", None)
    rank = options.pop("rank", None)
    options.setdefault("k", search.defaults(env).get("k", 1.0))
    cfg = pimc.Config(**{k: float(v) if k == "k" else int(v) for k, v in options.items()})
    policy, policy_params, value_fn = search.evaluator(env, playout, value)
    sample_worlds, sampler_params, tag = world_sources.sampler(env, run)
    name = "pimc" + tag
    rank_fn, rank_params = (None, None) if rank is None else agents.load_ranking(env, str(rank))
    act = pimc.make_act(env, cfg, sample_worlds=sample_worlds, policy=policy, value_fn=value_fn,
                        rank_fn=rank_fn)
    return Agent(name, act, (sampler_params, policy_params, rank_params))
