"""The features of a game's actions as a lookup: rows of a base table with one-hot flag blocks
appended, which a program computes from the row number instead of carrying every row.

A game's candidates read their features from a table (``Game.action_features``): row ``r``
of a plain table is ``table[r]``.  Where the features are a base row plus flags (Tractor's
consequence codes and advice flag), the whole table is the base table repeated once per
combination of flags: Tractor's strongest setting has 151,840 rows of 99, 15 M entries, and a
program that holds them as one constant spends most of a minute compiling it (XLA converts a
boolean constant entry by entry).  :class:`ActionTable` holds the base table and the flags'
sizes and gives the same rows.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np


class ActionTable:
    """``base`` [R, G] with flag blocks of ``flags`` codes each: row ``r + R * (c1 + n1 * (c2 +
    n2 * ...))`` is ``base[r]``, then for each block the one-hot of its code ``c`` without code 0
    (``n - 1`` columns: code 0 sets none).  ``table[rows]`` (an int array, traced or not) gives
    those rows; ``np.asarray(table)`` the whole table (tests, small games)."""

    def __init__(self, base: np.ndarray, flags: tuple = ()):
        self.base = np.asarray(base)
        self.flags = tuple(int(n) for n in flags)
        if self.base.ndim != 2 or any(n < 2 for n in self.flags):
            raise ValueError(f"an ActionTable needs a 2-d base and flag blocks of 2 or more codes, "
                             f"got base {self.base.shape} and flags {self.flags}")
        self._device = None

    @property
    def shape(self) -> tuple:
        rows, cols = self.base.shape
        return (rows * math.prod(self.flags), cols + sum(n - 1 for n in self.flags))

    @property
    def dtype(self):
        return self.base.dtype

    def with_flags(self, codes: int) -> "ActionTable":
        """This table with one more flag block of ``codes`` codes (its rows follow all of
        this table's rows: row ``r + rows * code``)."""
        return ActionTable(self.base, self.flags + (codes,))

    def __getitem__(self, rows):
        if self._device is None:  # one device copy: each program refers to the same constant
            with jax.ensure_compile_time_eval():
                self._device = jnp.asarray(_packed(self.base))
        return _rows(jnp, self._device, self.flags, jnp.asarray(rows), self.base)

    def __array__(self, dtype=None, copy=None):
        table = _rows(np, self.base, self.flags, np.arange(self.shape[0]))
        return table if dtype is None else table.astype(dtype)

    def __len__(self) -> int:
        return self.shape[0]


def _packed(base: np.ndarray) -> np.ndarray:
    """A boolean table as bits, 8 to a byte: XLA reads a boolean constant entry by entry (seconds
    a million) and a byte constant as a block."""
    return np.packbits(base, axis=1) if base.dtype == bool else base


def _rows(xp, table, flags: tuple, rows, base=None):
    """The rows ``rows`` of the table of ``table`` (the base, or its :func:`_packed` bits: then
    ``base`` says its dtype and width) and ``flags``."""
    base = table if base is None else base
    n = base.shape[0]
    first = table[rows % n]
    if first.dtype != base.dtype:
        first = xp.unpackbits(first, axis=-1, count=base.shape[1]).astype(bool)
    parts, rest = [first], rows // n
    for codes in flags:
        parts.append((rest % codes)[..., None] == xp.arange(1, codes))
        rest = rest // codes
    return xp.concatenate([p.astype(base.dtype) for p in parts], axis=-1)


def with_flags(table, codes: int) -> ActionTable:
    """``table`` (a NumPy table or an :class:`ActionTable`) with a flag block of ``codes`` codes
    appended: rows ``r + rows * code`` are row ``r`` with the one-hot of ``code`` (code 0: none)."""
    if not isinstance(table, ActionTable):
        table = ActionTable(table)
    return table.with_flags(codes)


def device_table(table):
    """What a program indexes with candidate rows: an :class:`ActionTable` (a boolean NumPy
    table becomes one, so that programs carry its bits packed: Dou Dizhu's 27,472 x 60), or a
    NumPy table of numbers as one device array."""
    if isinstance(table, ActionTable):
        return table
    table = np.asarray(table)
    return ActionTable(table) if table.dtype == bool else jnp.asarray(table)
