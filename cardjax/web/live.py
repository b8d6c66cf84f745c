"""One table being played on the web: the game, a lock, and a worker thread that plays the
players' moves.

The worker computes a player's move *outside* the lock (jitted code, which runs without the
GIL), so a slow search move holds up neither this table's views nor any other table; it takes
the lock only to make the move.  Requests take the lock briefly: a view, a preview, the
person's move (after which the worker starts again)."""

from __future__ import annotations

import logging
import threading
import time

from cardjax.play import Game
from cardjax.table import IllegalMove
from cardjax.play.record import game_record

LOG = logging.getLogger("cardjax.web")
LOG_LINES = 80  # lines of the game's log in a view


class LiveTable:
    """A game at a web table (``players``: a word per seat, "you" at the person's seat);
    ``prepare``: compiles its programs (default ``game.prepare``), ``estimate``: about how long
    that takes (:meth:`cardjax.web.warm.Programs.estimate`), for the page while it waits."""

    THREAD = "table-"  # the name of its worker thread, before its id

    def __init__(self, table_id: str, game: Game, players: list[str], pace: float,
                 prepare=None, estimate: dict | None = None):
        self.id, self.game, self.players, self.pace = table_id, game, players, pace
        self.prepare, self.estimate = prepare or game.prepare, estimate
        self.me = game.table.me
        self.lock = threading.Lock()
        self.closed = threading.Event()
        self.last_seen = time.monotonic()
        self.ready = False  # compiled: the worker prepares the game first
        self.thinking: int | None = None  # the seat whose move the worker computes
        self.error: str | None = None
        self.working = False
        self._cached = None  # (key, view) of the live position
        with self.lock:
            self._start()

    # -- the worker
    def _start(self) -> None:
        """Start the worker unless it runs (call with the lock held)."""
        if not self.working and not self.closed.is_set() and self.error is None:
            self.working = True
            threading.Thread(target=self._work, name=self.THREAD + self.id, daemon=True).start()

    def _work(self) -> None:
        try:
            if not self.ready:
                self.prepare()
                self.ready = True
            while True:
                with self.lock:
                    if not self._players_turn():
                        self.working, self.thinking = False, None
                        return
                    self.thinking = self.game.turn
                    pause = self.pace * self.game.table.pause(self.game.state)
                start = time.monotonic()
                move = self.game.agent_move()  # without the lock: the slow part
                if self.closed.wait(max(0.0, pause - (time.monotonic() - start))):
                    break
                with self.lock:
                    self.game.commit(move)
        except Exception:  # a player or the game failed: the table says so, no crash
            LOG.exception("table %s: the players' moves stopped", self.id)
            self.error = "the game stopped: a player failed (the server's log has why)"
        with self.lock:
            self.working, self.thinking = False, None

    def _players_turn(self) -> bool:
        """Whether a player (not the person) moves next; plays the person's moves that ask
        nothing of them on the way (call with the lock held)."""
        g = self.game
        while not self.closed.is_set() and not g.over:
            if g.turn != self.me:
                return True
            auto = g.table.auto_move(g.state)
            if auto is None:
                return False
            g.commit(g.person_move(auto))
        return False

    # -- requests
    def touch(self) -> None:
        self.last_seen = time.monotonic()

    def close(self) -> None:
        self.closed.set()

    def view(self, at: int | None = None) -> dict:
        """The view of the position after ``at`` moves (None: now) with the table's facts."""
        with self.lock:
            g = self.game
            n = len(g.moves)
            if at is not None and not 0 <= at <= n:
                raise IllegalMove(f"at must be a move number 0..{n}, got {at}")
            k = n if at is None else at
            key = (k, n, self.ready, self.thinking, self.error)
            if self._cached and self._cached[0] == key:
                return self._cached[1]
            state = g.moves[k - 1].state if k else g.first
            view = g.table.view(state, g.moves[:k], reveal=self.me is None or g.over,
                                person=k == n and self.ready)
            lines = [line.strip() for m in g.moves[:k] for line in m.lines if line.strip()]
            view.update({
                "id": self.id, "at": k, "moves": n, "over": g.over, "you": self.me,
                "watch": self.me is None, "players": self.players, "seed": g.seed,
                "ready": self.ready, "estimate": None if self.ready else self.estimate,
                "error": self.error,
                "thinking": self.thinking if k == n else None,
                "log": lines[-LOG_LINES:],
            })
            self._cached = (key, view)
            return view

    def _person_turn(self) -> None:
        """Raise :class:`IllegalMove` unless the person may move now (lock held)."""
        g = self.game
        if self.me is None:
            raise IllegalMove("you are watching this table: there is no seat of yours to play")
        if g.over:
            raise IllegalMove("the game is over")
        if not self.ready:
            raise IllegalMove("the table is still being prepared: wait a moment")
        if g.turn != self.me:
            who = g.table.names[g.turn]
            raise IllegalMove(f"it is not your turn: {who} is to play")

    def move(self, cards=None, text=None) -> dict:
        """The person's move, of ``cards`` (ids of the view's cards) or ``text`` (as people
        type it); :class:`IllegalMove` says why it is refused."""
        with self.lock:
            self._person_turn()
            g = self.game
            actions = (g.table.from_text(g.state, text) if text is not None
                       else g.table.from_cards(g.state, cards))
            g.commit(g.person_move(actions))
            self._start()
        return self.view()

    def preview(self, cards) -> dict:
        """For the cards chosen so far: the cards that may be added, and whether they make a
        move now."""
        with self.lock:
            self._person_turn()
            return self.game.table.preview(self.game.state, cards)

    def record(self) -> dict:
        """The finished game's record (:mod:`cardjax.play.record`)."""
        with self.lock:
            if not self.game.over:
                raise IllegalMove("the game is not over: its record comes at the end")
            return game_record(self.game, self.players)
