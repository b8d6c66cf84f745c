"""Dou Dizhu's duplicate schemes and match figures (ADP, win rates by role, the auction's).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from cardjax.duplicate import Scheme, seat_subsets


def role_swap(env, first):
    """The same deal twice: A is the landlord in the first game, B in the second."""
    if getattr(env, "bidding", False):
        raise ValueError("role_swap swaps fixed roles; with bidding the arena uses seat_subsets")
    landlord = first.landlord[:, None] == jnp.arange(env.num_players)
    return [first, first], [landlord, ~landlord]

def _bidding_outcome(env, states, a_seats):
    """Per finished game: whether the deal was void (everyone passed) and whether A's player held
    the landlord seat."""
    rows = jnp.arange(a_seats.shape[0])
    void = states.landlord < 0
    return {"void": void, "a_landlord": a_seats[rows, jnp.maximum(states.landlord, 0)] & ~void}


def _bidding_summary(env, scores, a, b, void, a_landlord):
    # scores, void, ...: [6 games, deals]; games 0-2 give A one seat, 3-5 two seats.  The sign of
    # A's score is the landlord's result when A holds the landlord seat (its other seat, if any, is
    # a peasant losing half as much), and the peasants' otherwise.
    played = ~void
    b_landlord = played & ~a_landlord
    landlord_won = played & ((scores > 0) == a_landlord)

    def rate(hit, of):
        return float(hit[of].mean()) if of.any() else None

    def se(hit, of):  # binomial over the games counted (a deal's six games are not independent)
        n = int(of.sum())
        if n < 2:
            return None
        p = float(hit[of].mean())
        return float(np.sqrt(p * (1 - p) / n))

    return {
        "adp_a": float(scores.mean()),
        "adp_a_one_seat": float(scores[:3].mean()),
        "adp_a_two_seats": float(scores[3:].mean()),
        "void_rate": float(void.mean()),
        # the landlord seat's holder: 0.5 for two identical players (each seat is A's in half)
        "landlord_share_a": rate(a_landlord, played),
        "wp_a_landlord": rate(landlord_won, a_landlord),
        "wp_b_landlord": rate(landlord_won, b_landlord),
        "landlord_share_a_stderr": se(a_landlord, played),
        "wp_a_landlord_stderr": se(landlord_won, a_landlord),
        "wp_b_landlord_stderr": se(landlord_won, b_landlord),
    }

def _summary(env, scores, a, b):
    # scores[0]: A landlord; scores[1]: A's two peasants against B's landlord.
    return {
        "wp_a_landlord": float(np.mean(scores[0] > 0)),
        "wp_b_landlord": float(np.mean(scores[1] < 0)),
        "adp_a": float(scores.mean()),
        "adp_a_landlord": float(scores[0].mean()),
        "adp_a_peasants": float(scores[1].mean()),
    }

FIXED = Scheme(role_swap, "sum", _summary)
BIDDING = Scheme(seat_subsets, "sum", _bidding_summary, _bidding_outcome)


def scheme(env) -> Scheme:
    """Fixed roles: the landlord's seat swapped (:func:`role_swap`); with bidding: A at every
    proper subset of the seats (:func:`cardjax.duplicate.seat_subsets`)."""
    return BIDDING if getattr(env, "bidding", False) else FIXED
