"""Tractor legality: the action ids and the legal action mask of a state (:func:`legal_mask`),
phase by phase: declarations and passes, burial, chaodi, and the card sub-actions of a lead or a
follow being built.  Pure functions of a :class:`~cardjax.games.tractor.env.State` and the env's
``throws`` option; the env's ``_legal_mask`` calls :func:`legal_mask`.  The actions are listed in
:mod:`cardjax.games.tractor.env`."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from cardjax.games.tractor import moves as tm
from cardjax.gate import gated
from cardjax.games.tractor.moves import PLAY

Array = jax.Array

NUM_TYPES = tm.NUM_TYPES
NUM_ACTIONS = 66
DONE, PASS = 54, 55
DECL_SINGLE, DECL_PAIR, DECL_XJ, DECL_DJ = 56, 60, 64, 65
# chaodi rank of a pair declaration of suit S, H, D, C; XJ pair 4, DJ pair 5
CHAODI_SUIT_KEY = np.array([3, 2, 0, 1], np.int32)


def legal_mask(s, throws: bool = True) -> Array:
    """bool[66]: the legal actions of the seat to act in ``s`` (all of them once the hand is
    over); ``throws``: the env's option (``False``: a lead is one unit)."""
    masks = jnp.stack([decl_mask(s), bury_mask(s), chaodi_mask(s),
                       play_mask(s, throws, s.phase == PLAY), jnp.ones(NUM_ACTIONS, bool)])
    return masks[jnp.clip(s.phase, 0, 4)]


def decl_mask(s) -> Array:
    """bool[66] of the declaration phase: pass, or a strictly stronger declaration."""
    seat = s.current_player
    hand = s._hands[seat].astype(jnp.int32)
    lv = 13 * jnp.arange(4) + s.level
    kinds = jnp.array([1] * 4 + [2] * 4 + [3, 4])
    suits = jnp.array([0, 1, 2, 3] * 2 + [4, 4])
    have = jnp.concatenate([hand[lv] >= 1, hand[lv] == 2, hand[52:53] == 2, hand[53:54] == 2])
    own = s.decl_seat == seat
    reinforce = (s.decl_kind == 1) & (kinds == 2) & (suits == s.decl_suit)
    ok = have & jnp.where(own, reinforce, kinds > s.decl_kind)
    return jnp.concatenate([jnp.zeros(PASS, bool), jnp.ones(1, bool), ok])


def chaodi_mask(s) -> Array:
    """bool[66] of the chaodi phase: pass, or overturn with a stronger pair."""
    hand = s._hands[s.current_player].astype(jnp.int32)
    lv = 13 * jnp.arange(4) + s.level
    cur = jnp.where(s.decl_kind == 2, jnp.asarray(CHAODI_SUIT_KEY)[jnp.minimum(s.decl_suit, 3)],
                    jnp.where(s.decl_kind >= 3, s.decl_kind + 1, -1))
    keys = jnp.concatenate([jnp.asarray(CHAODI_SUIT_KEY), jnp.array([4, 5])])
    have = jnp.concatenate([hand[lv] == 2, hand[52:53] == 2, hand[53:54] == 2])
    ok = have & (keys > cur)
    return jnp.concatenate([jnp.zeros(PASS, bool), jnp.ones(1, bool),
                            jnp.zeros(DECL_PAIR - DECL_SINGLE, bool), ok])


def bury_mask(s) -> Array:
    """bool[66] of the burial: any card of the burier's hand."""
    hand = s._hands[s.current_player]
    return jnp.concatenate([hand > 0, jnp.zeros(NUM_ACTIONS - NUM_TYPES, bool)])


def play_mask(s, throws: bool = True, need=True) -> Array:
    """bool[66] of the trick phase.  ``need``: whether it is the trick phase; the lead and
    follow arithmetic runs only for the games that need it (:mod:`~cardjax.gate`),
    the others get a placeholder."""
    eff, order, slot = tm.context(s.level, s.trump)
    seat = s.current_player
    hand = tm.pad(s._hands[seat])
    part = tm.pad(s.trick[seat])
    leading = s.num_in_trick == 0
    # a lead: cards of one effective suit (or one unit), then done
    psuit, _ = tm.suit_of_play(part, eff)
    empty = jnp.sum(part) == 0
    free_cards = (hand - part > 0) & (empty | (eff == psuit))
    free_done = ~empty
    if throws:
        lead_cards, lead_done = free_cards, free_done
    else:
        lead_cards, lead_done = gated(need & leading, _unit_prefix, _no_unit_prefix,
                                      hand, part, s.level, s.trump, share=2)
    hand_u, part_u, n_u, k_u, pairs_u = follow_unit(s, hand, part)
    follow = gated(need & ~leading, _follow_cards, _no_cards, hand_u, part_u, s.lead_suit,
                   n_u, k_u, pairs_u, s.level, s.trump, share=2)
    cards = jnp.where(leading, lead_cards, follow)[:NUM_TYPES]
    done = leading & lead_done
    return jnp.concatenate([cards, done[None], jnp.zeros(NUM_ACTIONS - DONE - 1, bool)])


def follow_unit(s, hand, part):
    """(hand, part, n, k1, pairs) that :func:`~cardjax.games.tractor.moves.follow_mask` matches the follow
    being built against.  A lead with one tractor or none is matched as a whole.  Against
    several tractors the follow is built unit by unit, as the rules match it: each tractor of
    the lead in turn (longest first) from the cards not yet used, then the lead's other
    pairs and singles together; ``follow_base`` holds the cards of the finished units."""
    tr = s.lead_tractors
    multi = tr[1] >= 2
    ends = jnp.cumsum(2 * tr)  # where each tractor unit's cards end
    base = tm.pad(jnp.where(multi, s.follow_base, 0))
    u = jnp.minimum(jnp.sum(jnp.sum(part) >= ends), tm.MAX_TRACTORS - 1)
    in_tractor = jnp.sum(part) < ends[-1]
    k_u = jnp.where(in_tractor, tr[u], 0)
    n_u = jnp.where(in_tractor, 2 * tr[u], s.lead_n - ends[-1])
    pairs_u = jnp.where(in_tractor, tr[u], s.lead_pairs - jnp.sum(tr))
    return (hand - base, part - base, jnp.where(multi, n_u, s.lead_n),
            jnp.where(multi, k_u, s.lead_k1), jnp.where(multi, pairs_u, s.lead_pairs))


# the gated parts, as functions of their inputs (cardjax.gate.gated), each with its placeholder
def _follow_cards(hand, part, suit, n, k1, pairs, level, trump):
    eff, _, slot = tm.context(level, trump)
    return tm.follow_mask(hand, part, suit, n, k1, pairs, eff, slot)


def _no_cards(hand, part, suit, n, k1, pairs, level, trump):
    return jnp.zeros(tm.PAD, bool)


def _unit_prefix(hand, part, level, trump):
    eff, _, slot = tm.context(level, trump)
    return tm.unit_prefix_mask(hand, part, eff, slot)


def _no_unit_prefix(hand, part, level, trump):
    return jnp.zeros(tm.PAD, bool), jnp.bool_(False)
