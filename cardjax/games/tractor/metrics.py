"""Tractor's duplicate scheme (the same hand with the teams swapped) and its match figures
(win rate, level-up rate, leveling rate, AAPD: ShengJi+ report 4.6).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from cardjax.duplicate import Scheme, team_swap


def outcome(env, states, a_seats):
    """Per finished hand: whether A's team attacked, and the attackers' final score (tricks +
    kitty bonus + throw penalties, at least 0: the figure the level table reads)."""
    rows = jnp.arange(a_seats.shape[0])
    attacker_seat = (states.dealer + 1) % env.num_players
    score = jnp.maximum(states.attacker_points + states.kitty_bonus + states.penalty, 0)
    return {"a_attacks": a_seats[rows, attacker_seat], "attack_score": score.astype(jnp.int32)}


def tractor_metrics(scores, a_attacks, attack_score) -> dict:
    """Tractor match figures (rules file; ShengJi+ report 4.6) from per-hand arrays of one shape:
    ``scores`` A's level reward (levels A's team gained, or minus those B's team gained),
    ``a_attacks`` whether A's team attacked, ``attack_score`` the attackers' final points.

    - ``win_rate``: share of hands A's team won (the attackers win with at least 80 points, else
      the defenders): the report's win rate;
    - ``level_up_rate``: share of hands in which A's team gained levels (attackers with 80..115
      win the hand but gain none);
    - ``leveling_rate``: levels gained by A / levels gained by both (nan if none);
    - ``aapd``: A's mean attacking score minus B's mean attacking score (``a_attack_points``,
      ``b_attack_points``; nan where a side never attacked);
    - ``levels_a``, ``levels_b``: levels gained in all.
    """
    scores = np.asarray(scores, np.float64).ravel()
    att = np.asarray(a_attacks, bool).ravel()
    pts = np.asarray(attack_score, np.float64).ravel()
    if not scores.shape == att.shape == pts.shape:
        raise ValueError("scores, a_attacks and attack_score must have one shape")
    won = np.where(att, pts >= 80, pts < 80)
    up_a = np.maximum(scores, 0).sum()
    up_b = np.maximum(-scores, 0).sum()
    total = up_a + up_b
    a_pts = float(pts[att].mean()) if att.any() else float("nan")
    b_pts = float(pts[~att].mean()) if (~att).any() else float("nan")
    return {
        "win_rate": float(won.mean()),
        "level_up_rate": float(np.mean(scores > 0)),
        "leveling_rate": float(up_a / total) if total > 0 else float("nan"),
        "aapd": a_pts - b_pts,
        "a_attack_points": a_pts,
        "b_attack_points": b_pts,
        "levels_a": float(up_a),
        "levels_b": float(up_b),
    }


def leveling_rate(per_game) -> tuple[float, float]:
    """Leveling rate (A's levels / both teams' levels) of A's level rewards ``per_game``
    [games][deals] and its standard error over deals (ratio estimator)."""
    s = np.asarray(per_game, np.float64)
    a = np.maximum(s, 0).sum(axis=0)
    t = np.abs(s).sum(axis=0)
    n = a.shape[0]
    if t.sum() == 0:
        return float("nan"), float("nan")
    rate = a.sum() / t.sum()
    if n < 2:
        return float(rate), float("nan")
    se = np.sqrt(np.sum((a - rate * t) ** 2) / (n * (n - 1))) / t.mean()
    return float(rate), float(se)

def summary(env, scores, a, b, a_attacks, attack_score):
    return tractor_metrics(scores, a_attacks, attack_score)

SCHEME = Scheme(team_swap, "team", summary, outcome)


def scheme(env) -> Scheme:
    return SCHEME
