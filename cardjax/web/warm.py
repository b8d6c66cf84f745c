"""The tables' compiled programs: which are ready in this process, how long the others take to
prepare, and warming each game's default table when the server starts.

A table's first moves wait for its env and players to compile (about a minute for Gongzhu,
three for Tractor on a laptop with nothing cached), and JAX keeps what it compiled for every later
table with the same options and players.  ``cardjax serve`` therefore prepares each game's
default table (the page's options, the game's default opponent) in a background thread, by the
same path a request takes, while the server already answers.  A table's preparation is timed
under its key beside the persistent compilation cache (:func:`cardjax.programs.compiling`), so
the estimate a page shows is what this machine took the last time, with the cache as it is."""

from __future__ import annotations

import math
import os
import threading
import time

from cardjax import programs, registry
from cardjax.web.live import LOG

UNKNOWN = 90  # a game whose card gives no table_seconds
WAITING, WARMING, READY, FAILED = "waiting", "warming", "ready", "failed"

# the keys of the tables prepared in this process (JAX keeps compiled programs per process, for
# every server's tables), emptied with the compiled programs when the process nears the kernel's
# map limit (cardjax.programs.release): they compile again then, and the page is told so
PREPARED: set = programs.keep(set())


def key(env, players) -> str:
    """The name a table's programs are timed under: the env with its options and the players'
    words (one compile serves every table that has the same)."""
    from cardjax.web.new_table import PERSON

    words = sorted({p for p in players if p != PERSON})
    return f"the table {env!r} with {', '.join(words) or 'nobody'}"


def default_request(game: str) -> dict:
    """The table the page asks for when nothing is changed: its options' defaults, seat 0, the
    game's default opponent at the other seats."""
    options = {o["name"]: o["default"] for o in registry.spec(game).page_options
               if o.get("default") is not None}
    return {"game": game, "options": options, "seat": 0, "pace": 0}


class Programs:
    """What a server knows of its tables' programs: the keys prepared in this process
    (:data:`PREPARED`), and the state of each game it warms (``warm``: game -> waiting, warming,
    ready or failed)."""

    def __init__(self):
        self.prepared = PREPARED
        self.warm: dict[str, str] = {}
        self._defaults: dict[str, str] = {}

    def prepare(self, game, table_key: str) -> None:
        """``game.prepare()``; its time recorded the first time in this process only (later the
        programs are in memory, which says nothing of a compile), and not for players loaded
        from a directory (a run, often a temporary one: the record would grow with each)."""
        if table_key in self.prepared or "/" in table_key or os.sep in table_key:
            game.prepare()
        else:
            with programs.compiling(table_key, show=False):
                game.prepare()
        self.prepared.add(table_key)

    def default_key(self, game: str) -> str:
        if game not in self._defaults:
            from cardjax.web.new_table import parse

            req = parse(default_request(game))
            self._defaults[game] = key(req.env, req.players)
        return self._defaults[game]

    def estimate(self, game: str, table_key: str | None = None) -> dict:
        """How long a table of ``game`` (``table_key``: its key, default the game's default
        table) takes to prepare: ``seconds`` (0 when ready) and ``source``: ``ready``, ``recorded``
        (this machine's last time, its own or the game's default table's) or ``measured`` (the
        game card's ``table_seconds``, taken on a laptop: nothing recorded here)."""
        default = self.default_key(game)
        table_key = table_key or default
        if table_key in self.prepared:
            return {"seconds": 0, "source": "ready"}
        for k in (table_key, default):
            seconds = programs.recorded(k)
            if seconds is not None:  # a whole second at least: a table never starts at once
                return {"seconds": max(1, math.ceil(seconds)), "source": "recorded"}
        return {"seconds": registry.spec(game).table_seconds or UNKNOWN, "source": "measured"}

    def status(self) -> dict:
        """Per game of the page: ``state`` (ready, warming, waiting, failed or cold) with
        :meth:`estimate`'s ``seconds`` and ``source``."""
        out = {}
        for spec in registry.specs():
            if spec.table is None:
                continue
            guess = self.estimate(spec.name)
            state = self.warm.get(spec.name, "cold")
            if guess["source"] == "ready" or state == READY:  # warmed, then maybe freed since
                state = READY if guess["source"] == "ready" else "cold"
            out[spec.name] = {"state": state, **guess}
        return out


def start(tables, games) -> threading.Thread:
    """Prepare the default table of each of ``games`` (quickest first, so that most games are
    ready soonest) in a daemon thread, each through :meth:`Tables.create` as a request would,
    closed once prepared; ``tables.programs.warm`` follows it."""
    progs = tables.programs
    games = sorted(games, key=lambda g: progs.estimate(g)["seconds"])
    for game in games:
        progs.warm[game] = WAITING

    def loop():
        for game in games:
            if tables.stopped.is_set():
                return
            progs.warm[game] = WARMING
            began = time.monotonic()
            try:
                live = tables.create(default_request(game))
            except Exception as e:  # a full server, a player that does not load
                LOG.warning("warming %s: no table (%s)", game, e)
                progs.warm[game] = FAILED
                continue
            while not (live.ready or live.error) and not tables.stopped.wait(0.1):
                pass
            try:
                tables.close(live.id)
            except KeyError:  # closed meanwhile (the server stopping)
                pass
            if tables.stopped.is_set():  # the server stops: the rest stays as it is
                return
            progs.warm[game] = READY if live.ready else FAILED  # once closed: not a table
            LOG.info("warming %s: %s after %.0f s", game, progs.warm[game],
                     time.monotonic() - began)

    thread = threading.Thread(target=loop, name="warm-tables", daemon=True)
    thread.start()
    return thread
