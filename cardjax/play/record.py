"""A finished game as a record that replays through the env: the game, its options, the deal
key and every env action (JSON).  :func:`replay` plays it again and returns the final state and
each seat's rewards summed over the game."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from cardjax import registry
from cardjax.table.base import compiled_init, compiled_mask, compiled_step

FORMAT, VERSION = "cardjax-game-record", 1


def game_record(game, players: list[str]) -> dict:
    """The record of ``game`` (a :class:`cardjax.play.game.Game`); ``players``: each seat's
    player word ("you" for the person)."""
    table = game.table
    return {
        "format": FORMAT, "version": VERSION,
        "game": game.env.name, "options": dict(game.env.options),
        "seed": game.seed, "deal_key": np.asarray(game.deal_key).tolist(),
        "players": list(players), "seats": list(table.names),
        "actions": game.actions(),
        "moves": [{"seat": m.seat, "actions": list(m.actions), "said": list(m.lines)}
                  for m in game.moves],
        "finished": game.over,
        "returns": [float(r) for r in game.returns],
        "result": table.result(game.state) if game.over else None,
    }


def replay(record: dict):
    """``(final state, returns)``: the record's actions played from its deal; each action must
    be legal (``ValueError`` names the first that is not), and so must the record's fields."""
    for field in ("format", "game", "options", "deal_key", "actions"):
        if field not in record:
            raise ValueError(f"not a game record: no {field!r}")
    if record["format"] != FORMAT:
        raise ValueError(f"not a game record: format {record['format']!r}")
    env = registry.make(record["game"], **record["options"])
    step, mask = compiled_step(env), compiled_mask(env)
    state = compiled_init(env)(jnp.asarray(record["deal_key"], jnp.uint32))
    returns = np.zeros(env.num_players, np.float64)
    for i, a in enumerate(record["actions"]):
        if bool(state.terminated):
            raise ValueError(f"action {i} ({a}) comes after the end of the game")
        if not 0 <= int(a) < env.num_actions or not bool(np.asarray(mask(state))[int(a)]):
            raise ValueError(f"action {i} ({a}) is not legal for seat "
                             f"{int(state.current_player)}")
        state = step(state, int(a))
        returns += np.asarray(jax.device_get(state.rewards))
    return state, returns
