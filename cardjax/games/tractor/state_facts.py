"""Functions of a Tractor state that read the position, for trainers, agents and the env (jit
them, or call them inside a jitted function): the seat holding the trick (:func:`trick_holder`),
the points on the table (:func:`table_points`), the holder for each card that would complete
the follow (:func:`completing_holders`), the points each team took between two states
(:func:`point_swing`) and the cards a seat has not seen (:func:`unseen_cards`); also the levels a
final score gains (:func:`level_change`).  The state is :class:`~cardjax.games.tractor.env.State`
(this module does not import the env, which imports it); trick winners come from
:mod:`~cardjax.games.tractor.tricks`."""

from __future__ import annotations


import jax
import jax.numpy as jnp

from cardjax.gate import gated
from cardjax.games.tractor import moves as tm
from cardjax.games.tractor import tricks
from cardjax.games.tractor.moves import BURY, NUM_TYPES, PLAY


Array = jax.Array

NUM_PLAYERS = 4  # the env's seats


# ---------------------------------------------------------------------------- scoring
def level_change(score, levels: str = "standard"):
    """(attackers' gain, defenders' gain) for the attackers' final score A.  Defenders: +3 at 0,
    +2 under 40, +1 under 80.  Attackers (``"standard"``): ``1 + (A - 120) // 40`` from 120 up;
    ``"shengji_plus"`` (the report's code): ``1 + (A - 80) // 40`` from 80 up, one level more
    than the standard table over the whole scale from 80."""
    def_gain = jnp.where(score <= 0, 3, jnp.where(score < 40, 2, jnp.where(score < 80, 1, 0)))
    first = 80 if levels == "shengji_plus" else 120
    att_gain = jnp.where(score >= first, 1 + (score - first) // 40, 0)
    return att_gain.astype(jnp.int32), def_gain.astype(jnp.int32)


# ---------------------------------------------------------------------------- state helpers
def trick_holder(state) -> Array:
    """int32: the seat whose play holds the current trick so far (its complete plays; a
    partial move is left out), or -1 while no play of the trick is complete."""
    return jnp.where((state.phase == PLAY) & (state.num_in_trick > 0), state.holder, -1)


def table_points(state) -> Array:
    """int32: the points of the cards on the table in the current trick (the partial move of the
    seat to act included)."""
    return jnp.sum(state.trick.astype(jnp.int32) * jnp.asarray(tm.POINTS)[:NUM_TYPES])


def _winners_by_card(trick, seat, lead_suit, tractors, pairs, holder, hold_suit, hold_key,
                     level, trump):
    """int32[54]: the trick's holder were ``seat``'s play ``trick[seat]`` completed with one
    more card of each type (the complete plays' holder ``holder`` kept or taken from)."""
    eff, order, slot = tm.context(level, trump)
    variants = tm.pad(trick)[seat][None, :] + jnp.eye(NUM_TYPES, tm.PAD, dtype=jnp.int32)
    xsuit, fits, key = tricks.play_facts(variants, tractors, pairs, eff, order, slot)
    return jnp.where(tricks.takes(xsuit, fits, key, lead_suit, hold_suit, hold_key), seat, holder)


def _no_winners(trick, seat, lead_suit, tractors, pairs, holder, hold_suit, hold_key, level,
                trump):
    return jnp.full(NUM_TYPES, -1, jnp.int32)


def completing_holders(state) -> Array:
    """int32[54]: for each card type, the seat that would hold the trick if the seat to act
    completed its follow with that card (the env's own trick-winner code); -1 where that card
    would not complete a follow (leads, the earlier cards of a several-card follow, other
    phases).  Whether a legal card is held is not checked: read it with the legal mask."""
    seat = state.current_player
    completes = ((state.phase == PLAY) & (state.num_in_trick > 0)
                 & (jnp.sum(state.trick[seat], dtype=jnp.int32) + 1 == state.lead_n))
    held = gated(completes, _winners_by_card, _no_winners, state.trick, seat, state.lead_suit,
                 state.lead_tractors, state.lead_pairs, state.holder, state.hold_suit,
                 state.hold_key, state.level, state.trump)
    return jnp.where(completes, held, -1).astype(jnp.int32)


def point_swing(prev, nxt) -> Array:
    """int32[4]: the points each seat's team took between two states (tricks, failed-throw
    penalties, the final kitty bonus) minus the points the other team took."""
    att = ((nxt.attacker_points - prev.attacker_points) + (nxt.penalty - prev.penalty)
           + (nxt.kitty_bonus - prev.kitty_bonus)) - (nxt.defender_points - prev.defender_points)
    attacker = (jnp.arange(NUM_PLAYERS) % 2) != (nxt.dealer % 2)
    return jnp.where(attacker, att, -att).astype(jnp.int32)


def unseen_cards(state, seat) -> Array:
    """int32[54]: the copies of each type ``seat`` has not seen: 2 less its hand, every card
    played (the current trick's finished plays included) and the kitty if it buried it."""
    seen = state._hands[seat].astype(jnp.int32) + jnp.sum(state.played.astype(jnp.int32), axis=0)
    own_kitty = (state.burier == seat) & (state.phase >= BURY)
    seen = seen + jnp.where(own_kitty, state._kitty.astype(jnp.int32), 0)
    return jnp.clip(2 - seen, 0, 2)
