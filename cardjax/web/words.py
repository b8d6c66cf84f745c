"""A player word sent to the web server, checked before any player is built: its length, its
search budgets (:data:`~cardjax.web.limits.BUDGETS`) and the directories it may load from.

A word is a player of the game (a baseline or a shipped pretrained player, with settings after
a colon) or a directory of a trained player; a directory, and a setting that names one
(``playout=``, ``value=``, ``inference=``, ``play=``) unless it names a network the package
ships (``value=doudizhu-value``), must lie inside one of the server's players directories (``--players-dir``) once symlinks and ``..`` are resolved.  Any other path
gets one answer, the same whether or not it exists, so the server's files cannot be probed.
"""

from __future__ import annotations

import inspect
import math
import os

from cardjax import agents
from cardjax.web.limits import BUDGETS, MAX_NUMBER, MAX_SEARCH, MAX_WORD, shown


class BadWord(ValueError):
    """A player word the server refuses (a 400 with its message)."""


# settings whose value is another player word or a directory (the loaders read them from disk)
PATH_SETTINGS = ("playout", "value", "inference", "play")
LITERALS = {"inference": ("oracle",)}  # values of those settings that name no directory
MAX_DEPTH = 3  # words inside words ("bidder:play=ismcts:iterations=300")


def default_dirs() -> list[str]:
    """The package's pretrained players and ``runs/`` under the working directory."""
    from cardjax.agents import pretrained

    return [pretrained.DIRECTORY, "runs"]


def allowed_dir(path: str, dirs) -> str | None:
    """The real path of the directory ``path`` (relative to the working directory) when it
    lies inside one of ``dirs``; else None, whether or not it exists."""
    try:
        real = os.path.realpath(path)
        for root in dirs:
            root = os.path.realpath(root)
            if real != root and os.path.commonpath([real, root]) == root \
                    and os.path.isdir(real):
                return real
    except (ValueError, OSError):  # a NUL byte, another drive
        return None
    return None


def check(word, game: str, dirs, extra=(), typed: dict | None = None, depth: int = 0) -> str:
    """The word to load for ``word`` (directories as real paths), or :class:`BadWord`;
    ``typed`` (if given) gets each real path's words as sent, to say it back in a refusal."""
    if not isinstance(word, str) or not word.strip():
        raise BadWord("a player word is text, e.g. \"random\" or \"ismcts:iterations=300\"")
    word = word.strip()
    if len(word) > MAX_WORD:
        raise BadWord(f"player words are at most {MAX_WORD} characters; got {len(word):,}")
    if not word.isprintable():
        raise BadWord(f"player {shown(word)}: a player word is printable text")
    if word in extra:
        return word
    name, colon, rest = word.partition(":")
    players = agents.baselines(game)
    if name not in players:
        name, sent = allowed_dir(name, dirs), name
        if typed is not None and name is not None:
            typed[name] = sent
        if name is None:
            raise BadWord(f"player {shown(word)} is not allowed: not a player of {game} "
                          f"({', '.join(players)}) nor a player directory this server allows "
                          "(--players-dir)")
    settings = [_setting(word, item, game, dirs, typed, depth)
                for item in filter(None, rest.split(","))]
    _search_budget(word, name, settings)
    return name + colon + ",".join(f"{k}={v}" for k, v in settings)


def _setting(word: str, item: str, game: str, dirs, typed, depth: int) -> tuple[str, str]:
    """One ``key=value`` of ``word``'s settings, checked (as ``agents.parse_spec`` splits)."""
    key, eq, value = item.partition("=")
    key = key.strip()
    if not eq or not key or not value:
        raise BadWord(f"bad setting {shown(item)} in player {shown(word)}: write "
                      "NAME:KEY=VALUE,KEY=VALUE")
    number = _number(value)
    if key in BUDGETS:
        cap = BUDGETS[key]
        if number is None or not 0 <= number <= cap:
            raise BadWord(f"{key} is a number 0 .. {cap:,} on this server; got {shown(value)}")
    elif number is not None:
        if not math.isfinite(number) or abs(number) > MAX_NUMBER:
            raise BadWord(f"{key} must be a number within ±{MAX_NUMBER:,.0f}; got "
                          f"{shown(value)}")
    elif key in PATH_SETTINGS or os.sep in value or "/" in value or value.startswith((".", "~")):
        if value not in LITERALS.get(key, ()) and value not in _networks(game):
            if depth >= MAX_DEPTH:
                raise BadWord(f"player {shown(word)}: players nested too deeply")
            value = check(value, game, dirs, typed=typed, depth=depth + 1)
    return key, value


def _networks(game: str) -> tuple:
    """The networks the package ships for ``game`` (``value=doudizhu-value``): named, not paths."""
    from cardjax.agents import pretrained

    return pretrained.networks(game)


def _number(text: str) -> float | None:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return None


def _search_budget(word: str, name: str, settings) -> None:
    """A UCT player's trees x iterations, its defaults counted, within :data:`MAX_SEARCH`."""
    from cardjax.search import uct

    if name not in ("cheat_uct", "det_uct", "ismcts"):
        return
    given = {k: _number(v) for k, v in settings}
    defaults = inspect.signature(getattr(uct, name)).parameters
    trees = given.get("trees") or defaults["trees"].default
    iterations = given.get("iterations") or defaults["iterations"].default
    if trees * iterations > MAX_SEARCH:
        raise BadWord(f"player {shown(word)}: {trees:g} trees x {iterations:g} iterations is "
                      f"over this server's {MAX_SEARCH:,} a move")
