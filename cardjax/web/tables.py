"""Every table of a web server, by id, and the reaper: a thread that removes the tables nobody
has asked about for ``idle_timeout`` seconds (the page asks every few seconds while it is open,
so a closed browser's table goes)."""

from __future__ import annotations

import secrets
import threading
import time

from cardjax.play import Game, load_player, table_for
from cardjax.web import new_table, warm, words
from cardjax.web.limits import public, shown
from cardjax.web.live import LOG, LiveTable


class NoTable(KeyError):
    """An id that names no table (a 404)."""


class Full(RuntimeError):
    """Too many tables open (a 503)."""


class Tables:
    """The open tables.  ``players``: more player words for every table (word ->
    ``factory(env) -> Agent``), tried before the baselines; ``players_dirs``: the directories
    player words may load from (default :func:`words.default_dirs`); ``programs``: which tables'
    programs are ready, and the estimates of the others (:mod:`cardjax.web.warm`)."""

    def __init__(self, idle_timeout: float = 300.0, max_tables: int = 64,
                 players: dict | None = None, players_dirs: list[str] | None = None):
        self.idle_timeout, self.max_tables, self.extra = idle_timeout, max_tables, players
        self.players_dirs = words.default_dirs() if players_dirs is None else list(players_dirs)
        self.tables: dict[str, LiveTable] = {}
        self.loading = 0  # tables whose players are loading: they hold a place under the cap
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.reaper: threading.Thread | None = None
        self.programs = warm.Programs()

    def create(self, body) -> LiveTable:
        """A new table from a request body (:func:`new_table.parse`); :class:`new_table.BadTable`
        for a bad request (an unknown player too), :class:`Full` when too many are open."""
        req = new_table.parse(body, self.players_dirs, tuple(self.extra or ()))
        with self.lock:  # the place is taken here, atomically, and given back if loading fails
            if len(self.tables) + self.loading >= self.max_tables:
                raise Full(f"{len(self.tables) + self.loading} tables are open, the most this "
                           "server keeps: close one or wait")
            self.loading += 1
        try:
            live = self._open(req)
        except BaseException:
            with self.lock:
                self.loading -= 1
            raise
        with self.lock:  # one step: the table is never counted both as loading and as open
            self.tables[live.id] = live
            self.loading -= 1
        LOG.info("table %s: %s, seat %s, players %s, seed %d", live.id, req.env.name, req.me,
                 req.players, req.seed)
        return live

    def _open(self, req) -> LiveTable:
        env, me = req.env, req.me
        players = {}
        for seat, (word, spec) in enumerate(zip(req.players, req.loads)):
            if seat == me:
                continue
            try:
                players[seat] = load_player(env, spec, self.extra)
            except ValueError as e:  # a bad setting, or a directory that holds no player
                message = str(e)
                for real, sent in sorted(req.typed.items(), key=lambda kv: -len(kv[0])):
                    # the paths as they were sent
                    message = message.replace(real, sent)
                raise new_table.BadTable(f"seat {seat}: player {shown(word)}: "
                                         f"{public(message)}") from None
            except Exception:
                LOG.exception("table request: seat %d: player %r did not load", seat, spec)
                raise new_table.BadTable(f"seat {seat}: player {shown(word)} did not load "
                                         "(the server's log has why)") from None
        game = Game(env, table_for(env, me, brief=True), players, req.seed)
        key = warm.key(env, req.players)
        return LiveTable(secrets.token_urlsafe(9), game, req.players, req.pace,
                         prepare=lambda: self.programs.prepare(game, key),
                         estimate=self.programs.estimate(env.name, key))

    def count(self) -> int:
        """The tables open now."""
        with self.lock:
            return len(self.tables)

    def get(self, table_id: str) -> LiveTable:
        """The table ``table_id``, marked as seen; :class:`NoTable` if there is none."""
        with self.lock:
            live = self.tables.get(table_id)
        if live is None:
            raise NoTable(f"no table {shown(table_id)}: it was closed, or left idle for more "
                          f"than {self.idle_timeout:g} s, or the server restarted")
        live.touch()
        return live

    def close(self, table_id: str) -> None:
        with self.lock:
            live = self.tables.pop(table_id, None)
        if live is None:
            raise NoTable(f"no table {shown(table_id)}")
        live.close()

    def reap(self, now: float | None = None) -> list[str]:
        """Close the tables idle for longer than ``idle_timeout``; their ids."""
        now = time.monotonic() if now is None else now
        with self.lock:
            idle = [i for i, t in self.tables.items() if now - t.last_seen > self.idle_timeout]
            gone = [self.tables.pop(i) for i in idle]
        for live in gone:
            live.close()
            LOG.info("table %s: closed after %.0f s idle", live.id, now - live.last_seen)
        return idle

    def start_reaper(self, every: float | None = None) -> None:
        """Reap in a daemon thread every ``every`` seconds (default: a quarter of the idle
        timeout, at most 10 s)."""
        every = every or min(max(self.idle_timeout / 4, 0.05), 10.0)

        def loop():
            while not self.stopped.wait(every):
                self.reap()

        # not named like a table's thread (LiveTable.THREAD): workers() lists those alone
        self.reaper = threading.Thread(target=loop, name="tables-reaper", daemon=True)
        self.reaper.start()

    def stop(self, wait: float = 0.0) -> int:
        """Stop the reaper and close every table; how many were open.  ``wait``: seconds to
        wait for the players' threads to finish the move they compute."""
        self.stopped.set()
        with self.lock:
            gone, self.tables = list(self.tables.values()), {}
        for live in gone:
            live.close()
        end = time.monotonic() + wait
        for thread in workers():
            thread.join(max(0.0, end - time.monotonic()))
        return len(gone)


def workers() -> list[threading.Thread]:
    """The tables' threads still computing a move (closed tables' too, until it is made)."""
    return [t for t in threading.enumerate() if t.name.startswith(LiveTable.THREAD)
            and t.is_alive()]
