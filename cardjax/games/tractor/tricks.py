"""Tractor plays on the table: whether a lead (a throw) stands against the other hands, and who
holds a trick -- each play's effective suit, structure against the lead and key, and the trick's
winner.  Pure functions of count vectors (padded to 55 entries), shared by the env, its state
facts (:mod:`~cardjax.games.tractor.state_facts`) and the string helpers; the card tables,
tractor geometry, the units of a play and legal follows are in
:mod:`~cardjax.games.tractor.moves`."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from cardjax.gate import gated
from cardjax.games.tractor.moves import (MAX_TRACTORS, NUM_POS, PAD, TRUMP, chains_fit, context,
                                         pad, pair_runs, suit_of_play, units)


# ---------------------------------------------------------------------------- throws
def throw_check(lead, others, eff, order, slot):
    """Whether a lead ``lead`` (int[55]) stands against the hands ``others`` (int[k, 55]).

    Returns (stands, played int[55], tractors int[6]): a lead of one unit always stands; a throw
    fails when another hand holds, in the lead's suit, a unit of the same shape ranking higher than
    one of the thrown units; then only the smallest failing unit (fewest cards, then lowest order)
    is played.  ``tractors``: the lengths of the tractors in what is played, longest first.
    """
    suit, _ = suit_of_play(lead, eff)
    in_suit = eff == suit
    oth = jnp.where(in_suit[None, :], others, 0)
    # the tractor search only where there can be a tractor
    lens, tops, tmask, pairs, t_fail = gated(jnp.sum(lead == 2) >= 2, _thrown_tractors,
                                             _no_thrown_tractor, lead, oth, suit, eff,
                                             jnp.asarray(slot))
    singles = lead == 1
    n_units = jnp.sum(lens > 0) + jnp.sum(pairs) + jnp.sum(singles)
    big = 99
    # singles: the lowest thrown single against the highest card held by another seat
    low_single = jnp.min(jnp.where(singles, order, big))
    top_card = jnp.max(jnp.where(oth > 0, order[None, :], 0))
    single_fail = top_card > low_single
    low_pair = jnp.min(jnp.where(pairs, order, big))
    top_pair = jnp.max(jnp.where(oth == 2, order[None, :], 0))
    pair_fail = top_pair > low_pair
    t_pick = jnp.argmin(jnp.where(t_fail, lens * 32 + tops, 10_000))
    single_t = jnp.argmin(jnp.where(singles, order, big))
    pair_t = jnp.argmin(jnp.where(pairs, order, big))
    types = jnp.arange(PAD)
    played = jnp.where(single_fail, (types == single_t).astype(jnp.int32),
                       jnp.where(pair_fail, 2 * (types == pair_t).astype(jnp.int32),
                                 2 * tmask[t_pick].astype(jnp.int32)))
    fails = (n_units > 1) & (single_fail | pair_fail | jnp.any(t_fail))
    # tractor lengths of what is played: the lead's, or the one failing tractor's
    t_played = ~single_fail & ~pair_fail
    lens_failed = jnp.zeros_like(lens).at[0].set(jnp.where(t_played, lens[t_pick], 0))
    return ~fails, jnp.where(fails, played, lead), jnp.where(fails, lens_failed, lens)


def _thrown_tractors(lead, oth, suit, eff, slot):
    """(tractor lengths, tops, types, leftover pairs, beaten) of a lead against the other hands'
    cards of its suit ``oth``: its :func:`~cardjax.games.tractor.moves.units` and which of its
    tractors another hand beats."""
    lens, tops, tmask, pairs, _ = units(lead, suit, eff, slot)
    # a tractor is beaten by a run as long in another hand ending higher (the longest run at
    # each position first: XLA's CPU reduction over hands and positions at once is very slow)
    runs = jax.vmap(lambda h: pair_runs(slot[suit], h == 2))(oth)  # [k, 4, 16]
    longest = jnp.max(runs.reshape(-1, NUM_POS), axis=0)
    above = (jnp.arange(NUM_POS) + 3)[None, :] > tops[:, None]  # [6, 16]
    beat = jnp.any((longest[None, :] >= lens[:, None]) & above, axis=1)
    return lens, tops, tmask, pairs, beat & (lens > 0)


def _no_thrown_tractor(lead, oth, suit, eff, slot):
    """:func:`_thrown_tractors` of a lead of fewer than two pairs."""
    z = jnp.zeros(MAX_TRACTORS, jnp.int32)
    return z, z, jnp.zeros((MAX_TRACTORS, PAD), bool), lead == 2, z > 0


# ---------------------------------------------------------------------------- winning
def _play_key(c, suit, k1, lead_pairs, order, slot):
    """The order of the highest card of a one-suit play's largest unit against a lead whose
    longest tractor is ``k1`` pairs: the top of its best chain of ``k1``, its best pair, or its
    best card."""
    return _key_from_runs(c, pair_runs(slot[suit], c == 2), k1, lead_pairs, order)


def _key_from_runs(c, runs, k1, lead_pairs, order):
    # the top of the highest held path of k1 pairs: the highest position a run of k1 reaches
    # (``runs``: the play's pair runs, :func:`~cardjax.games.tractor.moves.pair_runs`)
    reach = jnp.any(runs >= k1, axis=0)
    key_chain = jnp.max(jnp.where(reach, jnp.arange(NUM_POS) + 3, 0))
    key_pair = jnp.max(jnp.where(c == 2, order, 0))
    return jnp.where(k1 >= 2, key_chain, jnp.where(lead_pairs > 0, key_pair, _card_key(c, order)))


def _card_key(c, order):
    # against a lead without pairs: the order of the play's best card
    return jnp.max(jnp.where(c > 0, order, 0))


def _chains_fit_each(plays, suits, tractors, slot, one_chain):
    """:func:`~cardjax.games.tractor.moves.chains_fit` of the lead's tractors in each of
    ``plays`` (int[k, 55])."""
    return jax.vmap(lambda x, s: chains_fit(x == 2, s, slot, tractors))(plays, suits)


def _one_chain(plays, suits, tractors, slot, one_chain):
    """:func:`_chains_fit_each` against one tractor or none, given (``one_chain``)."""
    return one_chain


def play_facts(plays, tractors, lead_pairs, eff, order, slot):
    """``(suit int[k], fits bool[k], key int[k])`` of plays ``plays`` (int[k, 55]) in a trick led
    with the tractor lengths ``tractors`` and ``lead_pairs`` pairs: each play's effective suit,
    whether it is of one suit with the lead's structure (its pairs and tractors), and its key
    within its suit.  Each row is judged on its own, so a trick's rows and any variants of one
    of them are judged alike (:func:`trick_winner`, :func:`best_of_facts`)."""
    n = plays.shape[0]
    xsuit, one = jax.vmap(lambda x: suit_of_play(x, eff))(plays)
    runs = jax.vmap(lambda x, xs: pair_runs(slot[xs], x == 2))(plays, xsuit)  # [k, 4, 16]
    keys = jax.vmap(lambda x, r: _key_from_runs(x, r, tractors[0], lead_pairs, order))(
        plays, runs)
    # against one tractor (or none) the structure test is a run of its length; several are packed
    k1 = tractors[0]
    one_chain = (k1 == 0) | (jnp.max(runs.reshape(n, -1), axis=1) >= k1)
    chains = gated(tractors[1] >= 2, _chains_fit_each, _one_chain, plays, xsuit, tractors,
                   jnp.asarray(slot), one_chain)
    fits = one & (jnp.sum(plays == 2, axis=1) >= lead_pairs) & chains
    return xsuit, fits, keys


def best_of_facts(xsuit, fits, keys):
    """Index, in playing order, of the play that holds a trick whose plays' facts
    (:func:`play_facts`, the lead first) are given: a follower takes it with a fitting play of the
    led suit or of trump that beats the best so far (trump over plain; within a suit a higher
    key; ties keep the earlier player).  The lead's own structure is never judged."""
    lsuit = xsuit[0]
    bsuit, bkey, win = lsuit, keys[0], jnp.int32(0)
    for i in range(1, 4):
        take = takes(xsuit[i], fits[i], keys[i], lsuit, bsuit, bkey)
        bsuit, bkey, win = (jnp.where(take, xsuit[i], bsuit), jnp.where(take, keys[i], bkey),
                            jnp.where(take, i, win))
    return win


def takes(xsuit, fits, key, lead_suit, hold_suit, hold_key):
    """Whether a follow with the facts ``(xsuit, fits, key)`` (:func:`play_facts`) takes a trick
    led in ``lead_suit`` from the play holding it (its suit and key): a fitting play of the led
    suit or of trump that beats it (trump over plain; within a suit a higher key)."""
    valid = fits & ((xsuit == lead_suit) | (xsuit == TRUMP))
    return valid & (((xsuit == TRUMP) & (hold_suit != TRUMP))
                    | ((xsuit == hold_suit) & (key > hold_key)))


def lead_key(lead, suit, tractors, lead_pairs, order, slot):
    """The key of a lead (int[55] of effective suit ``suit``; its own tractors and pairs, as
    :func:`~cardjax.games.tractor.moves.lead_info` gives them): what a follow of its suit must
    beat (:func:`play_facts`'s key, without the structure test a lead is never put to)."""
    return _play_key(lead, suit, tractors[0], lead_pairs, order, slot)


def trick_winner(plays, leader, tractors, lead_pairs, eff, order, slot):
    """Index (seat) of the winner of a trick ``plays`` (int[4, 55], rows by seat), led by
    ``leader`` (its tractor lengths ``tractors``, its pairs ``lead_pairs``); the rules'
    pseudo-code, :func:`best_of_facts` of the plays in playing order."""
    seats = (leader + jnp.arange(4)) % 4
    ordered = plays[seats]  # in playing order, the lead first
    return seats[best_of_facts(*play_facts(ordered, tractors, lead_pairs, eff, order, slot))]


# ---------------------------------------------------------------------------- the env's gated calls
# The env's expensive calls per game, as functions of their inputs with the context looked up
# from the level and trump (cardjax.gate.gated takes every traced value as an argument), each
# with the placeholder computed for the games it does not apply to.
def throw_check_at(lead, hands, seat, level, trump):
    """:func:`throw_check` of ``seat``'s lead (int[55]) against the other seats' ``hands``."""
    eff, order, slot = context(level, trump)
    others = jnp.stack([pad(hands[(seat + i) % 4]) for i in (1, 2, 3)])
    return throw_check(lead, others, eff, order, slot)


def no_throw_check(lead, hands, seat, level, trump):
    return jnp.bool_(True), lead, jnp.zeros(MAX_TRACTORS, jnp.int32)


def follow_result(play, lead_suit, tractors, pairs, hold_suit, hold_key, level, trump,
                  need=True):
    """``(takes, suit, key)`` of a complete follow ``play`` (int8[54]) where ``need``: whether it
    takes the trick from the play holding it (:func:`takes`), and its effective suit and key.
    Against a lead without pairs a one-suit play's key is its best card, read here; the pair and
    tractor tests run (gated) only for the follows that could take a lead with pairs."""
    eff, order, _ = context(level, trump)
    p = pad(play)
    xsuit, one = suit_of_play(p, eff)
    key = _card_key(p, order)
    could = need & one & ((xsuit == lead_suit) | (xsuit == TRUMP))
    took, _, pair_key = gated(could & (pairs > 0), follow_takes, no_follow_takes, play,
                              lead_suit, tractors, pairs, hold_suit, hold_key, level, trump)
    plain = pairs == 0
    take = jnp.where(plain, could & takes(xsuit, one, key, lead_suit, hold_suit, hold_key), took)
    return take, xsuit, jnp.where(plain, key, pair_key)


def follow_takes(play, lead_suit, tractors, pairs, hold_suit, hold_key, level, trump):
    """:func:`follow_result` of a follow against any lead, the structure tests included."""
    eff, order, slot = context(level, trump)
    xsuit, fits, key = play_facts(pad(play)[None], tractors, pairs, eff, order, slot)
    return takes(xsuit[0], fits[0], key[0], lead_suit, hold_suit, hold_key), xsuit[0], key[0]


def no_follow_takes(play, lead_suit, tractors, pairs, hold_suit, hold_key, level, trump):
    return jnp.bool_(False), jnp.int32(0), jnp.int32(0)
