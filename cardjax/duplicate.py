"""Duplicate schemes: how a game turns one deal into several games with the sides swapped.

A game's card (:class:`cardjax.spec.GameSpec`) names its scheme; the arena
(:mod:`cardjax.eval.arena`) plays them.  The builders here are shared by the games: rotate the
hands one seat on (:func:`seat_rotation`), swap the teams by seat parity (:func:`team_swap`), or
give A every non-empty proper subset of three seats (:func:`seat_subsets`).
"""

from __future__ import annotations

from functools import partial
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np


class Scheme(NamedTuple):
    """How one game turns a deal into duplicate games and scores them.

    ``build(env, first) -> (states, a_seats)``: lists (one entry per game) of batched initial
    states and bool[n, num_players] seat masks, from the batch ``first`` of ``env.init`` deals.
    ``side``: ``"team"`` (A's score is the reward of any one of its seats: teammates share the team
    reward) or ``"sum"`` (the sum of the rewards of A's seats).
    ``summary(env, scores, a, b, **outcome) -> dict``: extra result keys from A's scores
    float[games, deals] (and the ``outcome`` arrays, when the scheme has one).
    """

    build: Callable
    side: str
    summary: Callable
    # optional: ``outcome(env, final_states, a_seats) -> dict of arrays [B]`` computed in the
    # compiled play from the finished games; its entries reach ``summary`` as keyword arguments
    # (arrays [games, deals]).  Schemes without one get ``summary(env, scores, a, b)``.
    outcome: Callable | None = None

def seat_rotation(env, first):
    """The deal as dealt and with every hand and the first lead one seat on (``env.rotate``);
    A holds team 0's seats in both games."""
    a = jnp.asarray(np.asarray(env.teams) == 0)
    seats = jnp.broadcast_to(a, (first.terminated.shape[0], env.num_players))
    rotated = jax.vmap(partial(env.rotate, shift=1))(first)
    return [first, rotated], [seats, seats]

SUBSETS = ((1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (1, 0, 1), (0, 1, 1))  # game g mirrors 5 - g


def seat_subsets(env, first):
    """The same deal six times, A at each non-empty proper subset of the seats (:data:`SUBSETS`)."""
    n = first.terminated.shape[0]
    seats = [jnp.broadcast_to(jnp.asarray(m, bool), (n, env.num_players)) for m in SUBSETS]
    return [first] * len(SUBSETS), seats


def team_swap(env, first):
    """The same deal twice: A at the even seats ({0, 2}), then at the odd ones ({1, 3})."""
    n = first.terminated.shape[0]
    even = jnp.broadcast_to(jnp.arange(env.num_players) % 2 == 0, (n, env.num_players))
    return [first, first], [even, ~even]
