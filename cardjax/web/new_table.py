"""A request for a new table, checked: the game and its options, the person's seat (or none:
watching), each seat's player, the deal's seed and the pace of the players' moves.  Every
mistake is a :class:`BadTable` whose message says what to send instead."""

from __future__ import annotations

import inspect
import math
import secrets
from typing import NamedTuple

import cardjax
from cardjax import registry
from cardjax.play import default_opponent
from cardjax.web import words
from cardjax.web.limits import MAX_NUMBER, MAX_OPTION, public, shown

PERSON = "you"  # the players' word for the person's seat
MAX_PACE = 10.0


class BadTable(ValueError):
    """A request for a table that cannot be made (a 400 with its message)."""


class TableRequest(NamedTuple):
    env: object
    me: int | None  # None: everyone is a player, the person watches
    players: list  # a word per seat ("you" at the person's seat), as sent
    seed: int
    pace: float
    loads: list  # the word each seat's player loads from (None: the person's seat)
    typed: dict  # the real path of each directory a word names -> the path as sent


def parse(body, dirs=None, extra=()) -> TableRequest:
    """The request ``body`` (a JSON object) checked; see ``docs/web.md`` for its fields.
    ``dirs``: the directories player words may load from (default
    :func:`words.default_dirs`); ``extra``: more player words the server knows."""
    if not isinstance(body, dict):
        raise BadTable("the request body must be a JSON object")
    known = {"game", "options", "seat", "players", "seed", "pace"}
    unknown = sorted(set(body) - known)
    if unknown:
        raise BadTable(f"unknown field(s) {', '.join(shown(k) for k in unknown[:3])}"
                       f"{' ...' if len(unknown) > 3 else ''}; a table takes "
                       f"{', '.join(sorted(known))}")
    game = body.get("game")
    tables = [g for g in cardjax.GAMES if registry.spec(g).table is not None]
    if not isinstance(game, str) or game not in tables:
        raise BadTable(f"unknown game {shown(game)}; available: {', '.join(tables)}")
    env = make_env(game, body.get("options"))
    n = env.num_players
    seat = body.get("seat", 0)
    if seat in (None, "watch"):
        me = None
    elif isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < n:
        me = seat
    else:
        raise BadTable(f"seat must be 0-{n - 1} in {game} ({n} seats), or null to watch; "
                       f"got {shown(seat)}")
    players = _players(body.get("players"), game, n, me)
    dirs = words.default_dirs() if dirs is None else dirs
    loads, typed = [], {}
    for s, word in enumerate(players):
        try:
            loads.append(None if s == me else words.check(word, game, dirs, extra, typed))
        except words.BadWord as e:
            raise BadTable(f"seat {s}: {e}") from None
    return TableRequest(env, me, players, _seed(body), _pace(body.get("pace", 0.0)), loads,
                        typed)


# options of an env a table does not take: a table never plays an illegal action
NOT_AT_A_TABLE = ("illegal_penalty",)


def make_env(game: str, options):
    """The env of ``game`` with ``options`` (a JSON object), each checked by type before the
    env is made: unknown ones refused, a bool option a JSON bool, numbers finite and bounded,
    strings short and among the page's choices where it offers some (the env then checks
    the values it allows)."""
    options = {} if options is None else options
    if not isinstance(options, dict):
        raise BadTable("options must be a JSON object of the game's rule options")
    spec = registry.spec(game)
    params = {k: p.default for k, p in
              list(inspect.signature(spec.env_class()).parameters.items())
              if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
              and k not in NOT_AT_A_TABLE}
    choices = {o["name"]: o["choices"] for o in spec.page_options if o.get("choices")}
    checked = options.get("checked", False)
    if not isinstance(checked, bool):
        raise BadTable(f"option checked must be true or false, got {shown(checked)}")
    if checked:
        raise BadTable("option checked: a table runs the jitted env; checked=true (the eager "
                       "twin that raises on an illegal action) is for Python, not the web")
    for name, value in options.items():
        if name == "checked":
            continue
        if name not in params:
            raise BadTable(f"unknown option {shown(name)} for {game}; its options: "
                           f"{', '.join(params) or 'none'}")
        _option(name, value, params[name], choices.get(name))
    opts = {k: v for k, v in options.items() if k != "checked"}
    try:
        return cardjax.make(game, **opts)
    except (ValueError, TypeError) as e:
        raise BadTable(public(e)) from None


def _option(name: str, value, default, choices) -> None:
    """``value`` of the option ``name`` checked by the type of its ``default``."""
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise BadTable(f"option {name} must be true or false, got {shown(value)}")
        return
    if isinstance(value, bool) or isinstance(value, (list, dict)):
        raise BadTable(f"option {name} takes a number or a word, got {shown(value)}")
    if isinstance(value, (int, float)):
        if not math.isfinite(value) or abs(value) > MAX_NUMBER:
            raise BadTable(f"option {name} must be a number within ±{MAX_NUMBER:,.0f}, got "
                           f"{shown(value)}")
    elif isinstance(default, (int, float)) and value is not None:
        raise BadTable(f"option {name} must be a number, got {shown(value)}")
    elif isinstance(value, str):
        if len(value) > MAX_OPTION or (choices and value not in choices):
            allowed = f": one of {', '.join(str(c) for c in choices if c)}" if choices else ""
            raise BadTable(f"option {name} got {shown(value)}{allowed}")


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
        raise BadTable(f"seed must be an integer 0 .. 2**31 - 1, got {shown(seed)}")
    return seed


def _pace(pace) -> float:
    if not isinstance(pace, (int, float)) or isinstance(pace, bool) or not math.isfinite(pace) \
            or not 0 <= pace <= MAX_PACE:
        raise BadTable(f"pace must be seconds between the players' moves, 0 .. {MAX_PACE:g}; "
                       f"got {shown(pace)}")
    return float(pace)
