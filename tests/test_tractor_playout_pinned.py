"""Tractor: seeded random playouts pinned to a digest of every state along the way, so that a
rewrite of the env's internals (speed work) cannot change the rules, the legal masks or any state
field unnoticed.  The digests were taken from the implementation the rules tests describe; a
deliberate rule change must recompute them (run this file with ``-s`` and ``PRINT=1``)."""

from __future__ import annotations

import hashlib
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax.games import tractor as T

GAMES = 32
STEPS = 400  # a random hand is ~275 sub-actions: every slot finishes one hand and starts another

OPTION_SETS = {
    "default": {},
    "one_unit": dict(throws=False, chaodi=False, kitty_multiplier="times", levels="shengji_plus"),
    "declarer_penalty": dict(throw_penalty=10, dealer="declarer"),
}

DIGESTS = {
    "default": "92dbe6efcce1afef2f18f51f1316be75e5c0c88d44c3e4d9846f4454595d4ccf",
    "one_unit": "95537e57d75220bfd3c79e2e0df33f029b7e59b7bef1dec5203c5fd4fc82c07a",
    "declarer_penalty": "465cd5f3d68c68c5154757dc6574c65bb8321003547fcd4b23d8ce48f65da2c9",
}


def _playout(env, key):
    """Random legal play of one slot for STEPS sub-actions, a new deal after each hand.  The
    trajectory holds every state ``env.step`` returns, the final states of hands included."""
    def one(state, k):
        k_act, k_reset = jax.random.split(k)
        action = cardjax.random_action(k_act, state.legal_action_mask)
        nxt = env.step(state, action)
        fresh = env.init(k_reset)
        reset = jax.tree_util.tree_map(lambda a, b: jnp.where(nxt.terminated, a, b), fresh, nxt)
        return reset, (nxt, action)

    def run(key):
        k_init, k_play = jax.random.split(key)
        first = env.init(k_init)
        _, traj = jax.lax.scan(one, first, jax.random.split(k_play, STEPS))
        return first, traj

    return jax.jit(jax.vmap(run))(jax.random.split(key, GAMES))


def _digest(tree) -> str:
    """sha256 of every leaf's values (as int64 or float64, so the digest pins values, not
    dtypes), leaves in the state's field order."""
    h = hashlib.sha256()
    for leaf in jax.tree_util.tree_leaves(jax.device_get(tree)):
        a = np.asarray(leaf)
        a = a.astype(np.float64 if np.issubdtype(a.dtype, np.floating) else np.int64)
        h.update(str(a.shape).encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


@pytest.mark.parametrize("name", sorted(OPTION_SETS))
def test_random_playout_is_pinned(name):
    env = T.Tractor(**OPTION_SETS[name])
    first, (states, actions) = _playout(env, jax.random.key(20250611))
    ended = np.asarray(states.terminated)
    assert ended.any(axis=1).all()  # every slot finished at least one hand
    digest = _digest((first, states, actions))
    if os.environ.get("PRINT"):
        print(f"\n{name}: {digest}  hands ended: {int(ended.sum())}")
    assert digest == DIGESTS[name]
