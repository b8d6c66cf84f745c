"""The toy game for DMC: one network, ``player``, for both seats.

State features: ``env.observe`` (40 values, all 0/1, from the acting seat); action features: the
card one-hot (8) and its rank as a thermometer (7).  Reward ``win``: +1 / -1.  A game is exactly
six plays and a hand holds at most three cards (``k = 3``: no overflow).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

import cardjax
from cardjax.nets.dmc.adapter import Adapter, Game
from toygame import env as toy

ROLE_NAMES = ("player",)


def action_table() -> np.ndarray:
    """bool[8, 15]: card one-hot, then ``card > r`` for r = 0..6."""
    cards = np.arange(toy.NUM_CARDS)
    return np.concatenate([np.eye(toy.NUM_CARDS, dtype=bool),
                           cards[:, None] > np.arange(toy.NUM_CARDS - 1)[None, :]], axis=1)


def make_game(cfg=None, env=None) -> Game:
    env = env or cardjax.make("toy")
    if env.name != "toy":
        raise ValueError(f"the toy adapter plays the toy game, not {env.name}")

    def features(state):
        return env.observe(state, state.current_player) > 0.5  # observe is 0/1

    def role(state):
        return jnp.zeros((), jnp.int32)

    def outcome(final, totals):
        return {"seat0_wins": jnp.mean(totals[:, 0] > 0)}

    return Game(env, ROLE_NAMES, features, role, action_table(), (0, 0), outcome)


ADAPTER = Adapter(game="toy", player="toy_dmc", role_names=ROLE_NAMES, rewards=("win",),
                  make_game=make_game, unused=("lstm",),
                  defaults={"reward": "win", "k": toy.HAND_SIZE, "max_steps": toy.Toy.max_steps})
