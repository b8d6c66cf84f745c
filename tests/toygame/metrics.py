"""The toy game's duplicate scheme: the deal as dealt and with the hands and the first lead
swapped (:func:`cardjax.duplicate.seat_rotation`, ``Toy.rotate``); A's score is its seat's
reward (+1 / -1), and the summary its win rate, overall and by who led."""

from __future__ import annotations

import numpy as np

from cardjax.duplicate import Scheme, seat_rotation


def summary(env, scores, a, b):
    # scores[0]: A leads with the first hand; scores[1]: B leads with it
    return {"wp_a": float(np.mean(scores > 0)),
            "wp_a_first": float(np.mean(scores[0] > 0)),
            "wp_b_first": float(np.mean(scores[1] < 0))}


SCHEME = Scheme(seat_rotation, "sum", summary)


def scheme(env) -> Scheme:
    return SCHEME
