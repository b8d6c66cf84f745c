"""Growing a trained network into a wider and deeper one that computes the same function.

A player trained at one size is the start of a run at a larger size (``--from PLAYER --grow``):
its function is kept exactly, so nothing it learned is lost and the new units start learning
from where it stands.  Widening by an integer factor ``c`` copies each hidden unit ``c`` times
(Net2Net, Chen et al. 2016): a layer's output columns are tiled, and the next layer's input rows
are split into ``c`` random shares whose sum is the original weight.  The copies compute the same
activations, their outgoing weights differ, so their gradients differ and they part from the
first update.  A LayerNorm over the tiled units sees the same mean and variance, so it tiles
too.  New layers start as the identity: an identity matrix after a ReLU (its input is never
negative), or a residual block whose last layer is zero.

The functions work on NumPy arrays whose last one or two axes are a layer's (a leading axis, such
as a DMC player's one network per role, is carried along).  Each network module says how its
parameters grow (``grow`` in :mod:`cardjax.nets.dmc.q_net` and :mod:`cardjax.nets.policy_value`).
"""

from __future__ import annotations

import numpy as np

# how far a copy's share of an outgoing weight may stray from 1/c (relative, normal spread): the
# shares still sum to the weight exactly; large enough that the copies part at once
SHARE_SPREAD = 0.25


def factor(old: int, new: int, name: str) -> int:
    """``new // old``; ``ValueError`` (one line) unless ``new`` is a multiple of ``old``."""
    if new < old or new % old:
        raise ValueError(f"{name} {new} is not a multiple of the player's {old}")
    return new // old


def more(old: int, new: int, name: str) -> int:
    """``new - old`` (layers to add); ``ValueError`` (one line) when ``new < old``."""
    if new < old:
        raise ValueError(f"{name} {new} is smaller than the player's {old}")
    return new - old


def tile_out(a: np.ndarray, c: int) -> np.ndarray:
    """A layer's outputs (the last axis of a kernel, a bias or a norm's scale) copied ``c``
    times: unit ``i`` of the old layer is units ``i, i + n, ..., i + (c - 1) n``."""
    return np.concatenate([np.asarray(a)] * c, axis=-1)


def split_in(kernel: np.ndarray, c: int, rng: np.random.Generator) -> np.ndarray:
    """A kernel ``[..., n, m]`` that reads ``c`` tiled copies of its ``n`` inputs:
    ``[..., c n, m]``, each weight split into ``c`` random shares that sum to it."""
    kernel = np.asarray(kernel)
    if c == 1:
        return kernel
    noise = rng.standard_normal((c,) + kernel.shape).astype(kernel.dtype)
    shares = (1.0 + SHARE_SPREAD * (noise - noise.mean(axis=0))) / c  # sum over copies: 1
    parts = [shares[k] * kernel for k in range(c)]
    parts[-1] = kernel - sum(parts[:-1])  # the sum exact in floating point too
    return np.concatenate(parts, axis=-2)


def widen_dense(kernel, bias, c_in: int, c_out: int, rng) -> tuple:
    """A dense layer's ``(kernel, bias)`` reading ``c_in``-tiled inputs and writing ``c_out``
    copies of its outputs (``bias`` may be None)."""
    k = tile_out(split_in(kernel, c_in, rng), c_out)
    return k, (None if bias is None else tile_out(bias, c_out))


def identity(like: np.ndarray) -> dict:
    """A dense layer ``{"kernel", "bias"}`` that passes its ``n`` inputs through, shaped as a
    layer whose bias is ``like [..., n]`` (kernel ``[..., n, n]``, leading axes kept)."""
    like = np.asarray(like)
    n = like.shape[-1]
    kernel = np.broadcast_to(np.eye(n, dtype=like.dtype), like.shape[:-1] + (n, n)).copy()
    return {"kernel": kernel, "bias": np.zeros(like.shape, like.dtype)}
