"""Dou Dizhu game records (the DeepRocket paper's format, papers/001 appendix A): the record,
the paper's card notation, replaying a record through the env and recording a cardjax game.

A record is the deal and the moves, passes implicit::

    Cards: <landlord's 17>;<Down Peasant's 17>;<Up Peasant's 17>;<3 bottom>;
    Game process: 0,33;1,55;2,66;...       (role,cards; 0 landlord, 1 Down, 2 Up Peasant)

The jokers are a trap: the paper writes the small and big jokers ``S`` and ``B``, cardjax ``B``
and ``R`` (so ``B`` is the big joker in a record, the small one in cardjax).  Every string inside
:class:`Record` is in cardjax notation; :mod:`cardjax.games.doudizhu.record_text` reads and
writes the text and converts.  The format in full: docs/games.md, "Game records".
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from cardjax.games.doudizhu import moves as mv
from cardjax.games.doudizhu.env import DouDizhu
from cardjax.games.doudizhu.moves import COUNTS, NUM_RANKS, PASS, RANKS, action_index, action_string

__all__ = [
    "Record", "replay", "replay_actions", "record_from_game", "record_from_states", "PAPER_RANKS",
    "to_paper", "from_paper", "UnfinishedRecordWarning",
]

NUM_PLAYERS = 3
PAPER_RANKS = "3456789TJQKA2SB"  # rank order in the paper's notation (S small, B big joker)
_FROM_PAPER = dict(zip(PAPER_RANKS, RANKS))  # "S" -> "B", "B" -> "R"
_TO_PAPER = dict(zip(RANKS, PAPER_RANKS))  # "B" -> "S", "R" -> "B"
_DECK = np.array([4] * 13 + [1, 1], np.int32)
_ROLE_NAMES = ("landlord", "down peasant", "up peasant")


# ----------------------------------------------------------------------------- notation
def from_paper(cards: str) -> str:
    """Paper notation -> cardjax notation (``"SB"`` -> ``"BR"``); raises on an unknown character."""
    out = []
    for ch in cards:
        if ch.isspace():
            continue
        r = _FROM_PAPER.get(ch)
        if r is None:
            raise ValueError(
                f"unknown rank character {ch!r} in {cards!r}; a record writes ranks "
                f"{' '.join(PAPER_RANKS)} (T = ten, S = small joker, B = big joker)")
        out.append(r)
    return "".join(out)


def to_paper(cards: str) -> str:
    """cardjax notation -> paper notation (``"BR"`` -> ``"SB"``), order kept."""
    try:
        return "".join(_TO_PAPER[ch] for ch in cards)
    except KeyError as e:
        raise ValueError(f"unknown cardjax rank character {e.args[0]!r} in {cards!r}") from None


def _raw_counts(cards: str) -> np.ndarray:
    """int32[15] counts of a cardjax string, without the per-rank limits of ``hand_counts``."""
    return np.bincount([mv.RANK_INDEX[c] for c in cards], minlength=NUM_RANKS).astype(np.int32)


def _counts_str(counts) -> str:
    return "".join(RANKS[r] * int(k) for r, k in enumerate(np.asarray(counts)))


def _canonical_cards(cards, what: str) -> str:
    """A cardjax card string (any order) or rank counts (15,) -> sorted cardjax string."""
    if isinstance(cards, str):
        return _counts_str(mv.hand_counts(cards))
    arr = np.asarray(cards)
    if arr.shape != (NUM_RANKS,) or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{what} must be a card string or rank counts of shape (15,), "
                         f"got {cards!r}")
    return mv.counts_to_str(arr)


# ----------------------------------------------------------------------------- the record
class UnfinishedRecordWarning(UserWarning):
    """A record whose moves stop before any hand is empty: kept as written (published records do
    stop where the result is decided), but flagged, since it is not a whole game."""


@dataclasses.dataclass(frozen=True)
class Record:
    """One Dou Dizhu game: the deal and the moves (passes implicit), in cardjax notation.

    ``hands``: the three hands *by seat* as they were dealt (17 cards each; the landlord's without
    the bottom), as sorted rank strings (counts (15,) are accepted and converted).  ``bottom``: the
    3 bottom cards.  ``landlord``: the landlord's seat.  ``moves``: ``(seat, cards)`` for every
    non-pass move in order (cards sorted, e.g. ``(1, "3AAA")``).  ``metadata``: free ``str -> str``.

    Equality compares these fields only (not where a parsed record came from, nor ``finished``:
    True or False once a parse with checking has replayed the moves, else None).
    """

    hands: tuple[str, str, str]
    bottom: str
    landlord: int = 0
    moves: tuple[tuple[int, str], ...] = ()
    metadata: dict = dataclasses.field(default_factory=dict)
    # (line, token as written) per move, and the line of ``Cards:``; empty unless parsed.
    source: tuple = dataclasses.field(default=(), compare=False, repr=False)
    cards_line: int = dataclasses.field(default=0, compare=False, repr=False)
    # Whether the moves reach the end of the game (a hand emptied): set when a record is parsed
    # with checking, None where nobody replayed it.
    finished: bool | None = dataclasses.field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if isinstance(self.hands, str) or len(self.hands) != NUM_PLAYERS:
            raise ValueError(f"a record needs three hands, got {self.hands!r}")
        hands = tuple(_canonical_cards(h, f"hand of seat {s}") for s, h in enumerate(self.hands))
        bottom = _canonical_cards(self.bottom, "bottom")
        landlord = self.landlord
        if isinstance(landlord, (bool, np.bool_)) or not isinstance(landlord, (int, np.integer)) \
                or not 0 <= int(landlord) < NUM_PLAYERS:
            raise ValueError(f"landlord must be a seat 0..2, got {landlord!r}")
        landlord = int(landlord)
        moves = []
        for i, m in enumerate(self.moves):
            try:
                seat, cards = m
            except (TypeError, ValueError):
                raise ValueError(f"move {i + 1}: a move is (seat, cards), got {m!r}") from None
            if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) \
                    or not 0 <= int(seat) < NUM_PLAYERS:
                raise ValueError(f"move {i + 1}: seat must be 0..2, got {seat!r}")
            a = action_index(cards)
            if a == PASS:
                raise ValueError(f"move {i + 1}: passes are not recorded (they are implicit)")
            moves.append((int(seat), action_string(a)))
        meta = {}
        for k, v in dict(self.metadata).items():
            k, v = str(k), str(v)
            if not k.strip() or ":" in k or "#" in k or k != k.strip() or "\n" in k + v \
                    or v != v.strip():
                raise ValueError(f"bad metadata entry {k!r}: {v!r} (one line, key without ':' "
                                 "or '#', no surrounding spaces)")
            if k == "landlord":
                raise ValueError("'landlord' is not a metadata key: use Record.landlord")
            meta[k] = v
        set_ = object.__setattr__
        set_(self, "hands", hands)
        set_(self, "bottom", bottom)
        set_(self, "landlord", landlord)
        set_(self, "moves", tuple(moves))
        set_(self, "metadata", meta)
        _check_deal(hands, bottom, landlord)

    def hand_counts(self) -> np.ndarray:
        """int32[3, 15]: the dealt hands by seat (the landlord's without the bottom)."""
        return np.stack([mv.hand_counts(h) for h in self.hands])

    def role(self, seat: int) -> int:
        """The record's role number of ``seat``: 0 landlord, 1 Down Peasant, 2 Up Peasant."""
        return (int(seat) - self.landlord) % NUM_PLAYERS

    def seat(self, role: int) -> int:
        return (self.landlord + int(role)) % NUM_PLAYERS


def _check_deal(hands: Sequence[str], bottom: str, landlord: int) -> None:
    sizes = [len(h) for h in hands]
    if sizes != [17, 17, 17] or len(bottom) != 3:
        raise ValueError(
            f"the deal must be 17 cards per hand and 3 bottom cards, got hands of {sizes} "
            f"(landlord, down, up: {[sizes[(landlord + r) % 3] for r in range(3)]}) and "
            f"{len(bottom)} bottom cards")
    total = sum(_raw_counts(h) for h in hands) + _raw_counts(bottom)
    if not np.array_equal(total, _DECK):
        wrong = [f"{_TO_PAPER[RANKS[r]]} x{int(total[r])}" for r in np.flatnonzero(total != _DECK)]
        raise ValueError("the deal must hold each of the 54 cards once (4 of each rank 3..2, one "
                         "S, one B); wrong counts: " + ", ".join(wrong))


# ----------------------------------------------------------------------------- replaying
_STEPS: dict = {}


def _default_env():
    if "env" not in _STEPS:
        _STEPS["env"] = DouDizhu()
    return _STEPS["env"]


def _jitted_step(env):
    key = (type(env).__name__, repr(env))
    if key not in _STEPS:
        _STEPS[key] = jax.jit(env.step)
    return _STEPS[key]


def _jitted_init(env):
    """``init_from_deal`` under ``jit`` (the deal is checked by :class:`Record` beforehand)."""
    key = ("init", type(env).__name__, repr(env))
    if key not in _STEPS:
        _STEPS[key] = jax.jit(lambda hands, bottom, landlord:
                              env.init_from_deal(hands, bottom, landlord=landlord))
    return _STEPS[key]


# A state's legal mask under jit: the ``legal_action_mask`` property builds the packed legal
# words operation by operation when called outside jit (about 25 ms a state on a CPU, most of
# a record's replay); jitted, one compile per state layout, then microseconds.
_legal_mask = jax.jit(lambda state: state.legal_action_mask)


def _env_and_step(env, step, bidding_ok=False):
    env = _default_env() if env is None else getattr(env, "env", env)  # unwrap CheckedEnv
    if getattr(env, "name", None) != "doudizhu":
        raise ValueError(f"records are Dou Dizhu games; got env {env!r}")
    if env.bidding and not bidding_ok:
        raise ValueError("replay needs a Dou Dizhu env without bidding (a record starts after the "
                         "auction); e.g. cardjax.make('doudizhu')")
    return env, (step if step is not None else _jitted_step(env))


def _replay(record: Record, env=None, step=None):
    env, step = _env_and_step(env, step)
    parsed = bool(record.source) and len(record.source) == len(record.moves)
    show = to_paper if parsed else (lambda s: s)

    def where(k):
        if parsed:
            line, token = record.source[k]
            return f"line {line}: move {k + 1} {token!r}"
        seat, cards = record.moves[k]
        return f"move {k + 1} (seat {seat}: {cards})"

    state = _jitted_init(env)(record.hand_counts().astype(np.int8),
                              mv.hand_counts(record.bottom).astype(np.int8),
                              jnp.int32(record.landlord))
    states, actions = [state], []
    ended_at = None

    def play(state, a):
        states.append(step(state, jnp.int32(a)))
        actions.append(int(a))
        return states[-1]

    for k, (seat, cards) in enumerate(record.moves):
        if ended_at is not None:
            raise ValueError(f"{where(k)}: the game already ended with move {ended_at + 1} (seat "
                             f"{record.moves[ended_at][0]} emptied its hand); no move may follow")
        while int(state.current_player) != seat:
            if not bool(_legal_mask(state)[PASS]):
                cur = int(state.current_player)
                raise ValueError(
                    f"{where(k)}: wrong seat order: seat {cur} ({_ROLE_NAMES[record.role(cur)]}) "
                    f"is to lead and may not pass, so seat {seat} cannot play next")
            state = play(state, PASS)
        a = action_index(cards)
        if not bool(_legal_mask(state)[a]):
            held = np.asarray(env.hand(state, seat))
            if np.any(COUNTS[a] > held):
                reason = (f"seat {seat} does not hold {show(cards)} (holds "
                          f"{show(_counts_str(held))})")
            elif int(state.to_beat) >= 0:
                reason = (f"{show(cards)} does not beat {show(action_string(int(state.to_beat)))} "
                          f"(played by seat {int(state.to_beat_seat)})")
            else:
                reason = f"{show(cards)} is not a legal lead"
            raise ValueError(f"{where(k)}: illegal move: {reason}")
        state = play(state, a)
        if bool(state.terminated):
            ended_at = k
    return states, actions


def replay(record: Record, env=None, step=None) -> list:
    """Every state of the game: the deal, then the state after each action, passes included.

    ``env``: a Dou Dizhu env without bidding (default ``cardjax.make("doudizhu")``; its reward
    options apply).  ``step``: a jitted ``env.step`` to reuse (default: one cached per env
    options).  Each move is checked against the state's legal mask; a bad one raises
    ``ValueError`` (with the line number for a parsed record).  A record may stop before the end
    of the game: the last state is then not terminated.
    """
    return _replay(record, env, step)[0]


def replay_actions(record: Record, env=None, step=None) -> tuple[list, list[int]]:
    """``(states, actions)``: :func:`replay`'s states and the action ids between them."""
    return _replay(record, env, step)


# ----------------------------------------------------------------------------- from cardjax games
def _unbatched(state, what):
    if np.ndim(state.current_player) != 0:
        raise ValueError(f"{what} must be one game, not a batch (index the batch first)")


def _deal_of(state):
    """(hands by seat without the bottom, bottom, landlord or -1 during the auction)."""
    _unbatched(state, "the initial state")
    s = jax.device_get(state)
    if int(s.step_count) != 0 or np.any(np.asarray(s.played)):
        raise ValueError("the initial state must be a fresh deal (step_count 0)")
    hands = np.asarray(s._hands).astype(np.int32)
    if bool(s.bidding):
        return hands, np.asarray(s._bottom).astype(np.int32), -1
    landlord = int(s.landlord)
    bottom = np.asarray(s.bottom).astype(np.int32)
    if bottom.sum() != 3:
        raise ValueError("the deal's bottom cards are unknown (init_from_deal without bottom): a "
                         "record needs them; deal with init or init_from_deal(hands, bottom)")
    hands[landlord] -= bottom
    return hands, bottom, landlord


def record_from_game(initial_state, actions, env=None, step=None, metadata=None) -> Record:
    """The record of a game played from ``initial_state`` (a fresh deal) with ``actions`` (ids).

    Each action must be legal (``ValueError`` otherwise); actions after the end of the game are
    ignored, as stepping a finished game does nothing (so an arena's fixed-length action arrays can
    be passed as they are).  With a bidding env (default: chosen from the mask's length) the bids
    are played but not recorded: the record starts after the auction.
    """
    _unbatched(initial_state, "initial_state")
    bidding = initial_state.num_actions > mv.NUM_ACTIONS  # the mask's length
    if env is None:
        env = DouDizhu(bidding=True) if bidding else _default_env()
    env, step = _env_and_step(env, step, bidding_ok=True)
    hands, bottom, landlord = _deal_of(initial_state)
    state, moves = initial_state, []
    for k, a in enumerate(np.asarray(actions, np.int64).reshape(-1).tolist()):
        if bool(state.terminated):
            break
        mask = np.asarray(_legal_mask(state))
        if not 0 <= a < mask.shape[0] or not mask[a]:
            what = env.action_to_str(a) if 0 <= a < mask.shape[0] else "out of range"
            raise ValueError(f"action {k} ({a}: {what}) is illegal for seat "
                             f"{int(state.current_player)}")
        if not bool(state.bidding) and a != PASS:
            moves.append((int(state.current_player), action_string(a)))
        state = step(state, jnp.int32(a))
    if landlord < 0:
        landlord = int(state.landlord)
        if landlord < 0:
            raise ValueError("the auction did not choose a landlord (void deal or unfinished)")
    return Record(hands=tuple(hands), bottom=bottom, landlord=landlord, moves=tuple(moves),
                  metadata=dict(metadata or {}))


def record_from_states(states, metadata=None) -> Record:
    """The record of a game given as its states: a list (the deal first) or a pytree stacked on a
    leading axis (e.g. ``replay``'s or a scan's states with the initial state prepended).

    Each move is read from the next state's ``history``; consecutive states must be one step
    apart.  States after the game ended are ignored; an illegal action (the env's penalty ending)
    raises ``ValueError``; bids are not recorded.
    """
    if not isinstance(states, (list, tuple)):
        n = np.shape(states.current_player)
        if len(n) != 1:
            raise ValueError("stacked states must have one leading (time) axis")
        host = jax.device_get(states)
        states = [jax.tree_util.tree_map(lambda x, i=i: x[i], host) for i in range(n[0])]
    else:
        states = [jax.device_get(s) for s in states]
    if not states:
        raise ValueError("no states")
    hands, bottom, landlord = _deal_of(states[0])
    moves = []
    for k in range(1, len(states)):
        prev, nxt = states[k - 1], states[k]
        _unbatched(nxt, f"state {k}")
        if bool(prev.terminated):
            break
        if int(nxt.step_count) != int(prev.step_count) + 1:
            raise ValueError(f"states {k - 1} and {k} are not one step apart (step_count "
                             f"{int(prev.step_count)} -> {int(nxt.step_count)})")
        if bool(prev.bidding):
            continue
        a, seat = int(nxt.history[-1]), int(nxt.history_seat[-1])
        if (np.array_equal(nxt.history, prev.history) or seat != int(prev.current_player)
                or not bool(np.asarray(_legal_mask(prev))[a])):
            raise ValueError(f"state {k}: the action taken at state {k - 1} was illegal (the game "
                             "ended with the env's penalty)")
        if a != PASS:
            moves.append((seat, action_string(a)))
    if landlord < 0:
        landlord = int(states[-1].landlord)
        if landlord < 0:
            raise ValueError("the auction did not choose a landlord (void deal or unfinished)")
    return Record(hands=tuple(hands), bottom=bottom, landlord=landlord, moves=tuple(moves),
                  metadata=dict(metadata or {}))
