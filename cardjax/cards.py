"""Deck conventions shared by the games: card strings <-> indices and pretty printing.

A 52-card deck is indexed ``i = 13 * suit + rank`` with suits S, H, D, C (0..3) and ranks
2, 3, ..., 10, J, Q, K, A (0..12).  A card string is the suit letter followed by the rank:
``S2`` ... ``S10`` ``SJ`` ``SQ`` ``SK`` ``SA``.  Parsing also accepts ``T`` for ten, lower case,
and the suit symbols ``♠♥♦♣`` in front of or behind the rank (``♠Q``, ``Q♠``).
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

SUITS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
NUM_CARDS = 52

_RANK_ALIASES = {r: i for i, r in enumerate(RANKS)}
_RANK_ALIASES["T"] = 8
_SUIT_ALIASES = {s: i for i, s in enumerate(SUITS)}
_SUIT_ALIASES.update({s: i for i, s in enumerate(SUIT_SYMBOLS)})


def card_index(text: str) -> int:
    """Index of one card string, e.g. ``card_index("SQ") == 10``.

    Raises ``ValueError`` naming the string when it is not a card.
    """
    if not isinstance(text, str):
        raise ValueError(f"a card must be a string like 'SQ' or 'H10', got {text!r}")
    s = text.strip().upper()
    for suit_text, rank_text in ((s[:1], s[1:]), (s[-1:], s[:-1])):
        if suit_text in _SUIT_ALIASES and rank_text in _RANK_ALIASES:
            return 13 * _SUIT_ALIASES[suit_text] + _RANK_ALIASES[rank_text]
    raise ValueError(
        f"unknown card {text!r}: expected a suit letter (S, H, D, C) and a rank "
        f"(2-10 or T, J, Q, K, A), e.g. 'SQ', 'H10', 'DJ'"
    )


def card_str(index: int) -> str:
    """String of one card index, e.g. ``card_str(10) == "SQ"``."""
    index = int(index)
    if not 0 <= index < NUM_CARDS:
        raise ValueError(f"card index must be in 0..51, got {index}")
    return SUITS[index // 13] + RANKS[index % 13]


def parse_cards(text: str | Iterable[str]) -> np.ndarray:
    """Card indices of a space/comma separated string (or a list of strings), in the given order.

    ``ValueError`` for anything but a string or a list of strings, for an unknown card and for a
    card named twice (one deck holds each card once)."""
    if isinstance(text, str):
        parts = text.replace(",", " ").split()
    elif isinstance(text, Iterable):
        parts = list(text)
    else:
        raise ValueError(f"cards must be a string like 'SQ DJ C10' or a list of card strings, "
                         f"got {text!r}")
    idx = np.array([card_index(p) for p in parts], dtype=np.int32)
    seen, twice = set(), []
    for i in idx.tolist():
        if i in seen:
            twice.append(card_str(i))
        seen.add(i)
    if twice:
        raise ValueError(f"card {twice[0]} is named twice in {text!r}")
    return idx


def cards_mask(text: str | Iterable[str]) -> np.ndarray:
    """bool[52] mask of the cards in ``text`` (:func:`parse_cards`'s errors)."""
    mask = np.zeros(NUM_CARDS, dtype=bool)
    mask[parse_cards(text)] = True
    return mask


def cards_str(cards: Iterable[int] | np.ndarray, sort: bool = True) -> str:
    """People's spelling of a set of cards.

    ``cards`` is either a bool[52] mask or a sequence of indices (negative entries are ignored).
    With ``sort`` the cards are grouped by suit (S, H, D, C) and written high to low.
    """
    arr = np.asarray(cards)
    if arr.dtype == bool:
        if arr.shape != (NUM_CARDS,):
            raise ValueError(f"a card mask must have shape (52,), got {arr.shape}")
        idx = np.flatnonzero(arr)
    else:
        idx = arr.reshape(-1).astype(int)
        idx = idx[idx >= 0]
    if sort:
        idx = sorted(idx, key=lambda i: (i // 13, -(i % 13)))
    return " ".join(card_str(i) for i in idx)
