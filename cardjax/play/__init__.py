"""A game in progress at a people's table: its players (:mod:`~cardjax.play.players`, loaded
and jitted once per process), its moves (:mod:`~cardjax.play.game`) and its record as JSON
(:mod:`~cardjax.play.record`).  The terminal (``cardjax play``) and the web table
(:mod:`cardjax.web`) are front ends over it and :mod:`cardjax.table`.
"""

from __future__ import annotations

from cardjax.play.game import Game, Move
from cardjax.play.players import Player, load_player
from cardjax.table import Table


def table_for(env, me: int | None, step=None, brief: bool = False) -> Table:
    """The table of ``env``'s game (its card's) seen from seat ``me`` (None: a watcher);
    ``brief``: events without the scores (for a page that shows them beside)."""
    from cardjax import registry

    return registry.spec(env.name).table_class()(env, me, step, brief)


def default_opponent(game: str) -> str:
    """The baseline that fills a table's empty seats: the game's strongest (its card's)."""
    from cardjax import registry

    return registry.spec(game).default_opponent


__all__ = ["Game", "Move", "Player", "load_player", "table_for", "default_opponent"]
