"""What a DMC command's evaluation plays: the env, the network's greedy player (its parameters
swapped in at each evaluation) and the opponents, kept per network config, env and opponents.

``arena.make_play`` keeps a match's program per env and players, so a second run of a config in
one process (a resumed run: tests, notebooks) plays the program already traced instead of a new
trace of it; the opponents share one act (``arena.one_program``), so the matches against all of
them are one program.
"""

from __future__ import annotations

import cardjax
from cardjax import agents, programs
from cardjax.agents import dmc as dmc_agent
from cardjax.eval import arena

_KEPT: dict = programs.keep({})


def players(cfg, game: str, opponents: tuple[str, ...], **env_options):
    """``(env, player, {name: opponent})`` for evaluating a DMC network trained with ``cfg`` in
    ``cardjax.make(game, **env_options)``; ``player.params`` is None (swap the state's in)."""
    key = (cfg, game, tuple(sorted(env_options.items())), tuple(opponents))
    if key not in _KEPT:
        env = cardjax.make(game, **env_options)
        # one match program for all the opponents (arena.one_program)
        shared = arena.one_program(agents.get(env, name) for name in opponents)
        _KEPT[key] = (env, dmc_agent.agent_from_params(env, None, cfg),
                      dict(zip(opponents, shared)))
    return _KEPT[key]
