"""The toy game's own baseline: ``low`` plays its lowest legal card (deterministic)."""

from __future__ import annotations

import jax.numpy as jnp

from cardjax.core import Agent


def make_low(env) -> Agent:
    def act(params, key, state):
        del params, key
        return jnp.argmax(state.legal_action_mask).astype(jnp.int32)  # the first legal card

    return Agent("low", act)
