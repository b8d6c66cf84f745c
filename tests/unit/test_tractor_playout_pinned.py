"""Tractor: seeded random playouts pinned to a digest of every state along the way, so that a
rewrite of the env's internals (speed work) cannot change the rules, the legal masks or any state
field unnoticed.  The digests were taken from the implementation the rules tests describe; a
deliberate rule change must recompute them (run this file with ``-s`` and ``PRINT=1``)."""

from __future__ import annotations

import functools
import hashlib
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax.games.tractor import env as T

GAMES = 32
STEPS = 400  # a random hand is ~275 sub-actions: every slot finishes one hand and starts another

OPTION_SETS = {
    "default": {},
    "one_unit": dict(throws=False, chaodi=False, kitty_multiplier="times", levels="shengji_plus"),
    "declarer_penalty": dict(throw_penalty=10, dealer="declarer"),
}

# 2026-11-26: the state gained ``led`` and ``sloughed``; the digests without them were unchanged.
# 2026-12-04: it gained ``holder``, ``hold_suit`` and ``hold_key``; the same.
DIGESTS = {
    "default": "67c8e17444ac284ddf7c65bbabbf31a37839ddde1e96acc69bf68839e59c6cdb",
    "one_unit": "c0ba347bbe5e033bd4c7d68706c0b33e1b5b92caf9563ba1208776b88af6b5e8",
    "declarer_penalty": "e924c7d511f7be7606c358aa5c54ffce3a0b680c7bb214d5b3d66a317e3994d8",
}


@functools.cache
def _played(name):
    """The pinned playout of an option set, played once for the module."""
    return _playout(T.Tractor(**OPTION_SETS[name]), jax.random.key(20250611))


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


# the contract's fields in the order the digests were taken in (before they moved into
# cardjax.core.MaskedState); the game's own follow in field order
PINNED_FIRST = ("current_player", "legal_action_mask", "rewards", "terminated", "step_count")


def _pinned_order(state) -> list:
    """The state's fields in the order the digests were taken in: the digests pin values, not
    where a field sits in the dataclass."""
    names = [f for f in state.__dataclass_fields__ if f not in PINNED_FIRST]
    return [getattr(state, f) for f in PINNED_FIRST + tuple(names)]


def _digest(tree) -> str:
    """sha256 of every leaf's values (as int64 or float64, so the digest pins values, not
    dtypes), a state's leaves in ``_pinned_order``."""
    h = hashlib.sha256()
    is_state = lambda x: isinstance(x, T.State)  # noqa: E731
    tree = jax.tree_util.tree_map(lambda x: _pinned_order(x) if is_state(x) else x, tree,
                                  is_leaf=is_state)
    for leaf in jax.tree_util.tree_leaves(jax.device_get(tree)):
        a = np.asarray(leaf)
        a = a.astype(np.float64 if np.issubdtype(a.dtype, np.floating) else np.int64)
        h.update(str(a.shape).encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


@pytest.mark.parametrize("name", sorted(OPTION_SETS))
def test_random_playout_is_pinned(name):
    first, (states, actions) = _played(name)
    ended = np.asarray(states.terminated)
    assert ended.any(axis=1).all()  # every slot finished at least one hand
    digest = _digest((first, states, actions))
    if os.environ.get("PRINT"):
        print(f"\n{name}: {digest}  hands ended: {int(ended.sum())}")
    assert digest == DIGESTS[name]


@pytest.mark.parametrize("name", ["default", "one_unit"])
def test_the_holder_kept_is_the_winner_of_the_complete_plays(name):
    """The state's ``holder`` (kept play by play, with its play's suit and key) is, at every
    state of the pinned playouts, the winner the rules' whole-trick code names from the complete
    plays alone (the partial move of the seat to act left out)."""
    from cardjax.games.tractor import moves as tm
    from cardjax.games.tractor import state_facts, tricks

    _, (states, _) = _played(name)
    flat = jax.tree_util.tree_map(lambda x: x.reshape((-1,) + x.shape[2:]), states)

    def old(s):
        eff, order, slot = tm.context(s.level, s.trump)
        plays = tm.pad(s.trick.astype(jnp.int32).at[s.current_player].set(0))
        win = tricks.trick_winner(plays, s.leader, s.lead_tractors, s.lead_pairs, eff, order,
                                  slot)
        return jnp.where((s.phase == T.PLAY) & (s.num_in_trick > 0), win, -1)

    want, got = jax.jit(jax.vmap(old))(flat), jax.jit(jax.vmap(state_facts.trick_holder))(flat)
    want, got = np.asarray(want), np.asarray(got)
    assert (want >= 0).sum() > 2000 and len(set(want[want >= 0].tolist())) == 4
    np.testing.assert_array_equal(got, want)
