"""Tractor's actions as rows of the DMC network's action table: the static and the report's
dynamic card encodings, the whole-unit leads' rows (pairs, tractors, throws) and each action's
row in a state (:func:`unit_rows`)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from cardjax.games.tractor import env as tractor
from cardjax.games.tractor import leads as tl
from cardjax.games.tractor import moves as tm


def action_table() -> np.ndarray:
    """bool[66, 88] static features of the actions: the action one-hot (66), then for the card
    actions 0..53 the suit (S H D C, joker: 5), the rank (2..A, XJ, DJ: 15) and the points
    (5; 10 or K: 2).  What is trump depends on the hand's level and trump suit, which the state
    features hold."""
    n = tractor.NUM_ACTIONS
    t = np.arange(tractor.NUM_TYPES)
    suit = np.where(t < 52, t // 13, 4)
    rank = np.where(t < 52, t % 13, 13 + (t - 52))
    table = np.zeros((n, n + 5 + 15 + 2), bool)
    table[np.arange(n), np.arange(n)] = True
    table[t, n + suit] = True
    table[t, n + 5 + rank] = True
    table[t, n + 20] = (t < 52) & (t % 13 == 3)  # 5
    table[t, n + 21] = (t < 52) & ((t % 13 == 8) | (t % 13 == 11))  # 10, K
    return table


def dynamic_action_table() -> np.ndarray:
    """bool[13 * 5 * 66, 89] features of the actions in the dynamic card encoding: row
    ``a + 66 * (5 * level + trump)`` is action ``a`` at that level and trump.  The action one-hot
    (66; a card at its place in :data:`~cardjax.games.tractor.moves.DYN`), then for the card actions their
    effective suit (the plain suits in :data:`~cardjax.games.tractor.moves.SUIT_ORDER`, trump: 5), their rank in
    it (16 orders, :data:`~cardjax.games.tractor.moves.ORD`) and their points (5; 10 or K: 2)."""
    n, nt = tractor.NUM_ACTIONS, tractor.NUM_TYPES
    t = np.arange(nt)
    table = np.zeros((13, 5, n, n + 5 + 16 + 2), bool)
    for lv in range(13):
        for tr in range(5):
            row = table[lv, tr]
            row[np.arange(nt, n), np.arange(nt, n)] = True
            row[t, tm.DYN[lv, tr]] = True
            eff = tm.EFF[lv, tr, :nt]
            slot = np.argsort(tm.SUIT_ORDER[tr])[np.minimum(eff, 3)]  # a plain suit's place
            row[t, n + np.where(eff == tm.TRUMP, 4, slot)] = True
            row[t, n + 5 + tm.ORD[lv, tr, :nt] - 3] = True
            row[t, n + 21] = tm.POINTS[:nt] == 5
            row[t, n + 22] = tm.POINTS[:nt] == 10
    return table.reshape(13 * 5 * n, -1)


UNIT_FLAGS = 4  # a pair; a tractor of 2, 3, 4 or more pairs
UNIT_ROWS = tractor.NUM_ACTIONS + tractor.NUM_TYPES * UNIT_FLAGS  # an action table's rows, units
THROW_FLAGS = 2  # the boss cards of a suit; the whole suit


def unit_row_count(throws: bool = False) -> int:
    """Rows per context of :func:`with_units`'s table."""
    return UNIT_ROWS + (tl.NUM_THROWS if throws else 0)


def with_units(table: np.ndarray, contexts: int = 1, throws: bool = False) -> np.ndarray:
    """``table`` [contexts * 66, G] -> [contexts * UNIT_ROWS, G + 4]: per context, the 66 rows,
    then a pair of each card type (its card's row, flag 0), then a tractor topped by each type of
    2, 3 and 4 or more pairs (its top card's row, flag 1, 2 or 3).  With ``throws``, two more
    flags (a throw of a suit's boss cards; of a whole suit) and ten more rows per context: the
    two throws in each suit's place, the suit column of the table's card rows (``table``'s
    column 66 + place: the dynamic encoding's plain suits in their order, then trump; the static
    one's suits, the jokers' column for trump)."""
    n, nt = tractor.NUM_ACTIONS, tractor.NUM_TYPES
    base = table.reshape(contexts, n, table.shape[1])
    rows_per = unit_row_count(throws)
    flags = UNIT_FLAGS + (THROW_FLAGS if throws else 0)
    out = np.zeros((contexts, rows_per, table.shape[1] + flags), table.dtype)
    out[:, :n, :table.shape[1]] = base
    for flag in range(UNIT_FLAGS):
        rows = slice(n + nt * flag, n + nt * (flag + 1))
        out[:, rows, :table.shape[1]] = base[:, :nt]
        out[:, rows, table.shape[1] + flag] = 1
    if throws:
        for kind in range(THROW_FLAGS):
            for place in range(5):
                row = UNIT_ROWS + 5 * kind + place
                out[:, row, n + place] = 1
                out[:, row, table.shape[1] + UNIT_FLAGS + kind] = 1
    return out.reshape(contexts * rows_per, -1)


def throw_places(state, dynamic: bool):
    """int32[5]: each effective suit's place among the throw rows of :func:`with_units` (the
    dynamic encoding's order of the plain suits, then trump; or the suits as they are)."""
    e = jnp.arange(5)
    if not dynamic:
        return e
    order = jnp.asarray(np.argsort(tm.SUIT_ORDER, axis=1))[state.trump]  # suit -> place
    return jnp.where(e == tm.TRUMP, 4, order[jnp.minimum(e, 3)]).astype(jnp.int32)


def unit_rows(state, throws: bool = False, dynamic: bool = False):
    """int32[num_actions]: each action of the whole-unit view (``throws``: with its throws) its
    row of :func:`with_units`'s table (in one context)."""
    a = jnp.arange(tl.NUM_ACTIONS)
    top = tl.unit_tops(state)
    flag = jnp.clip(jnp.asarray(tl.UNIT_PAIRS), 2, 4) - 1  # tractors: 1, 2, 3
    flag = jnp.where(a < tl.TRACTOR0, 0, flag)
    rows = jnp.where(a < tl.PAIR0, a, tractor.NUM_ACTIONS + tractor.NUM_TYPES * flag + top)
    if not throws:
        return rows
    places = throw_places(state, dynamic)
    return jnp.concatenate([rows, UNIT_ROWS + places, UNIT_ROWS + 5 + places])


def pad_actions(x, n: int):
    """``x`` [66] padded with zeros (False) to ``n`` actions."""
    return jnp.concatenate([x, jnp.zeros(n - x.shape[0], x.dtype)])
