"""Gongzhu's duplicate scheme: the deal as dealt and rotated one seat on; against Mr Greed the
mean is the ScrofaZero paper's WPG (winning points per game).
"""

from __future__ import annotations

from cardjax.duplicate import Scheme, seat_rotation


def summary(env, scores, a, b):
    return {"wpg": float(scores.mean())} if b.name == "greed" else {}



SCHEME = Scheme(seat_rotation, "team", summary)


def scheme(env) -> Scheme:
    return SCHEME
