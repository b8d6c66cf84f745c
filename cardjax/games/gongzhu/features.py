"""What the Gongzhu baseline players compute about a position, from the acting seat's view.

Pile values use a summary of a set of cards — (points, hearts, holds C10, holds another score
card) — so that "what is this trick worth to whoever takes it" is a few scalar operations instead
of a pass over 52 cards.  The formula is the one of :func:`cardjax.games.gongzhu.env.pile_scores`
without the exposure option's doublings (the baselines value cards as in the plain game).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from cardjax import shuffle
from cardjax.games.gongzhu import env as gz

HAND_SIZE = 13
IS_OTHER_SCORE = gz.IS_SCORE & (np.arange(gz.NUM_CARDS) != gz.C10)

# Mr Greed's burden values (ScrofaZero paper, table 4): what holding the card is worth while the
# score card it relates to (SQ for spades, DJ for diamonds, C10 for clubs) is still out.
BURDEN = np.zeros(gz.NUM_CARDS, np.float32)
for _card, _value in {"SA": -50, "SK": -30, "CA": -20, "CK": -15, "CQ": -10, "CJ": -5,
                      "DA": 30, "DK": 20, "DQ": 10}.items():
    BURDEN[gz._cards.card_index(_card)] = _value
BURDEN_KEY = np.array([gz.SQ, -1, gz.DJ, gz.C10])  # score card behind each suit's burdens


def summarize(cards: jax.Array) -> jax.Array:
    """float32[..., 4] summary of bool[..., 52] card sets: points, hearts, C10, other score card."""
    cards = cards.astype(jnp.float32)
    return jnp.stack([
        cards @ gz.POINTS,
        cards @ gz.IS_HEART.astype(np.float32),
        cards[..., gz.C10],
        jnp.minimum(cards @ IS_OTHER_SCORE.astype(np.float32), 1.0),
    ], axis=-1)


def card_summary(card: jax.Array) -> jax.Array:
    """Summary of single cards given as indices (any shape; -1 = no card)."""
    c = jnp.maximum(card, 0)
    present = (card >= 0).astype(jnp.float32)
    return present[..., None] * jnp.stack([
        jnp.asarray(gz.POINTS)[c],
        jnp.asarray(gz.IS_HEART, jnp.float32)[c],
        (c == gz.C10).astype(jnp.float32),
        jnp.asarray(IS_OTHER_SCORE, jnp.float32)[c],
    ], axis=-1)


def merge(a: jax.Array, b: jax.Array) -> jax.Array:
    s = a + b
    return s.at[..., 3].set(jnp.minimum(s[..., 3], 1.0))


def value(summary: jax.Array) -> jax.Array:
    """Pile score of a summary (the rules' formula)."""
    pts, hearts, c10, other = (summary[..., i] for i in range(4))
    s = pts + jnp.where(hearts >= 13, 400.0, 0.0)
    return jnp.where(c10 > 0, jnp.where(other > 0, 2.0 * s, 50.0), s)


def gain(pile: jax.Array, trick: jax.Array) -> jax.Array:
    """Change of a pile's score when it collects the trick."""
    return value(merge(pile, trick)) - value(pile)


def compact(mask: jax.Array, size: int = HAND_SIZE) -> tuple[jax.Array, jax.Array]:
    """The (at most ``size``) True indices of ``mask`` in increasing order, and their validity."""
    idx = shuffle.stable_order(~mask, 2, size)  # argsort(~mask, stable=True), without its sort
    return idx, jnp.take_along_axis(mask, idx, axis=-1)


class Position:
    """Public facts about ``state`` for the seat to act, computed once per decision."""

    def __init__(self, env, state):
        s = state
        self.seat = s.current_player
        self.team = jnp.asarray(env.teams)[self.seat]
        self.teams = jnp.asarray(env.teams)
        self.k = s.num_played % 4  # cards already on the table
        self.leading = self.k == 0
        self.hand = env.hand(s, self.seat)
        lead_card = jnp.maximum(s.trick[s.leader].astype(jnp.int32), 0)
        self.led = jnp.where(self.leading, -1, lead_card // 13)
        t = s.trick.astype(jnp.int32)
        strength = jnp.where((t >= 0) & (t // 13 == self.led), t % 13, -1)
        self.best_rank = jnp.max(strength)  # -1 when leading
        self.best_seat = jnp.argmax(strength).astype(jnp.int32)
        self.trick_summary = card_summary(t).sum(axis=0)
        self.table = jnp.any(t[:, None] == jnp.arange(gz.NUM_CARDS), axis=0)
        seats = jnp.arange(gz.NUM_PLAYERS, dtype=s.taken_by.dtype)
        self.piles = summarize(s.taken_by[None, :] == seats[:, None])  # [4, 4]
        unplayed = s.played_by < 0
        self.unseen = unplayed & ~self.hand  # cards somebody else still holds
        self.tricks_done = s.num_played // 4
        self.legal = s.legal_action_mask[: gz.NUM_CARDS]

    def burden(self, card: jax.Array) -> jax.Array:
        """Burden value of ``card`` (any shape) while its suit's score card is still out."""
        c = jnp.maximum(card, 0)
        key = jnp.asarray(BURDEN_KEY)[c // 13]
        out = jnp.where(key >= 0, self.unseen[jnp.maximum(key, 0)], False)
        return jnp.where((card >= 0) & out, jnp.asarray(BURDEN)[c], 0.0)
