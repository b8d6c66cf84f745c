"""Gongzhu for DMC (no exposure phase): one network, ``player``, for the four seats.

State features: ``env.observe`` (568 values, all 0/1, relative to the acting seat); action
features: the card one-hot (52), its suit (4) and rank (13), and the flags score card, SQ, DJ,
C10.  Reward ``points``: each seat's team's pile total minus the other team's, times
``reward_scale = 0.01``.  A game is exactly 52 plays and a hand holds at most 13 cards
(``k = 13``: no overflow possible).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from cardjax import registry
from cardjax.games.gongzhu import env as gz
from cardjax.nets.dmc.adapter import Adapter, Game

ROLE_NAMES = ("player",)


def action_table() -> np.ndarray:
    """bool[52, 73] action features: card one-hot (52), suit (4), rank (13), and the flags score
    card, SQ, DJ, C10 (the cards whose points the rules single out)."""
    cards = np.arange(gz.NUM_CARDS)
    special = np.stack([gz.IS_SCORE, cards == gz.SQ, cards == gz.DJ, cards == gz.C10], axis=1)
    return np.concatenate([np.eye(52, dtype=bool), np.eye(4, dtype=bool)[gz.SUIT],
                           np.eye(13, dtype=bool)[gz.RANK], special], axis=1)


def make_game(cfg=None, env=None) -> Game:
    env = env or registry.make("gongzhu")
    if env.name != "gongzhu" or getattr(env, "exposure", False):
        raise ValueError("DMC plays Gongzhu without the exposure phase (52 card actions)")

    def features(state):
        # observe is 0/1 (bool parts cast to float32): the bool cast keeps all of it
        return env.observe(state, state.current_player) > 0.5

    def role(state):
        return jnp.zeros((), jnp.int32)

    def outcome(final, totals):
        margin = totals[:, 0]  # team {0, 2}'s reward = its points minus the other team's
        return {"margin": jnp.mean(margin), "margin_abs": jnp.mean(jnp.abs(margin))}

    return Game(env, ROLE_NAMES, features, role, action_table(), (0, 0), outcome)


ADAPTER = Adapter(game="gongzhu",
                  player="gongzhu_dmc", role_names=ROLE_NAMES, rewards=("points",),
                  make_game=make_game, unused=("lstm",),
                  defaults={"reward": "points", "reward_scale": 0.01, "k": 13,
                            "max_steps": registry.make("gongzhu").max_steps})
