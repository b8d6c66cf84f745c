"""Mini Dou Di Zhu's duplicate scheme: the deal as dealt and with the hands swapped (A leads in
the first game, B in the second); win rates by who led.
"""

from __future__ import annotations

import numpy as np

from cardjax.duplicate import Scheme, seat_rotation


def summary(env, scores, a, b):
    # scores[0]: A leads; scores[1]: B leads (with A's first-game hand).
    return {
        "wp_a": float(np.mean(scores > 0)),
        "wp_a_first": float(np.mean(scores[0] > 0)),
        "wp_b_first": float(np.mean(scores[1] < 0)),
    }



SCHEME = Scheme(seat_rotation, "sum", summary)


def scheme(env) -> Scheme:
    return SCHEME
