"""A request for a new table, checked: the game and its options, the person's seat (or none:
watching), each seat's player, the deal's seed and the pace of the players' moves.  Every
mistake is a :class:`BadTable` whose message says what to send instead."""

from __future__ import annotations

import math
import secrets
from typing import NamedTuple

import cardjax
from cardjax.play import default_opponent

PERSON = "you"  # the players' word for the person's seat
MAX_PACE = 10.0


class BadTable(ValueError):
    """A request for a table that cannot be made (a 400 with its message)."""


class TableRequest(NamedTuple):
    env: object
    me: int | None  # None: everyone is a player, the person watches
    players: list  # a word per seat ("you" at the person's seat)
    seed: int
    pace: float


def parse(body) -> TableRequest:
    """The request ``body`` (a JSON object) checked; see ``docs/web.md`` for its fields."""
    if not isinstance(body, dict):
        raise BadTable("the request body must be a JSON object")
    known = {"game", "options", "seat", "players", "seed", "pace"}
    unknown = sorted(set(body) - known)
    if unknown:
        raise BadTable(f"unknown field(s) {', '.join(unknown)}; a table takes "
                       f"{', '.join(sorted(known))}")
    game = body.get("game")
    if game not in cardjax.GAMES:
        raise BadTable(f"unknown game {game!r}; available: {', '.join(cardjax.GAMES)}")
    options = body.get("options") or {}
    if not isinstance(options, dict):
        raise BadTable("options must be a JSON object of the game's rule options")
    try:
        env = cardjax.make(game, **options)
    except (ValueError, TypeError) as e:
        raise BadTable(str(e)) from None
    n = env.num_players
    seat = body.get("seat", 0)
    if seat in (None, "watch"):
        me = None
    elif isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < n:
        me = seat
    else:
        raise BadTable(f"seat must be 0-{n - 1} in {game} ({n} seats), or null to watch; "
                       f"got {seat!r}")
    return TableRequest(env, me, _players(body.get("players"), game, n, me), _seed(body),
                        _pace(body.get("pace", 0.0)))


def _players(players, game: str, n: int, me: int | None) -> list:
    if players is None:
        players = default_opponent(game)
    if isinstance(players, str):
        players = [players] * n
    if not isinstance(players, list) or len(players) != n \
            or not all(isinstance(p, str) and p.strip() for p in players):
        raise BadTable(f"players must be one player word, or a list of {n} (one per seat), "
                       f"e.g. \"random\", \"ismcts:iterations=300\" or a run directory")
    out = [PERSON if s == me else p.strip() for s, p in enumerate(players)]
    if me is None and PERSON in out:
        raise BadTable(f"a watched table has no seat for {PERSON!r}: give every seat a player")
    others = [s for s, p in enumerate(out) if p == PERSON and s != me]
    if others:
        raise BadTable(f"seat {others[0]} is {PERSON!r}, but your seat is {me}: one person a "
                       "table")
    return out


def _seed(body) -> int:
    seed = body.get("seed")
    if seed is None:
        return secrets.randbelow(2 ** 31)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2 ** 31:
        raise BadTable(f"seed must be an integer 0 .. 2**31 - 1, got {seed!r}")
    return seed


def _pace(pace) -> float:
    if not isinstance(pace, (int, float)) or isinstance(pace, bool) or not math.isfinite(pace) \
            or not 0 <= pace <= MAX_PACE:
        raise BadTable(f"pace must be seconds between the players' moves, 0 .. {MAX_PACE:g}; "
                       f"got {pace!r}")
    return float(pace)
