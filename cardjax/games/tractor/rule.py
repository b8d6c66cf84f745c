"""Tractor rule player: simple club heuristics as array arithmetic (no Python branching on traced
values; jit/vmap-able, one state per call).

``act(params, key, state)`` is deterministic (``params`` and ``key`` are unused) and reads what
the acting seat may know: its own hand (``state._hands[seat]``), its partial move
(``state.trick[seat]``), the kitty only if it buried it, and public fields (cards played, the
trick, shown voids, level, trump, dealer, declaration).  It is called at every sub-step of a move
with the same ``current_player``: each call decides the whole intended move again from state that
does not change while the move is built (the hand, the other seats' plays) and emits the next card
of it that the legal mask still allows, so the sub-actions of one move are consistent.  Every
action is checked against the mask; the safety net is the lowest-ranked legal card (then done /
pass / the first legal action).

Declaration: the longest natural suit of the cards dealt so far (ties: more level cards, then the
lower suit index); declare a pair of its level card if legal, else a single, else pass.  Never
overcall the partner's standing declaration.

Burial (one card per sub-action): the held card of least cost, cost = trump 1000, point card
200 + points, a pair 30, the top plain rank (order 14: an A, a K at level A) 25, 6 x (cards left
in its effective suit), its order: low non-point side-suit cards of short suits go first, so short
side suits are voided.

Chaodi: always pass.

Leading (one unit per lead, so a lead never fails as a throw).  By priority:

1. a side-suit pair that is the boss pair (no unseen pair above it in its suit) or the top of a
   tractor, when no opponent has shown a void in that suit: the whole tractor run down from it
   (``k`` consecutive pairs), the longest / highest first;
2. a side-suit boss single (no unseen card above it; an A, or a K once both As are out ...), no
   opponent void in the suit;
3. a boss pair of trumps;
4. otherwise a low single: cost = order + 40 if a point card (+ its points) + 60 if trump
   + 3 x suit length + 10 if it breaks a pair - 15 if the partner has shown a void there (and no
   opponent has).

"Unseen" cards: 2 copies minus those in hand, played, and (for the burier) in the kitty.

Following (``n`` cards led).  The current winner of the trick is the env's own, kept in the state
(``holder``, with its play's suit and key).  A play is
*secure* when no opponent who plays after this seat can beat it: for a play in the led suit no
unseen card (pair, for pair structure) above its key and, in a side suit, no remaining opponent
known void in it; for a ruff, not (a remaining opponent known void in the led suit and an unseen
higher trump).

* Single or pair leads (``n = 1`` or one pair): if an opponent holds the trick, or the partner
  holds it insecurely, look for a card (pair) that beats the best play: in the led suit, or a
  trump ruff when void in the led suit.  Playing last: take it with the candidate worth most
  points, then the lowest; else with the lowest *secure* candidate.  Ruffs are made only when the
  trick holds points; in-suit beats always when last or secure.
* Otherwise, partner secure (or winning with this seat last): feed points: the legal card with the
  least cost ``order + 40 x trump - 8 x points + 6 if it breaks a pair`` (10s and Ks first, then
  5s, low cards rather than high ones).
* Else play low: the legal card with the least cost ``order + 40 x trump + 8 x points + 6 if it
  breaks a pair + suit length`` (low non-point side cards first, short suits first when
  discarding).

Multi-card leads (tractors, throws) are followed by the same feed / low choice card by card; the
mask keeps the structure legal (no attempt to beat or ruff them).

Strength: against random play in the Tractor duplicate arena (``cardjax arena --game tractor
--a rule --b random --deals 512 --seed 1``, default rules) it wins 94% of the hands, takes 99% of
the levels (leveling rate 0.990) with AAPD +115 points (it attacks for 156 points on average,
random for 41); the ShengJi+ report's DMC agent has leveling rate 0.976 and AAPD +125 against
random (its own level table, ``levels="shengji_plus"``: one level more for the attackers at every
score from 80 up, so its leveling rates are not directly comparable).  Against itself every deal
cancels exactly: the player is deterministic, so both games of a deal are the same game with the
teams' names swapped.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from cardjax.core import Agent
from cardjax.games.tractor import env as T
from cardjax.games.tractor import state_facts
from cardjax.games.tractor import moves as tm

N = tm.NUM_TYPES
_POINTS = np.asarray(tm.POINTS[:N], np.int32)
_NATURAL_SUIT = np.concatenate([np.arange(52) // 13, [4, 4]]).astype(np.int32)
_BIG = 1 << 20


def _argmin_where(ok, cost):
    """(index, any): the index of the least ``cost`` where ``ok`` (lowest index on ties)."""
    c = jnp.where(ok, cost, _BIG)
    return jnp.argmin(c).astype(jnp.int32), jnp.any(ok)


def declare_action(s, hand):
    """int32: declaration-phase action (a declaration or pass)."""
    me = s.current_player
    mask = s.legal_action_mask
    suit_len = jnp.zeros(5, jnp.int32).at[jnp.asarray(_NATURAL_SUIT)].add(hand)[:4]
    level_cards = hand[13 * jnp.arange(4) + s.level]
    key = suit_len * 16 + level_cards * 4 + (3 - jnp.arange(4))
    target = jnp.argmax(key)
    pair_a = T.DECL_PAIR + target
    single_a = T.DECL_SINGLE + target
    partner_holds = (s.decl_seat >= 0) & (s.decl_seat == (me + 2) % 4)
    a = jnp.where(mask[pair_a], pair_a, jnp.where(mask[single_a], single_a, T.PASS))
    return jnp.where(partner_holds, T.PASS, a).astype(jnp.int32)


def bury_action(hand, eff, order):
    """int32: the card to bury next (see the module doc)."""
    side = eff != tm.TRUMP
    suit_len = jnp.zeros(5, jnp.int32).at[eff].add(hand)
    pts = jnp.asarray(_POINTS)
    cost = (1000 * ~side + jnp.where(pts > 0, 200 + pts, 0) + 30 * (hand == 2) + 25 * (order == 14)
            + 6 * suit_len[eff] + order)
    t, _ = _argmin_where(hand > 0, cost)
    return t


def lead_want(s, me, hand, eff, order, slot, unseen):
    """int32[54]: the intended lead (one unit) as a count vector."""
    pts = jnp.asarray(_POINTS)
    side = eff != tm.TRUMP
    pair = hand == 2
    voids = s.voids  # [4, 5]
    opp_void = voids[(me + 1) % 4] | voids[(me + 3) % 4]  # [5]
    partner_void = voids[(me + 2) % 4]
    boss1, boss2 = tm.unbeaten(unseen, eff, order)
    # tractor runs in the plain suits: pairs at consecutive positions, counted downward
    hand55 = tm.pad(hand)
    types = slot[:4, :12, 0]  # [4 suits, 12 positions]; the trump suit's row is all dummy
    pairs_pos = hand55[types] == 2
    runs, r = [], jnp.zeros(4, jnp.int32)
    for p in range(12):
        r = (r + 1) * pairs_pos[:, p]
        runs.append(r)
    run_pos = jnp.stack(runs, axis=1)  # [4, 12]
    run = jnp.zeros(tm.PAD, jnp.int32).at[types.reshape(-1)].max(run_pos.reshape(-1))[:N]
    run = jnp.where(side & pair, run, 0)
    safe = ~opp_void[eff]
    s1 = side & pair & safe & (boss2 | (run >= 2))
    s2 = side & safe & boss1
    s3 = ~side & pair & boss2
    suit_len = jnp.zeros(5, jnp.int32).at[eff].add(hand)
    fallback_cost = (order + jnp.where(pts > 0, 40 + pts, 0) + 60 * ~side + 3 * suit_len[eff]
                     + 10 * pair - 15 * (partner_void[eff] & ~opp_void[eff] & side))
    score = 1000 - fallback_cost
    score = jnp.where(s3, 1500 + order, score)
    score = jnp.where(s2, 2000 + order, score)
    score = jnp.where(s1, 3000 + 100 * run + order, score)
    t = jnp.argmax(jnp.where(hand > 0, score, -_BIG))
    chain = (eff == eff[t]) & (order <= order[t]) & (order > order[t] - run[t])
    want_chain = jnp.where(chain & pair, 2, 0)
    onehot = (jnp.arange(N) == t).astype(jnp.int32)
    want = jnp.where(s1[t], want_chain, jnp.where(s3[t], 2 * onehot, onehot))
    return want.astype(jnp.int32)


def follow_choice(s, me, hand, part, eff, order, slot, unseen):
    """(plan type, plan count, use plan, cost[54]): a beating card (pair) to play, and the
    greedy cost of every card for the rest (feed or low)."""
    pts = jnp.asarray(_POINTS)
    trump = eff == tm.TRUMP
    plays = tm.pad(s.trick.astype(jnp.int32).at[me].set(0))
    win = state_facts.trick_holder(s)
    bsuit, bkey = s.hold_suit, s.hold_key  # the holding play's suit and key
    trick_pts = jnp.sum(plays[:, :N] * pts[None, :])
    partner = (me + 2) % 4
    partner_wins = win == partner
    after = 3 - s.num_in_trick  # seats still to play after this one
    last = after == 0
    lsuit = s.lead_suit
    need = jnp.where(s.lead_pairs > 0, 2, 1)
    opp_after = after >= 1  # the next seat is an opponent

    def threat(suit, key):
        return opp_after & tm.at_risk(suit, key, unseen, eff, order, need, lsuit,
                                      s.voids[(me + 1) % 4, lsuit])

    partner_secure = partner_wins & ~threat(bsuit, bkey)
    # beating candidates for single and pair leads
    simple = (s.lead_k1 == 0) & (s.lead_n == need)
    h_lead = jnp.sum(jnp.where(eff == lsuit, hand, 0))
    suit_ok = (eff == lsuit) | (trump & (h_lead == 0))
    beats = (trump & (bsuit != tm.TRUMP)) | ((eff == bsuit) & (order > bkey))
    mask = s.legal_action_mask[:N]
    cand = simple & (hand >= need) & suit_ok & beats & mask
    ruff = trump & (lsuit != tm.TRUMP)
    cand = cand & (~ruff | (trick_pts > 0))
    secure = jax.vmap(lambda t: ~threat(eff[t], order[t]))(jnp.arange(N))
    last_score = 4 * pts - order
    t_last = jnp.argmax(jnp.where(cand, last_score, -_BIG)).astype(jnp.int32)
    t_sec, any_sec = _argmin_where(cand & secure, order - pts)
    want_beat = ~partner_secure
    plan_t = jnp.where(last, t_last, t_sec)
    use_plan = want_beat & jnp.where(last, jnp.any(cand), any_sec)
    # greedy costs
    breaks = ((hand == 2) & (part == 0)).astype(jnp.int32)
    suit_len = jnp.zeros(5, jnp.int32).at[eff].add(hand - part)
    feed_cost = order + 40 * trump - 8 * pts + 6 * breaks
    low_cost = order + 40 * trump + 8 * pts + 6 * breaks + suit_len[eff]
    feed = partner_wins & (partner_secure | last)
    cost = jnp.where(feed, feed_cost, low_cost)
    return plan_t, need, use_plan, cost


def _act(env, params, key, state):
    del env, params, key
    s = state
    me = s.current_player
    hand = s._hands[me].astype(jnp.int32)
    part = s.trick[me].astype(jnp.int32)
    mask = s.legal_action_mask
    e55, o55, slot = tm.context(s.level, s.trump)
    eff, order = e55[:N], o55[:N]
    card_mask = mask[:N]
    unseen = state_facts.unseen_cards(s, me)

    a_decl = declare_action(s, hand)
    a_bury = bury_action(hand, eff, order)

    # leading: the next card of the intended lead, then done
    want = lead_want(s, me, hand, eff, order, slot, unseen)
    rem = (want - part > 0) & card_mask
    a_lead = jnp.where(jnp.any(rem), jnp.argmax(rem), T.DONE)

    # following: the planned beating card (pair), else the cheapest legal card
    plan_t, plan_n, use_plan, cost = follow_choice(s, me, hand, part, eff, order, slot, unseen)
    greedy, _ = _argmin_where(card_mask, cost)
    plan_ok = use_plan & (part[plan_t] < plan_n) & card_mask[plan_t]
    a_follow = jnp.where(plan_ok, plan_t, greedy)
    a_play = jnp.where(s.num_in_trick == 0, a_lead, a_follow)

    phase = s.phase
    a = jnp.where(phase == T.DECLARE, a_decl,
                  jnp.where(phase == T.BURY, a_bury,
                            jnp.where(phase == T.CHAODI, T.PASS, a_play)))
    a = a.astype(jnp.int32)
    # safety net: the lowest-ranked legal card, else done / pass / the first legal action
    low_card, any_card = _argmin_where(card_mask, order)
    fallback = jnp.where(any_card, low_card,
                         jnp.where(mask[T.DONE], T.DONE,
                                   jnp.where(mask[T.PASS], T.PASS, jnp.argmax(mask))))
    ok = mask[jnp.clip(a, 0, mask.shape[0] - 1)]
    return jnp.where(ok, a, fallback).astype(jnp.int32)


def make(env):
    """The rule player for ``env`` (a ``Tractor``): ``Agent("rule", act)``."""
    return Agent("rule", functools.partial(_act, env))
