"""Tractor for card-location inference.

Features: ``env.observe`` (from the seat's view, seats relative to it: own hand, level and trump,
dealer and declarer, phase, cards on the table, played, revealed and in the last trick by each
seat, shown voids per effective suit, leaders, points, the kitty if the seat buried it) and the
seat's team (dealer's or attackers'), and the move history the paper lists: the cards each seat
led and sloughed (played off the led effective suit: discards and ruffs), 2 x 4 x 54 / 2, seats
relative to the seat.  1,467 values in all.  Positions count from the burial on (while dealing,
``hidden_cards`` does not describe the undealt cards).  Stage: the trick (0..24).  Roles:
relative to the dealer.
"""

from __future__ import annotations

import jax.numpy as jnp

from cardjax.nets.card_locations.adapter import Adapter

ROLES = ("dealer", "dealer_next", "dealer_partner", "dealer_prev")
TRICKS = 25


def _role(env, s, seat):
    return ((seat - jnp.maximum(s.dealer, 0)) % 4).astype(jnp.int32)


def _relative(x, seat):
    return jnp.roll(x, -seat, axis=0)  # rows: self, next, opposite, previous


def features(env, state, seat):
    team = (_role(env, state, seat) % 2 == 0).astype(jnp.float32)  # 1: the dealer's team
    history = jnp.stack([_relative(state.led, seat), _relative(state.sloughed, seat)]) / 2.0
    return jnp.concatenate([env.observe(state, seat).astype(jnp.float32), team[None],
                            history.reshape(-1).astype(jnp.float32)])


ADAPTER = Adapter(game="tractor", features=features,
                  stage=lambda env, s: jnp.minimum(s.trick_no, TRICKS - 1).astype(jnp.int32),
                  stages=TRICKS, role=_role, role_names=ROLES)
