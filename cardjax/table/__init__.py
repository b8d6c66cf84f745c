"""People's tables: a game as a person sees it at one seat (what they see, their legal moves in
their words, their move turned into env actions).  Each game's table lives in its package
(``cardjax/games/<game>/table.py``) and is named on its card (``GameSpec.table``); this package
holds what they share; ``cardjax.play.table_for`` gives a game's own.  A game in progress
with its players is :mod:`cardjax.play`.

- :mod:`~cardjax.table.base`: :class:`Table`, :class:`IllegalMove`, seat names, compiled steps
- :mod:`~cardjax.table.text`: cards and moves as text (groups by suit, listings)
"""

from __future__ import annotations

from cardjax.table.base import (
    NAMES_BY_SEATS, SEAT_NAMES, IllegalMove, Table, compiled_step,
)


__all__ = ["Table", "IllegalMove", "compiled_step", "SEAT_NAMES", "NAMES_BY_SEATS"]
