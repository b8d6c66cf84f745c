"""Dou Dizhu game records in the DeepRocket text format (papers/001, appendix A).

The format
----------
A record has two parts, ``Cards`` and ``Game process`` (the paper's example, section 4.2 and
appendix A table 6; the game process wraps here, :func:`format_record` writes it on one line)::

    Cards: 4456777889JKKAA2B;335567899TTJJKAA2;4456689TTJQQQK22S;33Q;
    Game process: 0,33;1,55;2,66;0,77;1,AA;1,6;2,T;0,J;1,K;0,2;2,S;2,44;0,KK;2,22;2,89TJQK;
    2,QQ;0,AA;0,56789;1,789TJ;1,3;2,5;

Here the landlord (role 0) holds ``4456777889JKKAA2B`` plus the bottom ``33Q`` (the big joker
``B``), leads ``33``; the Down Peasant answers ``55``, the Up Peasant ``66``, ... and the Up
Peasant goes out with its last card, ``5``: the peasants win.

* ``Cards``: four parts separated by ``;`` (a final ``;`` is optional): the landlord's 17 cards,
  the Down Peasant's 17 (the seat that plays after the landlord), the Up Peasant's 17 (the seat that
  plays before the landlord) and the 3 bottom ("public") cards, which the landlord takes.  Together
  they are the 54 cards, each once.
* ``Game process``: the moves, ``role,cards`` separated by ``;`` (a final ``;`` is optional);
  role ``0`` = landlord, ``1`` = Down Peasant, ``2`` = Up Peasant.  **Passes are not written**: the
  seats between two recorded moves passed (``0,33;0,44`` = the landlord played ``33``, both
  peasants passed, the landlord led ``44``).  Any order of roles can be filled with passes except
  one that makes a leader pass: the first move must be the landlord's (wrong seat order).
* Cards are written as rank characters, suits ignored; a move's cards in any order.

Rank characters (paper -> cardjax): ``3 4 5 6 7 8 9 T J Q K A 2`` are the same in both;
the jokers differ:

==============  ===========  ============
joker           paper        cardjax
==============  ===========  ============
small (black)   ``S``        ``B``
big (red)       ``B``        ``R``
==============  ===========  ============

So ``B`` means the *big* joker in a record and the *small* one in cardjax; the rocket is ``SB`` in
a record and ``BR`` in cardjax.  Every string inside :class:`Record` (hands, bottom, moves) is in
cardjax notation; the conversion happens only in :func:`parse_record` / :func:`format_record`.

Reading is lenient about layout, as the paper's own examples vary: spaces after ``:``, ``;`` and
``,`` are ignored, the labels are case-insensitive, ``Game process:`` may follow the cards on the
same line, and the game process may wrap over several lines (every following line that starts
with neither a label nor ``#`` continues it).  Blank lines are ignored; each ``Cards:`` line starts
a new record.

Writing (:func:`format_record`) uses one layout, the appendix's: ``Cards: ...;`` and
``Game process: ...;`` on two lines, each ending with ``;``, hands and bottom sorted by rank, and
each move written as the paper does, its main group first and then its kickers, each in rank
order (``AAA3``, ``4445553366``, ``SB``).

cardjax extensions (written only when needed):

* ``# key: value`` lines before ``Cards:`` are the record's metadata (:attr:`Record.metadata`).
* ``# landlord: N`` gives the cardjax seat of the landlord when it is not seat 0.  The record's
  roles and hand order stay the paper's (landlord first); seat = (landlord + role) mod 3.

Seats and roles: in cardjax seats ``0, 1, 2`` play in that order and the landlord is
``Record.landlord`` (0 unless bidding or ``init_from_deal(..., landlord=...)`` chose another), so
the Down Peasant is seat ``landlord + 1`` and the Up Peasant ``landlord + 2`` (mod 3).
:class:`Record` keeps hands and moves by *seat*; with landlord 0 seat = role.

Checking
--------
:func:`parse_record` checks the text (labels, parts, ranks, the deal) and, unless ``check=False``,
replays the moves with the env: each move must be in the env's legal mask at its turn (so the
rules live only in :mod:`cardjax.games.doudizhu`).  Any problem raises ``ValueError`` naming the
1-based line of the input and the move as written, e.g.::

    line 2: move 5 '1,KK': illegal move: seat 1 does not hold KK (holds 3367899TTJJKAA2)

Example::

    >>> import cardjax.games.doudizhu_records as rec
    >>> r = rec.parse_record(text)
    >>> states = rec.replay(r)                    # deal, then one state per action (passes too)
    >>> rec.format_record(r) == rec.format_record(rec.parse_record(rec.format_record(r)))
    True
    >>> rec.record_from_game(first_state, actions)   # any cardjax Dou Dizhu game as a record
"""

from __future__ import annotations

import dataclasses
import re
from typing import Iterable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from cardjax.games import doudizhu_moves as mv
from cardjax.games.doudizhu_moves import (
    COUNTS, LENGTH, MAIN_RANK, NUM_RANKS, PASS, RANKS, TYPE, action_index, action_string,
)

__all__ = [
    "Record", "parse_record", "parse_records", "format_record", "format_records", "replay",
    "replay_actions", "record_from_game", "record_from_states", "PAPER_RANKS", "to_paper",
    "from_paper",
]

NUM_PLAYERS = 3
PAPER_RANKS = "3456789TJQKA2SB"  # rank order in the paper's notation (S small, B big joker)
_FROM_PAPER = dict(zip(PAPER_RANKS, RANKS))  # "S" -> "B", "B" -> "R"
_TO_PAPER = dict(zip(RANKS, PAPER_RANKS))  # "B" -> "S", "R" -> "B"
_DECK = np.array([4] * 13 + [1, 1], np.int32)
_ROLE_NAMES = ("landlord", "down peasant", "up peasant")
_CARDS_RE = re.compile(r"^\s*cards\s*:(.*)$", re.IGNORECASE)
_PROCESS_RE = re.compile(r"^\s*game\s*process\s*:(.*)$", re.IGNORECASE)
_SPLIT_PROCESS_RE = re.compile(r"game\s*process\s*:", re.IGNORECASE)
_META_RE = re.compile(r"^\s*#\s*([^:#]*[^:#\s])\s*:\s*(.*?)\s*$")


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


def _paper_move(action: int) -> str:
    """A move in the paper's writing: main group first, then the kickers, each in rank order."""
    counts = COUNTS[action].astype(np.int32)
    t, main, n = int(TYPE[action]), int(MAIN_RANK[action]), int(LENGTH[action])
    group = np.zeros(NUM_RANKS, np.int32)
    if t in (mv.TRIO_SOLO, mv.TRIO_PAIR):
        group[main] = 3
    elif t == mv.PLANE_SOLO:
        group[main:main + n // 4] = 3
    elif t == mv.PLANE_PAIR:
        group[main:main + n // 5] = 3
    elif t in (mv.FOUR_TWO_SOLO, mv.FOUR_TWO_PAIR):
        group[main] = 4
    else:
        group = counts
    return to_paper(_counts_str(group) + _counts_str(counts - group))


# ----------------------------------------------------------------------------- the record
@dataclasses.dataclass(frozen=True)
class Record:
    """One Dou Dizhu game: the deal and the moves (passes implicit), in cardjax notation.

    ``hands``: the three hands *by seat* as they were dealt (17 cards each; the landlord's without
    the bottom), as sorted rank strings (counts (15,) are accepted and converted).  ``bottom``: the
    3 bottom cards.  ``landlord``: the landlord's seat.  ``moves``: ``(seat, cards)`` for every
    non-pass move in order (cards sorted, e.g. ``(1, "3AAA")``).  ``metadata``: free ``str -> str``.

    Equality compares these fields only (not where a parsed record came from).
    """

    hands: tuple[str, str, str]
    bottom: str
    landlord: int = 0
    moves: tuple[tuple[int, str], ...] = ()
    metadata: dict = dataclasses.field(default_factory=dict)
    # (line, token as written) per move, and the line of ``Cards:``; empty unless parsed.
    source: tuple = dataclasses.field(default=(), compare=False, repr=False)
    cards_line: int = dataclasses.field(default=0, compare=False, repr=False)

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


# ----------------------------------------------------------------------------- reading
def _err(line: int, msg: str) -> ValueError:
    return ValueError(f"line {line}: {msg}")


def _split_parts(text: str) -> list[str]:
    parts = [p.strip() for p in text.split(";")]
    if parts and parts[-1] == "":
        parts.pop()  # the final ';'
    return parts


def _parse_cards(text: str, line: int):
    parts = _split_parts(text)
    if len(parts) != 4 or not all(parts):
        raise _err(line, f"'Cards:' needs 4 non-empty parts separated by ';' (landlord, down "
                         f"peasant, up peasant, bottom), got {len(parts)}: {text.strip()!r}")
    try:
        by_role = [from_paper(p) for p in parts]
    except ValueError as e:
        raise _err(line, f"Cards: {e}") from None
    return by_role


def _parse_moves(chunks, landlord: int):
    """chunks: (line, text) of the game process -> (moves by seat, source)."""
    moves, source = [], []
    for line, text in chunks:
        for token in text.split(";"):
            token = token.strip()
            if not token:
                continue
            n = len(moves) + 1
            where = f"move {n} {token!r}"
            parts = token.split(",")
            if len(parts) != 2:
                raise _err(line, f"{where}: a move is 'role,cards' (e.g. '1,55'), moves separated "
                                 "by ';'")
            role_s, cards = parts[0].strip(), parts[1].strip()
            if not re.fullmatch(r"[0-9]+", role_s):
                raise _err(line, f"{where}: the role must be an integer 0, 1 or 2, got {role_s!r}")
            role = int(role_s)
            if role > 2:
                raise _err(line, f"{where}: the role must be 0 (landlord), 1 (down peasant) or 2 "
                                 f"(up peasant), got {role}")
            if not cards:
                raise _err(line, f"{where}: no cards (passes are not written in a record)")
            if cards.upper() == "PASS":
                raise _err(line, f"{where}: passes are not written in a record (they are implied "
                                 "by the next move's role)")
            try:
                converted = from_paper(cards)
            except ValueError as e:
                raise _err(line, f"{where}: {e}") from None
            counts = _raw_counts(converted)
            a = mv._ACTION_ID.get(_counts_str(counts)) if np.all(counts <= _DECK) else None
            if a is None:
                raise _err(line, f"{where}: {cards!r} is not a Dou Dizhu move (no type of the "
                                 "move table, RLCard's, matches these cards)")
            moves.append(((landlord + role) % NUM_PLAYERS, action_string(a)))
            source.append((line, token))
    return moves, source


def _lines_of(source) -> list[str]:
    if isinstance(source, str):
        return source.splitlines()
    return [str(x).rstrip("\r\n") for x in source]


def _build(block, check: bool, env, step) -> Record:
    """One record from its parsed block: dict with meta, cards, process chunks."""
    meta, landlord = {}, 0
    for line, key, value in block["meta"]:
        if key == "landlord":
            if not re.fullmatch(r"[0-2]", value):
                raise _err(line, f"'# landlord:' must be a seat 0, 1 or 2, got {value!r}")
            landlord = int(value)
        elif key in meta:
            raise _err(line, f"metadata key {key!r} given twice")
        else:
            meta[key] = value
    cards_line = block["cards_line"]
    if block["process"] is None:
        raise _err(cards_line, "the record has no 'Game process:' line after 'Cards:'")
    by_role = _parse_cards(block["cards"], cards_line)
    hands_by_seat = [by_role[(s - landlord) % NUM_PLAYERS] for s in range(NUM_PLAYERS)]
    try:
        _check_deal([_counts_str(_raw_counts(h)) for h in hands_by_seat],
                    _counts_str(_raw_counts(by_role[3])), landlord)
    except ValueError as e:
        raise _err(cards_line, f"Cards: {e}") from None
    moves, source = _parse_moves(block["process"], landlord)
    record = Record(hands=tuple(hands_by_seat), bottom=by_role[3], landlord=landlord,
                    moves=tuple(moves), metadata=meta, source=tuple(source),
                    cards_line=cards_line)
    if check:
        _replay(record, env, step)
    return record


def _blocks(lines: list[str]):
    """Split lines into record blocks; raises on lines outside any record."""
    blocks, cur, pending_meta = [], None, []
    for i, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text:
            continue
        if text.startswith("#"):
            m = _META_RE.match(text)
            if not m:
                raise _err(i, f"a '#' line must be metadata '# key: value', got {text!r}")
            if cur is not None and cur["process"] is None:
                raise _err(cur["cards_line"], "the record has no 'Game process:' line after "
                                              "'Cards:'")
            cur = None
            pending_meta.append((i, m.group(1), m.group(2)))
            continue
        mc, mp = _CARDS_RE.match(text), _PROCESS_RE.match(text)
        if mc:
            if cur is not None and cur["process"] is None:
                raise _err(cur["cards_line"], "the record has no 'Game process:' line after "
                                              "'Cards:'")
            rest = mc.group(1)
            split = _SPLIT_PROCESS_RE.split(rest, maxsplit=1)
            cur = {"meta": pending_meta, "cards_line": i, "cards": split[0], "process": None}
            if len(split) == 2:
                cur["process"] = [(i, split[1])]
            pending_meta = []
            blocks.append(cur)
        elif mp:
            if cur is None or cur["process"] is not None:
                raise _err(i, "'Game process:' without a 'Cards:' line before it")
            cur["process"] = [(i, mp.group(1))]
        elif cur is not None and cur["process"] is not None:
            cur["process"].append((i, text))  # a wrapped game process
        else:
            hint = ""
            if ";" in text and "," not in text:
                hint = " (the labels are required: write 'Cards: ' before the cards)"
            elif "," in text:
                hint = " (a game process needs a 'Cards:' line and a 'Game process: ' label)"
            raise _err(i, f"expected 'Cards: ...' (or '# key: value'), got {text!r}{hint}")
    if cur is not None and cur["process"] is None:
        raise _err(cur["cards_line"], "the record has no 'Game process:' line after 'Cards:'")
    if pending_meta:
        raise _err(pending_meta[-1][0], "metadata lines without a record ('Cards:') after them")
    return blocks


def parse_records(source: str | Iterable[str], check: bool = True, env=None,
                  step=None) -> list[Record]:
    """All records of a text or of an iterable of lines (an open file).

    ``check``: replay every record through the env (``env`` defaults to ``make("doudizhu")``;
    ``step`` a jitted ``env.step`` to reuse), so that an illegal move raises here.
    """
    lines = _lines_of(source)
    return [_build(b, check, env, step) for b in _blocks(lines)]


def parse_record(source: str | Iterable[str], check: bool = True, env=None,
                 step=None) -> Record:
    """The one record of ``source`` (see :func:`parse_records`)."""
    lines = _lines_of(source)
    blocks = _blocks(lines)
    if len(blocks) != 1:
        if not blocks:
            raise ValueError("no record: expected a 'Cards:' line and a 'Game process:' line")
        raise _err(blocks[1]["cards_line"], f"expected one record, found {len(blocks)} "
                                            "(use parse_records)")
    return _build(blocks[0], check, env, step)


# ----------------------------------------------------------------------------- writing
def format_record(record: Record) -> str:
    """The record's text (two lines, plus ``# ...`` lines for metadata and a landlord seat != 0)."""
    if not isinstance(record, Record):
        raise ValueError(f"format_record takes a Record, got {type(record).__name__}")
    out = []
    if record.landlord != 0:
        out.append(f"# landlord: {record.landlord}")
    out += [f"# {k}: {v}" for k, v in record.metadata.items()]
    roles = [record.hands[record.seat(r)] for r in range(NUM_PLAYERS)] + [record.bottom]
    out.append("Cards: " + "".join(to_paper(h) + ";" for h in roles))
    moves = "".join(f"{record.role(s)},{_paper_move(action_index(m))};" for s, m in record.moves)
    out.append(("Game process: " + moves).rstrip())
    return "\n".join(out)


def format_records(records: Iterable[Record]) -> str:
    """Several records, separated by blank lines, with a final newline."""
    return "".join(format_record(r) + "\n\n" for r in records).rstrip("\n") + "\n"


# ----------------------------------------------------------------------------- replaying
_STEPS: dict = {}


def _default_env():
    import cardjax

    if "env" not in _STEPS:
        _STEPS["env"] = cardjax.make("doudizhu")
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
            if not bool(state.legal_action_mask[PASS]):
                cur = int(state.current_player)
                raise ValueError(
                    f"{where(k)}: wrong seat order: seat {cur} ({_ROLE_NAMES[record.role(cur)]}) "
                    f"is to lead and may not pass, so seat {seat} cannot play next")
            state = play(state, PASS)
        a = action_index(cards)
        if not bool(state.legal_action_mask[a]):
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
    bidding = np.shape(initial_state.legal_action_mask)[-1] > mv.NUM_ACTIONS
    if env is None:
        import cardjax

        env = cardjax.make("doudizhu", bidding=True) if bidding else _default_env()
    env, step = _env_and_step(env, step, bidding_ok=True)
    hands, bottom, landlord = _deal_of(initial_state)
    state, moves = initial_state, []
    for k, a in enumerate(np.asarray(actions, np.int64).reshape(-1).tolist()):
        if bool(state.terminated):
            break
        mask = np.asarray(state.legal_action_mask)
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
                or not bool(np.asarray(prev.legal_action_mask)[a])):
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
