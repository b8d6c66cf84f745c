"""The toy game's own baselines: ``low`` plays its lowest legal card (deterministic); ``rule``
leads its highest card and follows with its lowest card that takes the trick, else its lowest
(deterministic, from what the seat sees; the DMC adapter's advice and rollouts use it)."""

from __future__ import annotations

import jax.numpy as jnp

from cardjax.core import Agent


def make_low(env) -> Agent:
    def act(params, key, state):
        del params, key
        return jnp.argmax(state.legal_action_mask).astype(jnp.int32)  # the first legal card

    return Agent("low", act)


def rule_move(state):
    """int32: the rule player's card in ``state``."""
    cards = jnp.arange(state.legal_action_mask.shape[0])
    legal = state.legal_action_mask
    highest = jnp.max(jnp.where(legal, cards, -1))
    lowest = jnp.argmax(legal)
    taking = legal & (cards > state.table)
    lowest_taking = jnp.where(jnp.any(taking), jnp.argmax(taking), lowest)
    return jnp.where(state.table < 0, highest, lowest_taking).astype(jnp.int32)


def make_rule(env) -> Agent:
    def act(params, key, state):
        del params, key
        return rule_move(state)

    return Agent("rule", act)
