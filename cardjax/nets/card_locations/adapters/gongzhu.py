"""Gongzhu for card-location inference.

Features (from the seat's view, seats relative to it): ``env.observe`` (568: own hand, the
trick, cards played and score cards taken by each seat, shown voids, exposed cards, the leader)
and the move history the paper lists: the cards each seat led (4 x 52) and sloughed (played off
the led suit, 4 x 52), when each card was played (52: play number / 52) and the trick number
(13).  Stage: the trick (0..12).  Role: one (every seat is alike in Gongzhu).
"""

from __future__ import annotations

import jax.numpy as jnp

from cardjax.nets.card_locations.adapter import Adapter

CARDS, SEATS, TRICKS = 52, 4, 13


def features(env, state, seat):
    s = state
    t = jnp.arange(CARDS)
    card = s.history.astype(jnp.int32)  # card of play t, -1 not yet
    played = card >= 0
    safe = jnp.maximum(card, 0)
    by = s.played_by[safe].astype(jnp.int32)  # who played it
    lead_card = card[(t // 4) * 4]  # the first card of play t's trick
    led = played & (t % 4 == 0)
    slough = played & (t % 4 != 0) & (safe // 13 != jnp.maximum(lead_card, 0) // 13)
    by_rel = (by - seat) % SEATS
    per_seat = lambda flag: jnp.zeros((SEATS, CARDS), jnp.float32).at[by_rel, safe].max(
        flag.astype(jnp.float32))
    when = jnp.zeros(CARDS, jnp.float32).at[safe].max(jnp.where(played, (t + 1) / CARDS, 0.0))
    trick = jnp.arange(TRICKS) == jnp.minimum(s.num_played // 4, TRICKS - 1)
    return jnp.concatenate([env.observe(s, seat), per_seat(led).reshape(-1),
                            per_seat(slough).reshape(-1), when, trick.astype(jnp.float32)])


ADAPTER = Adapter(game="gongzhu", features=features,
                  stage=lambda env, s: jnp.minimum(s.num_played // 4, TRICKS - 1).astype(jnp.int32),
                  stages=TRICKS, role=lambda env, s, seat: jnp.int32(0), role_names=("player",))
