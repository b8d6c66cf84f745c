"""Seeded random playouts of Gongzhu (with and without exposing) give exactly the games they gave
before the deal stopped sorting (:mod:`cardjax.shuffle`) and the random action stopped using
``jnp.cumsum``: the digests below were computed on the code before those changes."""

from __future__ import annotations

import jax
import pytest

import cardjax
from conftest import sha16

GAMES, STEPS = 16, 70


def digest(env, seed: int) -> str:
    """sha256 of every action, current player, reward and legal mask along ``STEPS`` vmapped
    steps, with a new deal in every slot whose game ended."""
    step = jax.vmap(cardjax.auto_reset(env.step, env.init))

    @jax.jit
    def run(key):
        state = jax.vmap(env.init)(jax.random.split(key, GAMES))

        def one(state, k):
            k_act, k_deal = jax.random.split(k)
            a = jax.vmap(env.random_action)(jax.random.split(k_act, GAMES), state)
            nxt = step(state, a, jax.random.split(k_deal, GAMES))
            return nxt, (a, state.current_player, nxt.rewards, nxt.legal_action_mask)

        return jax.lax.scan(one, state, jax.random.split(jax.random.key(seed + 1), STEPS))[1]

    return sha16(run(jax.random.key(seed)))


PINNED = {
    False: "209ecf83446b4219",
    True: "2d8016329427dc61",
}


@pytest.mark.parametrize("exposure", list(PINNED))
def test_seeded_games_unchanged(exposure):
    env = cardjax.make("gongzhu", exposure=exposure)
    assert digest(env, 3) == PINNED[exposure]
