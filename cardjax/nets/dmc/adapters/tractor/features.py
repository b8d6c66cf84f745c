"""What Tractor's DMC candidates and states are told beyond the observation: the trick's public
facts, who would hold the trick after each completing card (and whether safely), the leads and
throws no unseen card can beat, and the rule player's advice."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from cardjax.gate import gated
from cardjax.games.tractor import env as tractor
from cardjax.games.tractor import leads as tl
from cardjax.games.tractor import moves as tm
from cardjax.games.tractor import observe as tractor_observe
from cardjax.games.tractor import rule as tractor_rule
from cardjax.games.tractor import state_facts


def trick_facts(state, dynamic: bool = False):
    """float32[59], public facts of the trick phase a network would otherwise have to work out
    from the card blocks: the cards the acting seat has not seen /2 (54, in the dynamic places
    if ``dynamic``), the seat holding the trick relative to it (4: self, next, partner, previous;
    zeros while no play is complete) and the points on the table /200 (1)."""
    me = state.current_player
    unseen = state_facts.unseen_cards(state, me).astype(jnp.float32) / 2.0
    if dynamic:
        unseen = tractor_observe.cards_to_dynamic(unseen, state.level, state.trump)
    holder = state_facts.trick_holder(state)
    rel = (jnp.arange(4) == (holder - me) % 4) & (holder >= 0)
    points = state_facts.table_points(state)
    return jnp.concatenate([unseen, rel.astype(jnp.float32),
                            (points / 200.0)[None].astype(jnp.float32)])


def lead_boss(state):
    """bool[tractor_leads.NUM_ACTIONS]: at a trick's start, the leads (singles, pairs, tractors)
    that no card the seat has not seen can beat in their suit -- no unseen card (pair, for a pair
    or a tractor) above the unit's top -- and, in a side suit, that no opponent has shown void."""
    me = state.current_player
    eff, order, _ = tm.context(state.level, state.trump)
    eff, order = eff[:tractor.NUM_TYPES], order[:tractor.NUM_TYPES]
    unseen = state_facts.unseen_cards(state, me)
    boss1, boss2 = tm.unbeaten(unseen, eff, order)
    top = jnp.minimum(tl.unit_tops(state), tractor.NUM_TYPES - 1)
    paired = jnp.asarray(tl.UNIT_PAIRS) > 0
    boss = jnp.where(paired, boss2[top], boss1[top])
    opp_void = state.voids[(me + 1) % 4] | state.voids[(me + 3) % 4]
    ruffable = (eff[top] != tm.TRUMP) & opp_void[eff[top]]
    a = jnp.arange(tl.NUM_ACTIONS)
    lead = (a < tractor.NUM_TYPES) | (a >= tl.PAIR0)
    return boss & ~ruffable & lead & tl.lead_start(state)


def throw_boss(state):
    """bool[tractor_leads.NUM_THROWS]: at a trick's start, the throws no unseen cards could make
    fail (:func:`~cardjax.games.tractor.leads.throw_safe`) that no opponent's shown void can ruff."""
    me = state.current_player
    safe = gated(tl.lead_start(state), tl.throw_safe, _unsafe_throws, state)
    opp_void = state.voids[(me + 1) % 4] | state.voids[(me + 3) % 4]
    suit = jnp.arange(tl.NUM_THROWS) % 5
    ruffable = (suit != tm.TRUMP) & opp_void[jnp.minimum(suit, 3)]
    return safe & ~ruffable & tl.lead_start(state)


def _unsafe_throws(state):
    return jnp.zeros(tl.NUM_THROWS, bool)


CONSEQUENCES = 4  # a card completes no follow; it completes one held by me / partner / opponent
SECURE_CONSEQUENCES = 6  # ... and by me / partner while the next seat may still take it


def consequence_codes(state, security: bool = False):
    """int32[66]: per action, 0 unless it is a card that completes the seat's follow, then who
    holds the trick after it: 1 the seat, 2 its partner, 3 an opponent
    (:func:`state_facts.completing_holders`); with ``security``, 4 the seat and 5 its partner where
    the next seat may still take the trick (:func:`holds_unsafely`)."""
    holder = state_facts.completing_holders(state)
    rel = (holder - state.current_player) % 4
    code = jnp.where(holder < 0, 0, jnp.where(rel == 0, 1, jnp.where(rel == 2, 2, 3)))
    if security:
        code = jnp.where((code == 1) | (code == 2), code + 3 * holds_unsafely(state, holder), code)
    return jnp.concatenate([code, jnp.zeros(tractor.NUM_ACTIONS - tractor.NUM_TYPES, code.dtype)])


def holds_unsafely(state, holder):
    """bool[54]: for each card type, whether the seat after the seat to act (an opponent) may
    still beat the play that holds the trick were the seat's follow completed with it (holder:
    ``holder[t]``, the seat itself or its partner) -- the rule player's test,
    :func:`~cardjax.games.tractor.moves.at_risk`.  Leads other than a single or a pair, and the last seat, count
    as safe."""
    me = state.current_player
    eff, order, _ = tm.context(state.level, state.trump)
    eff, order = eff[:tractor.NUM_TYPES], order[:tractor.NUM_TYPES]
    unseen = state_facts.unseen_cards(state, me)
    need = jnp.where(state.lead_pairs > 0, 2, 1)
    simple = (state.lead_k1 == 0) & (state.lead_n == need)
    lsuit = state.lead_suit
    next_void = state.voids[(me + 1) % 4, lsuit]

    def at_risk(suit, key):
        return tm.at_risk(suit, key, unseen, eff, order, need, lsuit, next_void)

    partner = state.trick[(me + 2) % 4]
    top = jnp.argmax(jnp.where(partner > 0, order, -1))
    mine = jax.vmap(at_risk)(eff, order)  # the seat holds with the card itself
    risk = jnp.where((holder - me) % 4 == 0, mine, at_risk(eff[top], order[top]))
    return risk & simple & (state.num_in_trick < 3)


def rule_advice(env, state):
    """bool[66]: in a follow, the card the rule player (:mod:`cardjax.games.tractor.rule`,
    which reads only what the seat may know) would play next; nothing elsewhere."""
    a = tractor_rule.make(env).act(None, None, state)
    follow = (state.phase == tractor.PLAY) & (state.num_in_trick > 0)
    return (jnp.arange(tractor.NUM_ACTIONS) == a) & follow
