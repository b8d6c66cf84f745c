"""Dou Dizhu observations: the flat float32 vector a seat sees (:func:`observe`, ``OBS_SIZE``),
the same with the other two hands appended (:func:`observe_oracle`, ``ORACLE_SIZE``), the rank
counts as count-level planes they are built of (:func:`planes`), and a seat's role
(:func:`role`, :data:`ROLES`).  Pure functions of a :class:`~cardjax.games.doudizhu.env.State`
(this module does not import the env, which imports it); the env's ``observe`` and
``observe_oracle`` call them."""

from __future__ import annotations


import jax
import jax.numpy as jnp

from cardjax.games.doudizhu.moves import COUNTS, NUM_RANKS


Array = jax.Array

NUM_PLAYERS = 3  # the env's seats
OBS_HISTORY = 15  # moves in ``observe``
# Observation: 4 count levels x 15 ranks per card set.
PLANES = 4 * NUM_RANKS
OBS_SIZE = PLANES + 2 * 21 + 3 * PLANES + PLANES + 3 + 1 + PLANES + 3 + 16 + OBS_HISTORY * PLANES
ORACLE_SIZE = OBS_SIZE + 2 * PLANES


ROLES = ("landlord", "landlord_down", "landlord_up")


def role(state, seat) -> Array:
    """int32: ``seat``'s role, an index of :data:`ROLES`: 0 the landlord, 1 the peasant after it,
    2 the peasant before it (while the auction runs, as if seat 0 were the landlord)."""
    return ((seat - jnp.maximum(state.landlord, 0)) % NUM_PLAYERS).astype(jnp.int32)


def planes(counts: Array) -> Array:
    """bool[..., 60]: for each rank, whether the count reaches 1, 2, 3, 4 (rank-major)."""
    return (counts[..., :, None] > jnp.arange(4)).reshape(counts.shape[:-1] + (PLANES,))


def observe(state, seat) -> Array:
    """float32[OBS_SIZE]: what ``seat`` may know, seats in the order seat, next, previous.

    Own hand (60 = 15 ranks x count levels 1..4); cards left of the next and previous seats
    (2 x 21 one-hot); cards played by each seat (3 x 60); the move to beat (60), who made it
    (3) and whether the seat leads (1); the bottom cards (60, zeros before they are shown);
    the landlord (3); bombs and rockets so far (16 one-hot, capped); the last 15 moves,
    oldest first (15 x 60).
    """
    s = state
    rel = (jnp.arange(NUM_PLAYERS) + seat) % NUM_PLAYERS
    beat = jnp.where(s.to_beat >= 0, jnp.asarray(COUNTS)[jnp.maximum(s.to_beat, 0)], 0)
    recent = s.history[-OBS_HISTORY:]
    hist = jnp.where((recent >= 0)[:, None], jnp.asarray(COUNTS)[jnp.maximum(recent, 0)], 0)
    parts = [
        planes(s._hands[seat]),
        s.cards_left[rel[1:], None] == jnp.arange(21),
        planes(s.played[rel]),
        planes(beat),
        rel == s.to_beat_seat,
        (s.to_beat < 0)[None],
        planes(s.bottom),
        rel == s.landlord,
        jnp.minimum(s.bombs, 15) == jnp.arange(16),
        planes(hist),
    ]
    return jnp.concatenate([x.reshape(-1) for x in parts]).astype(jnp.float32)


def observe_oracle(state, seat) -> Array:
    """float32[ORACLE_SIZE]: ``observe`` plus the hands of the next and previous seats."""
    rel = (jnp.arange(NUM_PLAYERS) + seat) % NUM_PLAYERS
    others = planes(state._hands[rel[1:]]).reshape(-1).astype(jnp.float32)
    return jnp.concatenate([observe(state, seat), others])
