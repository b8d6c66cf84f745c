"""Work that only some games of a batch need.

Under ``vmap`` every game computes every branch of a step (a declaration turn pays for the trick
winner, a plain lead for the tractor search), so a batched step costs the sum of all its
branches.  :func:`gated` ``(pred, f, g, *args)`` is, for one game, ``f(*args)`` where ``pred``
holds and ``g(*args)`` elsewhere (``g``: the cheap exact answer of the common case, or a
placeholder that the caller discards).  Under ``vmap`` on CPU, ``f`` runs on the games that need
it alone, gathered ``1/share`` of the batch at a time (usually in one pass, often in none); one
game takes a plain branch, and nested ``vmap`` s are flattened into one batch.  On other
platforms, where a data-dependent branch or loop costs a host round trip, it computes both and
selects, as plain ``vmap`` does.  The results are the same either way.

``CARDJAX_GATE`` (read when a program is traced) chooses otherwise on every platform: ``sparse``
(the gathered rows) or ``select`` (both branches everywhere); ``auto``, the default, is the
choice above, taken when the program is traced, for JAX's default backend
(``jax.default_backend()``): tracing only the path that runs saves a program's compile the
other path's trace (a program placed on another platform than the default computes the same
results by the other path).  On a GPU with a large batch the gathered rows may pay for their
round trips: the benchmarks measure both (``benchmarks/gpu_session.sh``).
"""

from __future__ import annotations

import functools
import os
import weakref

import jax
import jax.numpy as jnp
from jax.custom_batching import custom_vmap

_JITS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
MODES = ("auto", "sparse", "select")


def mode() -> str:
    """``CARDJAX_GATE`` (one of :data:`MODES`; unset: ``auto``)."""
    m = os.environ.get("CARDJAX_GATE", "auto") or "auto"
    if m not in MODES:
        raise ValueError(f"CARDJAX_GATE={m!r}: expected one of {', '.join(MODES)}")
    return m


def _path() -> str:
    """The path a gate traced now takes: :func:`mode`, ``auto`` resolved to ``sparse`` where the
    default backend is the CPU and to ``select`` elsewhere."""
    m = mode()
    if m == "auto":
        return "sparse" if jax.default_backend() == "cpu" else "select"
    return m


def _by_path(pred, args, sparse, select_all):
    """``sparse`` or ``select_all``, as :func:`_path` says."""
    return (sparse if _path() == "sparse" else select_all)(pred, args)


def _jit(fn):
    # one trace per function and argument shapes: a gated function is traced for several paths
    # (and, nested, for each path of the gate around it); one per path, since a gate inside
    # ``fn`` reads its path when traced (a partial: JAX keeps traces by the function jitted)
    per_path = _JITS.setdefault(fn, {})
    path = _path()
    if path not in per_path:
        per_path[path] = jax.jit(functools.partial(fn))
    return per_path[path]


def _tree_where(pred, a, b):
    return jax.tree_util.tree_map(
        lambda x, y: jnp.where(pred.reshape(pred.shape + (1,) * (x.ndim - pred.ndim)), x, y), a, b)


def _broadcast(size, in_batched, tree):
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    flags = jax.tree_util.tree_leaves(in_batched)
    return treedef.unflatten([x if b else jnp.broadcast_to(x, (size,) + jnp.shape(x))
                              for x, b in zip(leaves, flags)])


def _on_rows(fn, rows, args, out, cap: int):
    """``out`` with the rows where ``rows`` (bool[N]) holds replaced by batched ``fn`` of those
    rows of ``args``, gathered ``cap`` rows at a time (as many passes as needed, often none)."""
    n = rows.shape[0]
    idx = jnp.nonzero(rows, size=-(-n // cap) * cap, fill_value=n)[0]  # the rows first
    count = jnp.sum(rows, dtype=jnp.int32)

    def chunk(carry):
        i, out = carry
        at = jax.lax.dynamic_slice_in_dim(idx, i * cap, cap)
        sub = jax.tree_util.tree_map(lambda x: x[jnp.minimum(at, n - 1)], args)
        out = jax.tree_util.tree_map(lambda o, v: o.at[at].set(v, mode="drop"), out, fn(*sub))
        return i + 1, out

    return jax.lax.while_loop(lambda c: c[0] * cap < count, chunk, (jnp.int32(0), out))[1]


def _batched(f, g, share):
    """The batched call: ``pred`` bool[N], every leaf of ``args`` with a leading axis N."""

    def select_all(pred, args):
        return _tree_where(pred, jax.vmap(f)(*args), jax.vmap(g)(*args))

    def sparse(pred, args):
        n = pred.shape[0]
        if n == 1:
            return jax.lax.cond(pred[0], jax.vmap(f), jax.vmap(g), *args)
        return _on_rows(jax.vmap(f), pred, args, jax.vmap(g)(*args), max(1, n // share))

    @custom_vmap
    def call(pred, args):
        return _by_path(pred, args, sparse, select_all)

    @call.def_vmap
    def _flatten(size, in_batched, pred, args):
        # a vmap around this one: the games of every outer slot form one batch
        pred, args = _broadcast(size, in_batched, (pred, args))
        n = pred.shape[1]
        flat = jax.tree_util.tree_map(lambda x: x.reshape((size * n,) + x.shape[2:]), (pred, args))
        out = call(*flat)
        out = jax.tree_util.tree_map(lambda x: x.reshape((size, n) + x.shape[1:]), out)
        return out, jax.tree_util.tree_map(lambda _: True, out)

    return call


def gated(pred, f, g, *args, share: int = 4):
    """``f(*args)`` if ``pred`` else ``g(*args)`` for one game.  ``f`` and ``g``: pure functions
    (module-level ones are traced once) with outputs of the same shapes and dtypes, taking every
    traced value they use as an argument (closures may hold constants only).  See the module
    docstring for the cost under ``vmap``."""
    f, g = _jit(f), _jit(g)

    @custom_vmap
    def one(pred, args):
        return jax.lax.cond(pred, f, g, *args)

    @one.def_vmap
    def _batch(size, in_batched, pred, args):
        pred, args = _broadcast(size, in_batched, (pred, args))
        out = _batched(f, g, share)(pred, args)
        return out, jax.tree_util.tree_map(lambda _: True, out)

    return one(jnp.asarray(pred, bool), args)


def either(pred, f, g, *args, parts: int = 4):
    """For a batch: ``f`` on the rows where ``pred`` (bool[N]) holds, ``g`` on the others.

    ``f`` and ``g`` map batched ``args`` (leading axis of any size) to batched outputs of the
    same shapes.  On CPU each runs on its own rows alone, gathered ``N / parts`` rows at a time,
    so the batch costs about one call of ``f`` or ``g`` per row instead of both (an arena where
    two agents take turns); elsewhere both run on every row and the rows select.  The results are
    the same either way.  Unlike :func:`gated` this is not for use under ``vmap``: ``f`` and
    ``g`` may close over traced values (an agent's weights), which are not copied per row.
    """
    pred = jnp.asarray(pred, bool)
    args = jax.tree_util.tree_map(jnp.asarray, args)  # numpy rows cannot be gathered by tracers
    n = pred.shape[0]

    def select_all(pred, args):
        return _tree_where(pred, f(*args), g(*args))

    def sparse(pred, args):
        cap = max(1, -(-n // parts))
        out = jax.tree_util.tree_map(lambda s: jnp.zeros(s.shape, s.dtype),
                                     jax.eval_shape(f, *args))
        return _on_rows(g, ~pred, args, _on_rows(f, pred, args, out, cap), cap)

    return _by_path(pred, args, sparse, select_all)


def replace_rows(rows, f, args, out, parts: int = 4):
    """``out`` (a batched pytree) with the rows where ``rows`` (bool[N]) holds replaced by those
    rows of ``f(*args)`` (``f`` maps batched ``args`` to batched outputs shaped as ``out``).

    Nothing is computed where no row holds.  On CPU ``f`` runs on the chosen rows alone,
    gathered ``N / parts`` at a time, or on every row at once when most are chosen; elsewhere on
    every row, and the rows select.  The results are the same either way (``f`` must treat each
    row on its own, as a ``vmap`` does).  Not for use under ``vmap``.
    """
    rows = jnp.asarray(rows, bool)
    args = jax.tree_util.tree_map(jnp.asarray, args)
    n = rows.shape[0]

    def every_row(_):
        return _tree_where(rows, f(*args), out)

    def select_all(rows, args):
        return jax.lax.cond(jnp.any(rows), every_row, lambda _: out, None)

    def sparse(rows, args):
        cap = max(1, -(-n // parts))
        return jax.lax.cond(jnp.sum(rows, dtype=jnp.int32) > n // 2, every_row,
                            lambda _: _on_rows(f, rows, args, out, cap), None)

    return _by_path(rows, args, sparse, select_all)
