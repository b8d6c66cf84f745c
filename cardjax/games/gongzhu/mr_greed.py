"""Mr Greed: sampled worlds, a look-ahead to the end of the current trick, burden values.

For the seat to act (ScrofaZero paper, section 5.1 and supplementary 8.2):

1. sample ``num_worlds`` deals of the unseen cards consistent with everything the seat has seen
   (``env.sample_hidden``: own hand, play so far, revealed voids);
2. for every legal card and every world, play the rest of the trick with each later seat choosing
   greedily — the card that is best for its team if the trick ended right after it (the trick's
   value to whoever would take it, signed by team, plus the burden it sheds);
3. score each card by the mean, over worlds, of what the finished trick is worth to the seat's
   team (a trick taken by the other team counts with the opposite sign), plus the burden value
   shed by playing it (paper table 4: SA -50, SK -30, CA -20, CK -15, CQ -10, CJ -5, DA +30,
   DK +20, DQ +10 while SQ / C10 / DJ respectively is still out);
4. break near-ties: during the first two tricks prefer cards of short suits; when leading prefer
   low cards (a low lead rarely wins the trick); otherwise shed high cards.

Everything is array arithmetic over the (at most 13) legal cards, the worlds and the (at most 13)
replies, so a batch of Greeds runs under one ``jit(vmap(...))``.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp

from cardjax.core import Agent
from cardjax.games.gongzhu.features import (
    Position, card_summary, compact, gain,
)
from cardjax.games.gongzhu import env as gz

SHORT_SUIT_WEIGHT = 2.0  # points per card of the suit, first two tricks
RANK_TIE_BREAK = 0.1  # points per rank: shed high cards when nothing else differs
LEAD_RANK_TIE_BREAK = -1.0  # leading, prefer low cards: they rarely win the trick


def card_values(env, key, state, num_worlds: int = 20):
    """(cards int32[13], valid bool[13], value float32[13]) for the legal cards of the seat to act."""
    pos = Position(env, state)
    p = pos.seat
    keys = jax.random.split(key, num_worlds)
    worlds = jax.vmap(env.sample_hidden, in_axes=(0, None, None))(keys, state, p)
    unplayed = state.played_by < 0
    seats = jnp.arange(gz.NUM_PLAYERS, dtype=worlds._owner.dtype)
    hands = (worlds._owner[:, None, :] == seats[None, :, None]) & unplayed  # [W, 4, 52]
    hand_cards, hand_ok = compact(hands)  # [W, 4, 13]

    cand, cand_ok = compact(pos.legal)  # [C]
    led = jnp.where(pos.leading, cand // 13, pos.led)  # [C]
    beats = (cand // 13 == led) & (cand % 13 > pos.best_rank)
    best_rank = jnp.where(beats, cand % 13, pos.best_rank)
    best_seat = jnp.where(beats, p, pos.best_seat)
    summary = pos.trick_summary + card_summary(cand)  # [C, 4]

    # Per (candidate, world) from here on.
    shape = (cand.shape[0], num_worlds)
    led = jnp.broadcast_to(led[:, None], shape)
    best_rank = jnp.broadcast_to(best_rank[:, None], shape)
    best_seat = jnp.broadcast_to(best_seat[:, None], shape)
    summary = jnp.broadcast_to(summary[:, None, :], shape + (4,))
    for j in range(1, 4):  # the seats after p, while the trick is not full
        active = j <= 3 - pos.k
        q = (p + j) % gz.NUM_PLAYERS
        opts = jnp.broadcast_to(hand_cards[:, q][None], shape + (hand_cards.shape[-1],))
        held = hand_ok[:, q][None]  # [1, W, R]
        follow = held & (opts // 13 == led[..., None])  # followers must follow suit if they can
        ok = jnp.where(jnp.any(follow, axis=-1, keepdims=True), follow, held)
        o_beats = (opts // 13 == led[..., None]) & (opts % 13 > best_rank[..., None])
        o_seat = jnp.where(o_beats, q, best_seat[..., None])
        o_summary = summary[..., None, :] + card_summary(opts)
        o_sign = jnp.where(pos.teams[o_seat] == pos.teams[q], 1.0, -1.0)
        o_value = o_sign * gain(pos.piles[o_seat], o_summary) - pos.burden(opts)
        o_value = o_value + RANK_TIE_BREAK * (opts % 13)
        pick = jnp.argmax(jnp.where(ok, o_value, -jnp.inf), axis=-1)[..., None]
        card = jnp.take_along_axis(opts, pick, axis=-1)[..., 0]
        o_rank = jnp.where(o_beats, opts % 13, best_rank[..., None])
        best_rank = jnp.where(active, jnp.take_along_axis(o_rank, pick, -1)[..., 0], best_rank)
        best_seat = jnp.where(active, jnp.take_along_axis(o_seat, pick, -1)[..., 0], best_seat)
        summary = jnp.where(active, summary + card_summary(card), summary)

    sign = jnp.where(pos.teams[best_seat] == pos.team, 1.0, -1.0)
    trick_value = jnp.mean(sign * gain(pos.piles[best_seat], summary), axis=1)  # [C]
    suit_len = jnp.sum(pos.hand.reshape(4, 13), axis=1)[cand // 13]
    early = pos.tricks_done < 2
    value = (
        trick_value
        - pos.burden(cand)
        - jnp.where(early, SHORT_SUIT_WEIGHT * suit_len, 0.0)
        + jnp.where(pos.leading, LEAD_RANK_TIE_BREAK, RANK_TIE_BREAK) * (cand % 13)
    )
    return cand, cand_ok, value


def act(env, num_worlds, params, key, state):
    del params
    cand, ok, value = card_values(env, key, state, num_worlds)
    choice = cand[jnp.argmax(jnp.where(ok, value, -jnp.inf))]
    if env.exposure:  # the baselines expose nothing
        choice = jnp.where(state.exposing < gz.NUM_PLAYERS, gz.DONE_EXPOSING, choice)
    # At a finished game the mask is all True and any action is a no-op.
    return jnp.where(state.terminated, 0, choice).astype(jnp.int32)


def make(env, num_worlds: int = 20) -> Agent:
    return Agent("greed", partial(act, env, num_worlds))
