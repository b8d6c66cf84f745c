"""Cards and moves as people write them, for the tables: one card, a hand by suit, a rank string
in groups, a long list cut short."""

from __future__ import annotations

import itertools

import numpy as np

from cardjax import cards

MAX_LISTED = 40


def show(card: int) -> str:
    """``Q♠``, ``10♥``: rank then suit symbol, as people write cards."""
    return cards.RANKS[card % 13] + cards.SUIT_SYMBOLS[card // 13]


def show_hand(mask) -> str:
    """A hand by suit, high cards first: ``♠ A Q 3   ♥ 10 9  ...``."""
    mask = np.asarray(mask, bool)
    parts = []
    for suit in range(4):
        held = [cards.RANKS[r] for r in range(12, -1, -1) if mask[13 * suit + r]]
        if held:
            parts.append(cards.SUIT_SYMBOLS[suit] + " " + " ".join(held))
    return "   ".join(parts) or "(empty)"


def grouped(ranks: str) -> str:
    """``"3334456"`` -> ``"333 44 5 6"``: a rank string, one group a rank."""
    return " ".join("".join(g) for _, g in itertools.groupby(ranks)) or "(empty)"


def listing(items, sep: str = " ", limit: int = MAX_LISTED) -> str:
    """``items`` joined; past ``limit`` the first ones and "... and N more"."""
    items = list(items)
    if len(items) <= limit:
        return sep.join(items)
    return sep.join(items[:limit]) + f" ... and {len(items) - limit} more"
