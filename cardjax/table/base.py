"""What every game's table shares: seat names, the compiled step and legal mask of an env, the
person's refused move (:class:`IllegalMove`) and :class:`Table`, the base of the games' tables.

A *table* is a game seen by a person at one seat (or by a watcher, ``me=None``): what they see
of a state, the events a move makes, their legal moves in their own words, and a move of theirs
(typed text or chosen cards) turned into the env's actions.  It holds no game and does no input
or output: the terminal (``cardjax play``) and the web table (:mod:`cardjax.web`) are front
ends over it, so each rule a person meets is written once.
"""

from __future__ import annotations

import threading
from typing import Callable

import jax
import numpy as np

from cardjax import cards

SEAT_NAMES = ("South", "West", "North", "East")  # four seats, in the order of play
NAMES_BY_SEATS = {4: SEAT_NAMES, 3: ("South", "West", "East"), 2: ("South", "North")}


class IllegalMove(ValueError):
    """A person's move that is not played, with the reason in words (``str(e)``); ``legal``:
    the legal moves in words, where listing them helps."""

    def __init__(self, reason: str, legal: list[str] | None = None):
        super().__init__(reason)
        self.legal = legal


_COMPILED: dict = {}
_COMPILED_LOCK = threading.Lock()


def _compiled(env, what: str, make: Callable) -> Callable:
    key = (what, type(env), repr(env))
    with _COMPILED_LOCK:
        if key not in _COMPILED:
            _COMPILED[key] = make()
        return _COMPILED[key]


def compiled_step(env) -> Callable:
    """``jax.jit(env.step)``, one per game and option set in this process (Tractor's takes
    seconds to compile: several games in one process compile it once)."""
    return _compiled(env, "step", lambda: jax.jit(env.step))


def compiled_mask(env) -> Callable:
    """Jitted ``state -> legal_action_mask`` (Dou Dizhu builds its mask on demand: eagerly that
    is many small operations)."""
    return _compiled(env, "mask", lambda: jax.jit(lambda s: s.legal_action_mask))


def compiled_init(env) -> Callable:
    """``jax.jit(env.init)``, one per game and option set."""
    return _compiled(env, "init", lambda: jax.jit(env.init))


class Table:
    """One game seen from seat ``me`` (None: a watcher), without input or output.

    A *move* is what a seat does in one turn; in Tractor it is several of the env's sub-actions
    (:meth:`move_done` says when it is over), elsewhere one action.  Subclasses fill in the
    game's words (:meth:`intro`, :meth:`events`, :meth:`summary`), the person's moves
    (:meth:`from_text`, :meth:`from_cards`, :meth:`preview`, :meth:`choices`) and the web view
    (:meth:`view`)."""

    game = ""
    multi = False  # the person picks several cards for one move (then a submit button)

    def __init__(self, env, me: int | None, step: Callable | None = None, brief: bool = False):
        self.env, self.me, self.brief = env, me, brief  # brief: events beside a scoreboard
        self.step = step or compiled_step(env)
        self.mask_fn = compiled_mask(env)
        self.names = NAMES_BY_SEATS[env.num_players]

    # -- seats
    def name(self, seat: int) -> str:
        return self.names[seat] + (" (you)" if seat == self.me else "")

    def seating(self, state, partner: str, opponents: str) -> dict:
        """seat -> player spec for every seat but the person's: the partner sits opposite."""
        n = self.env.num_players
        return {s: partner if (s - self.me) % n == n // 2 else opponents
                for s in range(n) if s != self.me}

    def legal(self, state) -> np.ndarray:
        """bool[num_actions]: the legal actions of ``state``."""
        return np.asarray(self.mask_fn(state))

    # -- the game's words
    def intro(self, state, seats: dict) -> list[str]:
        """Lines that open the game for the person (``seats``: seat -> player spec)."""
        return []

    def move_done(self, before, after) -> bool:
        """Whether the seat that moved in ``before`` has finished its move in ``after``."""
        return True

    def events(self, before, after, seat: int, actions: list[int]) -> list[str]:
        """Lines that tell what ``seat``'s move (``actions``, from ``before`` to ``after``)
        did; with ``brief``, without the scores a page shows beside them."""
        return []

    def result(self, state) -> dict:
        """The finished game's result: ``rewards`` for every game, and each game's own facts."""
        return {"rewards": [float(r) for r in np.asarray(state.rewards)]}

    def summary(self, state) -> list[str]:
        """Lines that close the game."""
        rewards = self.result(state)["rewards"]
        return ["rewards: " + "  ".join(f"{self.names[s]} {r:+g}" for s, r in enumerate(rewards))]

    # -- the person's moves
    def auto_move(self, state) -> list[int] | None:
        """The actions to play for the person when there is nothing to ask them (Tractor's
        declarations when nothing new can be declared), else None."""
        return None

    def from_text(self, state, text: str) -> list[int]:
        """The actions of a move typed as people write it; :class:`IllegalMove` says why not."""
        raise NotImplementedError

    def from_cards(self, state, chosen: list[int]) -> list[int]:
        """The actions of a move of the cards ``chosen`` (the ids of :meth:`view`'s cards);
        :class:`IllegalMove` says why not."""
        raise NotImplementedError

    def preview(self, state, chosen: list[int]) -> dict:
        """For cards chosen so far: ``playable`` (the card ids that may still be added) and
        ``ready`` (they make a legal move now)."""
        raise NotImplementedError

    def choices(self, state) -> list[dict]:
        """The person's moves that are buttons, not cards: ``{"label", "text", "enabled"}``
        (``text`` goes to :meth:`from_text`)."""
        return []

    # -- the web view
    def view(self, state, moves: list, reveal: bool, person: bool = True) -> dict:
        """What the person (or a watcher) sees, as JSON-ready data (``docs/web.md`` lists the
        fields).  ``moves``: the moves so far (objects with ``seat`` and ``actions``);
        ``reveal``: show every hand (a watcher, or a finished game); ``person``: with the
        person's choices when it is their turn (not for a past position)."""
        s = jax.device_get(state)
        over = bool(s.terminated)
        turn = None if over else int(s.current_player)
        asked = None  # the person's part: only at their turn
        if turn is not None and turn == self.me and person:
            asked = {"prompt": "Your turn", "multi": self.multi, "submit": None,
                     "playable": [], "choices": self.choices(state), "suggestions": [],
                     "hint": None}
            asked.update(self.person_view(state))
            if asked["hint"] is None:
                asked["hint"] = self.default_hint(asked)
        return {
            "game": self.game,
            "phase": "over" if over else self.phase(s),
            "turn": turn,
            "seats": [self.seat_view(s, seat, moves, reveal or seat == self.me)
                      for seat in range(self.env.num_players)],
            "trick": self.trick_note(s, moves),
            "centre": self.centre(s, reveal),
            "info": self.info(s),
            "person": asked,
            "result": ({**self.result(state), "lines": self.summary(state)} if over else None),
        }

    def phase(self, s) -> str:
        """The phase's name (``play``, ``bidding``, ``declare``, ``bury``, ``overturn``, ...)."""
        return "play"

    def seat_view(self, s, seat: int, moves: list, show_hand: bool) -> dict:
        """One seat: ``name``, ``count`` (cards held), ``hand`` (faces, when shown), ``table``
        (the faces it has on the table), ``label`` (a word on the table: pass, a bid),
        ``badges`` and ``note`` (its score)."""
        raise NotImplementedError

    def trick_note(self, s, moves: list) -> str | None:
        """A line over the table (who took the last trick), or None."""
        return None

    def centre(self, s, reveal: bool) -> dict | None:
        """Cards in the middle of the table (the bottom, the kitty): ``{"label", "cards"}``
        (faces, or a count of backs ``{"label", "backs"}``), or None."""
        return None

    def info(self, s) -> list:
        """The scoreboard: ``[label, value]`` pairs."""
        return []

    def pause(self, state) -> float:
        """How long, relative to a table's pace, to wait before the move of the seat to play in
        ``state`` is shown (dealing goes quicker than play)."""
        return 1.0

    def person_view(self, state) -> dict:
        """At the person's turn: ``prompt``, ``playable`` (the card ids to highlight),
        ``submit`` (the label of the button that plays the chosen cards, for a several-card
        move), ``suggestions`` (whole legal card moves as lists of card ids, the Hint's first
        first) and ``hint`` (the move the Hint suggests first, as the move request takes it:
        ``{"cards": [ids]}`` or ``{"text": ...}``; by default :meth:`default_hint`)."""
        return {}

    @staticmethod
    def default_hint(asked: dict) -> dict | None:
        """The first suggestion, else the first enabled button (a pass, a bid, done)."""
        if asked["suggestions"]:
            return {"cards": list(asked["suggestions"][0])}
        texts = [c["text"] for c in asked["choices"] if c["enabled"]]
        return {"text": texts[0]} if texts else None


def joined(parts: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``: items in a sentence."""
    parts = list(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else "".join(parts)


def face(card_id: int, rank: str, suit: str = "", red: bool = False, joker: str = "") -> dict:
    """A card as the web table draws it: its id (what the person's move sends back), the rank
    and suit symbol, red or black; ``joker``: "small" or "big"."""
    drawn = {"id": int(card_id), "rank": "10" if rank == "T" else rank, "suit": suit, "red": red}
    if joker:
        drawn["joker"] = joker
    return drawn


def deck_face(card: int) -> dict:
    """A card of the 52-card deck (``13 * suit + rank``, suits ♠ ♥ ♦ ♣)."""
    suit = card // 13
    return face(card, cards.RANKS[card % 13], cards.SUIT_SYMBOLS[suit], suit in (1, 2))
