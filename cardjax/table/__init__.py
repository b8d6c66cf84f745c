"""People's tables: each game as a person sees it at one seat (what they see, their legal moves
in their words, their move turned into env actions), a game in progress with its players, and
game records.  The terminal (``scripts/play.py``) and the web table (:mod:`cardjax.web`) are
front ends over this package.

- :mod:`~cardjax.table.base`: :class:`Table`, :class:`IllegalMove`, seat names, compiled steps
- :mod:`~cardjax.table.gongzhu`, :mod:`~cardjax.table.doudizhu`, :mod:`~cardjax.table.tractor`:
  each game's table (Mini Dou Di Zhu's is in ``doudizhu``)
- :mod:`~cardjax.table.game`: :class:`Game`, a game with its players and moves
- :mod:`~cardjax.table.players`: players loaded and jitted once per process
- :mod:`~cardjax.table.record`: a finished game as JSON, and its replay
"""

from __future__ import annotations

from cardjax.table.base import (
    NAMES_BY_SEATS, SEAT_NAMES, STRONGEST, IllegalMove, Table, compiled_step,
)
from cardjax.table.doudizhu import DouDizhuTable, MiniTable
from cardjax.table.game import Game, Move
from cardjax.table.gongzhu import GongzhuTable
from cardjax.table.players import Player, load_player
from cardjax.table.tractor import TractorTable

TABLES = {"gongzhu": GongzhuTable, "doudizhu": DouDizhuTable, "mini_doudizhu": MiniTable,
          "tractor": TractorTable}


def table_for(env, me: int | None, step=None, brief: bool = False) -> Table:
    """The table of ``env``'s game seen from seat ``me`` (None: a watcher); ``brief``: events
    without the scores (for a page that shows them beside)."""
    return TABLES[env.name](env, me, step, brief)


__all__ = ["TABLES", "table_for", "Table", "IllegalMove", "Game", "Move", "Player", "load_player",
           "compiled_step", "SEAT_NAMES", "NAMES_BY_SEATS", "STRONGEST", "GongzhuTable",
           "DouDizhuTable", "MiniTable", "TractorTable"]
