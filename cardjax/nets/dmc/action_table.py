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

    def __getitem__(self, rows):
        base = self.base
        if self._device is None:  # one device copy: each program refers to the same constant
            with jax.ensure_compile_time_eval():
                # bits 8 to a byte: XLA reads a boolean constant entry by entry (seconds a
                # million), a byte constant as a block
                self._device = jnp.asarray(np.packbits(base, axis=1) if base.dtype == bool
                                           else base)

        def base_rows(r):
            got = self._device[r]
            if base.dtype == bool:
                got = jnp.unpackbits(got, axis=-1, count=base.shape[1]).astype(bool)
            return got

        return _rows(jnp, base_rows, base.shape[0], self.flags, jnp.asarray(rows), base.dtype)

    def __array__(self, dtype=None, copy=None):
        table = _rows(np, self.base.__getitem__, self.base.shape[0], self.flags,
                      np.arange(self.shape[0]), self.base.dtype)
        return table if dtype is None else table.astype(dtype)


def _rows(xp, base_rows, n: int, flags: tuple, rows, dtype):
    """Rows ``rows`` of a table of ``n`` base rows (``base_rows(r)``) and flag blocks ``flags``."""
    parts, rest = [base_rows(rows % n)], rows // n
    for codes in flags:
        parts.append(((rest % codes)[..., None] == xp.arange(1, codes)).astype(dtype))
        rest = rest // codes
    return xp.concatenate(parts, axis=-1)


def with_flags(table, codes: int) -> ActionTable:
    """``table`` (a NumPy table or an :class:`ActionTable`) with a flag block of ``codes`` codes
    appended: rows ``r + rows * code`` are row ``r`` (all of ``table``'s rows, then again for each
    code) with the one-hot of ``code`` (code 0: none)."""
    if not isinstance(table, ActionTable):
        table = ActionTable(table)
    return ActionTable(table.base, table.flags + (codes,))


def device_table(table):
    """What a program indexes with candidate rows: an :class:`ActionTable` (a boolean NumPy
    table becomes one, so that programs carry its bits packed: Dou Dizhu's 27,472 x 60), or a
    NumPy table of numbers as one device array."""
    if isinstance(table, ActionTable):
        return table
    table = np.asarray(table)
    return ActionTable(table) if table.dtype == bool else jnp.asarray(table)
