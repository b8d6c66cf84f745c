"""Dou Dizhu for DMC, as DouZero plays it (fixed landlord, no bidding).

Roles: 0 ``landlord``; 1 ``landlord_down``, the peasant right after the landlord; 2
``landlord_up``, the peasant right before it (``(seat - landlord) mod 3``); the game is lockstep.
State features: ``env.observe`` (1,325 0/1 values, the last 15 moves as 15 x 60 planes at the
end, read by the LSTM in 5 steps of 3 moves); action features: the move's rank counts as 4 x 15
planes.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

import cardjax
from cardjax.games import doudizhu
from cardjax.train.dmc.adapter import Adapter, Game

ROLE_NAMES = ("landlord", "landlord_down", "landlord_up")


def make_game(cfg, env=None) -> Game:
    env = env or cardjax.make("doudizhu", reward=cfg.reward)
    if env.name != "doudizhu":
        raise ValueError(f"the Dou Dizhu DMC adapter got a {env.name} env")
    # With bidding (a player at an auction table) the Q networks play the cards after it; the
    # candidates are the card moves only (action_features' rows), never the bids.
    table = np.asarray(doudizhu.planes(jnp.asarray(doudizhu.COUNTS)), bool)  # [27472, 60]

    def features(state):
        return env.observe(state, state.current_player) > 0.5

    def role(state):
        return ((state.current_player - state.landlord) % 3).astype(jnp.int32)

    def outcome(final, totals):
        lord = jnp.sum(totals * (jnp.arange(3) == final.landlord[:, None]), axis=1)
        return {"landlord_wins": jnp.mean((lord > 0).astype(jnp.float32)),
                "landlord_reward": jnp.mean(lord)}

    return Game(env, ROLE_NAMES, features, role, table,
                (doudizhu.OBS_HISTORY // 3, 3 * doudizhu.PLANES), outcome)


# a game is at most 154 steps (env.max_steps), rounded up to the 3 roles by Config.steps
ADAPTER = Adapter(game="doudizhu", role_names=ROLE_NAMES, rewards=("adp", "wp", "logadp"),
                  make_game=make_game, defaults={"max_steps": cardjax.make("doudizhu").max_steps})
