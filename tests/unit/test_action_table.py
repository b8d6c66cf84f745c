"""The DMC action table as a lookup (``cardjax.nets.dmc.action_table``): its rows are those of
the whole table built row by row, inside and outside a program."""

import jax
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from cardjax.nets.dmc.action_table import ActionTable, device_table, with_flags


def appended(table: np.ndarray, codes: int) -> np.ndarray:
    """The whole table with a flag block, built copy by copy (how the table was built before
    it was a lookup)."""
    rows, cols = table.shape
    out = np.zeros((codes * rows, cols + codes - 1), table.dtype)
    for code in range(codes):
        out[code * rows:(code + 1) * rows, :cols] = table
        if code:
            out[code * rows:(code + 1) * rows, cols + code - 1] = 1
    return out


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 9), cols=st.integers(1, 20),
       flags=st.lists(st.integers(2, 6), max_size=3), seed=st.integers(0, 2**31 - 1))
def test_rows_are_the_whole_tables(rows, cols, flags, seed):
    rng = np.random.default_rng(seed)
    base = rng.random((rows, cols)) < 0.3
    whole, table = base, base
    for codes in flags:
        whole, table = appended(whole, codes), with_flags(table, codes)
    assert isinstance(table, ActionTable) or not flags
    assert np.asarray(table).shape == whole.shape == table.shape
    np.testing.assert_array_equal(np.asarray(table), whole)
    picks = rng.integers(0, whole.shape[0], (3, 7))
    np.testing.assert_array_equal(np.asarray(device_table(table)[picks]), whole[picks])


def test_a_program_reads_the_same_rows_and_keeps_the_bits_small():
    """Tractor's flags on a base of bits: under jit the rows are the whole table's, and the
    program carries the base packed (8 entries a byte), never the whole table."""
    rng = np.random.default_rng(0)
    base = rng.random((300, 95)) < 0.2
    table = with_flags(with_flags(base, 6), 2)
    whole = appended(appended(base, 6), 2)
    picks = rng.integers(0, whole.shape[0], (4, 66))
    look = jax.jit(lambda r: table[r])
    np.testing.assert_array_equal(np.asarray(look(picks)), whole[picks])
    assert look(picks).dtype == np.bool_
    text = look.lower(picks).as_text()
    assert "tensor<300x12xui8>" in text and f"{whole.shape[0]}x" not in text


def test_bad_tables_are_refused():
    with pytest.raises(ValueError, match="2-d base"):
        ActionTable(np.zeros(3, bool))
    with pytest.raises(ValueError, match="2 or more codes"):
        ActionTable(np.zeros((3, 2), bool), (1,))
