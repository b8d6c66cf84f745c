"""Dou Dizhu for card-location inference.

Features: ``env.observe`` (1,325 values from the seat's view: own hand, cards left and played by
each seat, the move to beat, the bottom cards, the landlord, bombs, the last 15 moves).  Stage:
the move number in tens (0..9, the tenth for moves 90 on).  Roles: landlord, the peasant after
it, the peasant before it.
"""

from __future__ import annotations

import jax.numpy as jnp

from cardjax.games.doudizhu import observe as ddz_obs
from cardjax.nets.card_locations.adapter import Adapter

ROLES = ddz_obs.ROLES


def features(env, state, seat):
    return env.observe(state, seat).astype(jnp.float32)


ADAPTER = Adapter(game="doudizhu", features=features,
                  stage=lambda env, s: jnp.minimum(s.step_count // 10, 9).astype(jnp.int32),
                  stages=10, stage_name="move / 10",
                  role=lambda env, s, seat: ddz_obs.role(s, seat), role_names=ROLES)
