"""cardjax.gate: work that only some games of a batch need gives the same answers as computing
every branch for every game and selecting."""

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from cardjax.gate import either, gated, replace_rows


def _heavy(x, y):
    return jnp.sin(x) * y, jnp.sum(x)


def _light(x, y):
    return x * 0.0, jnp.float32(-1.0)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=13), st.integers(1, 4))
def test_gated_under_vmap_equals_selecting(pred, share):
    pred = np.array(pred)
    x = np.arange(pred.size * 3, dtype=np.float32).reshape(pred.size, 3)
    y = np.float32(2.0)
    got = jax.vmap(lambda p, x: gated(p, _heavy, _light, x, y, share=share))(pred, x)
    want = [np.where(pred[:, None], np.sin(x) * y, 0.0), np.where(pred, x.sum(1), -1.0)]
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6)


def test_gated_nested_vmap_flattens_to_one_batch():
    pred = np.array([[True, False, True], [False, False, True]])
    x = np.arange(18, dtype=np.float32).reshape(2, 3, 3)
    f = jax.vmap(jax.vmap(lambda p, x: gated(p, _heavy, _light, x, 1.0)[1]))
    np.testing.assert_allclose(np.asarray(f(pred, x)), np.where(pred, x.sum(-1), -1.0))


@settings(max_examples=20, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=13), st.integers(1, 5))
def test_either_runs_each_function_on_its_rows(pred, parts):
    pred = np.array(pred)
    w = jnp.float32(3.0)  # a traced value the functions close over (an agent's weights)

    @jax.jit
    def run(pred, x, w):
        return either(pred, lambda x: (x * w, jnp.sum(x, 1)), lambda x: (-x, jnp.max(x, 1)),
                      x, parts=parts)

    x = np.arange(pred.size * 2, dtype=np.float32).reshape(pred.size, 2) + 1
    got = run(pred, x, w)
    np.testing.assert_allclose(np.asarray(got[0]), np.where(pred[:, None], 3 * x, -x))
    np.testing.assert_allclose(np.asarray(got[1]), np.where(pred, x.sum(1), x.max(1)))


def test_either_never_calls_a_function_on_rows_of_the_other():
    # f fails loudly (NaN) on rows that are not its own: none may reach the output
    pred = np.array([True, False, False, True, False])
    x = np.array([1.0, -1.0, -2.0, 4.0, -3.0], np.float32)
    f = lambda x: jnp.sqrt(jnp.where(x > 0, x, jnp.nan))
    g = lambda x: jnp.sqrt(jnp.where(x < 0, -x, jnp.nan))
    got = np.asarray(jax.jit(lambda p, x: either(p, f, g, x, parts=2))(pred, x))
    np.testing.assert_allclose(got, np.sqrt(np.abs(x)))


def test_every_mode_gives_the_same_answers(monkeypatch):
    """CARDJAX_GATE=sparse / select / auto: the same results (on CPU auto is sparse)."""
    pred = np.array([True, False, False, True, True, False, False])
    x = np.arange(21, dtype=np.float32).reshape(7, 3)
    outs = []
    for m in ("auto", "sparse", "select"):
        monkeypatch.setenv("CARDJAX_GATE", m)
        g = jax.vmap(lambda p, x: gated(p, _heavy, _light, x, 2.0, share=2))(pred, x)
        e = either(pred, lambda x: (x * 2, jnp.sum(x, 1)), lambda x: (-x, jnp.max(x, 1)), x)
        outs.append([np.asarray(v) for v in (*g, *e)])
    for other in outs[1:]:
        for a, b in zip(outs[0], other):
            np.testing.assert_array_equal(a, b)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=13), st.integers(1, 5),
       st.sampled_from(["auto", "select"]))
def test_replace_rows_replaces_the_chosen_rows_alone(rows, parts, mode):
    """None, a few or most rows chosen (the gathered chunks, the whole batch at once), either
    path: the chosen rows of f's output and the others untouched (f gives NaN on them)."""
    os.environ["CARDJAX_GATE"] = mode  # hypothesis runs many examples per monkeypatch fixture
    try:
        rows = np.array(rows)
        x = (np.where(rows, 1.0, -1.0) * (np.arange(rows.size) + 1)).astype(np.float32)
        out = (np.full((rows.size, 2), 7.0, np.float32), np.zeros(rows.size, np.int32))
        f = lambda x: (jnp.stack([jnp.sqrt(x), -jnp.sqrt(x)], 1), jnp.ones(x.shape, jnp.int32))
        got = jax.jit(lambda r, x, o: replace_rows(r, f, (x,), o, parts=parts))(rows, x, out)
    finally:
        del os.environ["CARDJAX_GATE"]
    root = np.sqrt(np.where(rows, x, 1.0))
    np.testing.assert_allclose(np.asarray(got[0]),
                               np.where(rows[:, None], np.stack([root, -root], 1), 7.0))
    np.testing.assert_array_equal(np.asarray(got[1]), rows.astype(np.int32))


def _outer(x, y):  # a gate inside a gated function (Tractor's trick winner has one)
    return gated(jnp.sum(x) > 4.0, _heavy, _light, x, y)


def test_a_nested_gate_follows_the_mode_it_is_traced_under(monkeypatch):
    """The inner gate's trace under one mode is not reused under another: gathered rows loop
    (a ``while`` a sparse gate), selecting has none."""
    pred = np.array([True, False, True, True, False, True, True, True])
    x = np.arange(24, dtype=np.float32).reshape(8, 3)

    def loops():
        fn = jax.vmap(lambda p, x: gated(p, _outer, _light, x, 2.0))
        return str(jax.make_jaxpr(fn)(pred, x)).count("while[")

    monkeypatch.setenv("CARDJAX_GATE", "auto")  # on the CPU: the sparse path alone is traced
    assert loops() == 2  # the outer gate's and its inner one's
    monkeypatch.setenv("CARDJAX_GATE", "select")
    assert loops() == 0
    monkeypatch.setenv("CARDJAX_GATE", "sparse")
    assert loops() == 2
    # auto where the default backend is not the CPU: both branches, selected (traced anew: the
    # gate's functions are jitted per path)
    monkeypatch.setenv("CARDJAX_GATE", "auto")
    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")
    assert loops() == 0


def test_an_unknown_mode_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("CARDJAX_GATE", "fast")
    with pytest.raises(ValueError, match="CARDJAX_GATE='fast': expected one of auto, sparse, select"):
        jax.vmap(lambda p, x: gated(p, _heavy, _light, x, 1.0))(np.array([True]), np.ones((1, 3)))


def test_reset_finished_deals_each_finished_row_its_own_deal():
    """Row i of a finished game gets deal i of ``vmap(init)(split(key, N))``, as when every row
    was dealt and the finished ones selected; the running games are untouched."""
    import cardjax
    from cardjax.core import reset_finished

    env = cardjax.make("doudizhu")
    n = 12
    state = jax.vmap(env.init)(jax.random.split(jax.random.key(3), n))
    key = jax.random.key(4)
    fresh = jax.vmap(env.init)(jax.random.split(key, n))
    reset = jax.jit(lambda s, k: reset_finished(s, env.init, k))
    for done in (np.zeros(n, bool), np.arange(n) % 5 == 1, np.arange(n) % 7 != 0):
        got = reset(state.replace(terminated=jnp.asarray(done)), key)
        want = jax.tree_util.tree_map(
            lambda a, b: np.where(done.reshape((n,) + (1,) * (a.ndim - 1)), a, b),
            fresh, state.replace(terminated=jnp.asarray(done)))
        for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
