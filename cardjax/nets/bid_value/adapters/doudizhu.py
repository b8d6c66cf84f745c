"""Dou Dizhu for the bid value network.  A recorded game (fixed landlord) gives one example: the
landlord's 17 cards before it took the bottom (``_hands[landlord] - _bottom``), and its summed
reward (ADP: +-2 x the multiplier; its sign is the result).  Features: the hand's 15 ranks x count
levels 1-4 (60 values), as a bidding seat holds them (``_hands[seat]`` while the auction runs)."""

from __future__ import annotations

import jax.numpy as jnp

from cardjax.games.doudizhu import observe as ddz_obs
from cardjax.nets.bid_value.adapter import Adapter


def example(env, state, returns):
    """``(hand int32[15], landlord's return)`` of one recorded game's initial state."""
    lord = jnp.maximum(state.landlord, 0)
    hand = state._hands[lord].astype(jnp.int32) - state._bottom.astype(jnp.int32)
    return hand, returns[lord]


def features(hand):
    return ddz_obs.planes(hand).astype(jnp.float32)


ADAPTER = Adapter(game="doudizhu", example=example, features=features, num_features=60)
