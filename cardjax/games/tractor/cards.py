"""Tractor card strings for people: parse and print card types (``K♠``, ``TH``, ``XJ``), count
vectors, levels and trump suits.  Plain Python and numpy, no env: :mod:`cardjax.games.tractor.env`
and the helpers build on it."""

from __future__ import annotations

import numpy as np

from cardjax.games.tractor import moves as tm

NUM_TYPES = tm.NUM_TYPES

_RANK_TEXT = {r: i for i, r in enumerate(tm.RANKS)}
_RANK_TEXT["10"] = 8
_SUIT_TEXT = {s: i for i, s in enumerate(tm.SUITS)}
_SUIT_TEXT.update({s: i for i, s in enumerate(tm.SUIT_SYMBOLS)})
_JOKERS = {"XJ": tm.XJ, "SJ": tm.XJ, "DJ": tm.DJ, "BJ": tm.DJ}


def card_type(text: str) -> int:
    """Type index of one card string: rank then suit (``K♠``, ``KS``, ``T♥``, ``10H``) or suit
    then rank (``SK``), or a joker (``XJ`` small, ``DJ`` big)."""
    if not isinstance(text, str):
        raise ValueError(f"a card must be a string like 'K♠', 'TH' or 'XJ', got {text!r}")
    s = text.strip().upper()
    if s in _JOKERS:
        return _JOKERS[s]
    for rank, suit in ((s[:-1], s[-1:]), (s[1:], s[:1])):
        if rank in _RANK_TEXT and suit in _SUIT_TEXT:
            return 13 * _SUIT_TEXT[suit] + _RANK_TEXT[rank]
    raise ValueError(
        f"unknown card {text!r}: expected a rank (2-9, T or 10, J, Q, K, A) and a suit "
        f"(S H D C or ♠♥♦♣), e.g. 'K♠', 'TH', or a joker 'XJ' (small) / 'DJ' (big)")


def type_str(t: int) -> str:
    t = int(t)
    if not 0 <= t < NUM_TYPES:
        raise ValueError(f"card type must be in 0..53, got {t}")
    if t >= 52:
        return ("XJ", "DJ")[t - 52]
    return tm.RANKS[t % 13] + tm.SUIT_SYMBOLS[t // 13]


def parse_counts(cards, what: str = "cards") -> np.ndarray:
    """int32[54] counts of a card string ("A♠ A♠ K♠"), a list of strings, or counts."""
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    arr = np.asarray(cards) if not isinstance(cards, list) else None
    if arr is not None and arr.dtype != object and np.issubdtype(arr.dtype, np.integer) \
            and arr.shape == (NUM_TYPES,):
        counts = arr.astype(np.int32)
    else:
        counts = np.zeros(NUM_TYPES, np.int32)
        for c in list(cards):
            counts[card_type(c)] += 1
    if (counts < 0).any() or (counts > 2).any():
        bad = [type_str(t) for t in np.flatnonzero((counts < 0) | (counts > 2))]
        raise ValueError(f"{what}: each card exists twice at most; too many of {', '.join(bad)}")
    return counts


def counts_str(counts, sort_key=None) -> str:
    """Card strings of a count vector, high to low within S, H, D, C, jokers last."""
    counts = np.asarray(counts).reshape(-1)[:NUM_TYPES]
    types = [t for t in range(NUM_TYPES) for _ in range(int(counts[t]))]
    types.sort(key=sort_key or (lambda t: (t // 13, -(t % 13))))
    return " ".join(type_str(t) for t in types)


def parse_level(level) -> int:
    """Rank index 0..12 of a level given as 2..14, or a rank string ('2'..'10', 'J'..'A')."""
    if isinstance(level, str):
        s = level.strip().upper()
        if s in _RANK_TEXT:
            return _RANK_TEXT[s]
        raise ValueError(f"unknown level {level!r}: expected a rank 2..10, J, Q, K or A")
    if isinstance(level, (int, np.integer)) and 2 <= int(level) <= 14:
        return int(level) - 2
    raise ValueError(f"level must be a rank 2..14 (or '2'..'A'), got {level!r}")


def parse_trump(trump) -> int:
    """0..3 for a suit (S/H/D/C or ♠♥♦♣), 4 for no trump ('NT')."""
    if isinstance(trump, str):
        s = trump.strip().upper()
        if s in ("NT", "N", "NONE"):
            return tm.NT
        if s in _SUIT_TEXT:
            return _SUIT_TEXT[s]
    raise ValueError(f"unknown trump {trump!r}: expected S, H, D, C (or ♠♥♦♣) or NT")
