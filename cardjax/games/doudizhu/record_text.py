"""Reading and writing Dou Dizhu game records as text (the DeepRocket paper's format).

``parse_record(s)`` reads leniently (layout as in the paper's examples) and, unless
``check=False``, replays each record through the env so that an illegal move raises
``ValueError`` naming the line and the move; ``format_record(s)`` writes the appendix's layout.
The text is in the paper's notation (jokers ``S``/``B``), a :class:`Record` in cardjax's
(``B``/``R``).  The format, the reading rules and cardjax's ``#`` lines: docs/games.md,
"Game records".
"""

from __future__ import annotations

import re
import warnings
from typing import Iterable, Iterator

import numpy as np

from cardjax.games.doudizhu import moves as mv
from cardjax.games.doudizhu.moves import (
    COUNTS, LENGTH, MAIN_RANK, NUM_RANKS, TYPE, action_index, action_string,
)
from cardjax.games.doudizhu.records import (
    NUM_PLAYERS, Record, UnfinishedRecordWarning, _DECK, _check_deal, _counts_str, _raw_counts, from_paper, replay_actions,
    to_paper,
)

__all__ = ["iter_records", "parse_record", "parse_records", "format_record", "format_records"]

_CARDS_RE = re.compile(r"^\s*cards\s*:(.*)$", re.IGNORECASE)
_PROCESS_RE = re.compile(r"^\s*game\s*process\s*:(.*)$", re.IGNORECASE)
_SPLIT_PROCESS_RE = re.compile(r"game\s*process\s*:", re.IGNORECASE)
_META_RE = re.compile(r"^\s*#\s*([^:#]*[^:#\s])\s*:\s*(.*?)\s*$")


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


def _lines_of(source):
    if isinstance(source, str):
        return iter(source.splitlines())
    return (str(x).rstrip("\r\n") for x in source)


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
        states, _ = replay_actions(record, env, step)
        finished = bool(states[-1].terminated)
        object.__setattr__(record, "finished", finished)
        if not finished:
            last = f"line {source[-1][0]}" if source else f"line {cards_line}"
            warnings.warn(UnfinishedRecordWarning(
                f"record at line {cards_line}: the game process stops ({last}) after "
                f"{len(moves)} moves with every hand still holding cards: an unfinished game "
                "(Record.finished is False)"), stacklevel=3)
    return record


def _blocks(lines):
    """The record blocks of the lines, each as soon as the next one starts (a generator: a file
    is read as it is consumed); raises on lines outside any record."""
    cur, pending_meta = None, []
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
            if cur is not None:
                yield cur
            cur = None
            pending_meta.append((i, m.group(1), m.group(2)))
            continue
        mc, mp = _CARDS_RE.match(text), _PROCESS_RE.match(text)
        if mc:
            if cur is not None and cur["process"] is None:
                raise _err(cur["cards_line"], "the record has no 'Game process:' line after "
                                              "'Cards:'")
            if cur is not None:
                yield cur
            rest = mc.group(1)
            split = _SPLIT_PROCESS_RE.split(rest, maxsplit=1)
            cur = {"meta": pending_meta, "cards_line": i, "cards": split[0], "process": None}
            if len(split) == 2:
                cur["process"] = [(i, split[1])]
            pending_meta = []
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
    if cur is not None:
        yield cur


def iter_records(source: str | Iterable[str], check: bool = True, env=None,
                 step=None) -> Iterator[Record]:
    """The records of a text or of an iterable of lines (an open file), one at a time: a file
    is read as the records are consumed, never whole.  An error in a later record is raised when
    that record is reached (the ones before it have been given)."""
    for b in _blocks(_lines_of(source)):
        yield _build(b, check, env, step)


def parse_records(source: str | Iterable[str], check: bool = True, env=None,
                  step=None) -> list[Record]:
    """All records of a text or of an iterable of lines (an open file).

    ``check``: replay every record through the env (``env`` defaults to ``make("doudizhu")``;
    ``step`` a jitted ``env.step`` to reuse), so that an illegal move raises here.
    """
    return list(iter_records(source, check, env, step))


def parse_record(source: str | Iterable[str], check: bool = True, env=None,
                 step=None) -> Record:
    """The one record of ``source`` (see :func:`parse_records`)."""
    blocks = list(_blocks(_lines_of(source)))
    if len(blocks) != 1:
        if not blocks:
            raise ValueError("no record: expected a 'Cards:' line and a 'Game process:' line")
        raise _err(blocks[1]["cards_line"], f"expected one record, found {len(blocks)} "
                                            "(use parse_records)")
    return _build(blocks[0], check, env, step)


# ----------------------------------------------------------------------------- writing
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

