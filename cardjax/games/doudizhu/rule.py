"""Dou Dizhu rule player: RLCard's ``doudizhu-rule-v1`` (``DouDizhuRuleAgentV1``), array arithmetic.

``act(params, key, state)`` is pure and jit/vmap-able (one state; vmap for a batch).  It reads the
acting seat's hand (``state._hands[state.current_player]``) and public fields only.

Leading (``to_beat < 0``).  RLCard splits the hand into groups, in this order: the rocket; bombs;
trios, consecutive trios (3..A, never 2s) merged into trio chains; solo chains (each maximal run of
five or more consecutive ranks 3..A among the cards left, taken ``min(count)`` times); pairs;
solos.  It then leads the first group, in the order rocket, bomb, trio, trio chain, solo chain,
pair chain, pair, solo, that holds the hand's lowest card.  (Its pair-chain step can never fire:
after trios and bombs are gone no rank holds more than two cards, and the solo-chain step already
took every run of five.)  That decision depends only on the lowest rank ``r`` and the runs that
start there, so it is computed directly:

* ``r`` is a bomb (four cards): the bomb;
* ``r`` is a trio: the trio chain of the consecutive trios ``r, r+1, ..`` (ranks 3..A) if there are
  two or more, else the bare trio (RLCard leads trios without a kicker);
* otherwise, if the ranks ``r, r+1, ..`` held once or twice (3..A) run five or more long: that
  whole solo chain; else the pair or the solo of ``r`` (``BR`` alone: the rocket).

Following.  The lowest legal move of the same type and length as the move to beat (RLCard's type
string; bombs follow bombs, nothing follows the rocket); among equal main ranks, the lowest action
id (lowest kickers).  This is played even over the partner, as RLCard does.  With no such move: a
peasant passes when the partner (the other peasant) holds the trick; otherwise a uniformly random
legal action (pass, bombs and the rocket included), as RLCard's ``np.random.choice``.

RLCard's own test for "partner holds the trick" looks at the seat of the last *entry* of the trace
(the passer when the last entry is a pass), so its seat after the landlord never yields and the
seat before the landlord always does.  ``make(env, rlcard_partner_quirk=True)`` reproduces that;
the default uses the seat that made the move to beat (``to_beat_seat``).

Bidding (the ``bidding`` option; RLCard has none).  Hand strength
``points = (number of 2s) + (number of jokers) + 2 * (bombs, rocket included)``; the wanted bid
is 3 for ``points >= 5``, 2 for ``points == 4``, 1 for ``points == 3``, else none; the player bids
it when it is above the current bid, else passes.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from cardjax import legal_words
from cardjax.core import Agent
from cardjax.games.doudizhu import moves as moves
from cardjax.games.doudizhu.moves import NUM_ACTIONS, NUM_RANKS, PASS, TWO, action_index

_RANKS = moves.RANKS


def _lead_tables():
    """Action ids: single-rank groups [5 (count 1..4 -> solo/pair/trio/bomb), 15] and chains."""
    single = np.full((5, NUM_RANKS), -1, np.int32)
    for r in range(NUM_RANKS):
        for k in range(1, 5):
            if k <= moves.MAX_COUNT[r] and not (k > 1 and r > TWO):
                single[k, r] = action_index(_RANKS[r] * k)
    chain_solo = np.full((13, 13), -1, np.int32)  # [start, length]
    chain_trio = np.full((13, 8), -1, np.int32)
    for s in range(12):
        for n in range(5, 13):
            if s + n <= 12:
                chain_solo[s, n] = action_index(_RANKS[s:s + n])
        for n in range(2, 7):
            if s + n <= 12:
                chain_trio[s, n] = action_index("".join(c * 3 for c in _RANKS[s:s + n]))
    return single, chain_solo, chain_trio, action_index("BR")


_SINGLE_ID, _CHAIN_SOLO_ID, _CHAIN_TRIO_ID, _ROCKET_ID = _lead_tables()


def lead_action(hand) -> jax.Array:
    """int32: RLCard's lead for ``hand`` (int[15] rank counts, not empty); see the module doc."""
    c = jnp.asarray(hand, jnp.int32)
    n = jnp.arange(NUM_RANKS)
    r0 = jnp.argmax(c > 0)  # the lowest card
    k0 = c[r0]

    def run_from_r0(x):  # consecutive ranks r0, r0+1, .. where x holds (x is False from 2 up)
        stop = jnp.min(jnp.where((n >= r0) & ~x, n, NUM_RANKS))
        return stop - r0

    chainable = n < TWO  # 3..A
    trio_run = run_from_r0((c == 3) & chainable)
    solo_run = run_from_r0((c >= 1) & (c <= 2) & chainable)
    single = jnp.asarray(_SINGLE_ID)[jnp.clip(k0, 1, 4), r0]
    trio_chain = jnp.asarray(_CHAIN_TRIO_ID)[r0 % 13, jnp.clip(trio_run, 0, 7)]
    solo_chain = jnp.asarray(_CHAIN_SOLO_ID)[r0 % 13, jnp.clip(solo_run, 0, 12)]
    rocket = (r0 == NUM_RANKS - 2) & (c[NUM_RANKS - 1] == 1)
    a = jnp.where((k0 == 3) & (trio_run >= 2), trio_chain, single)
    a = jnp.where((k0 <= 2) & (solo_run >= 5), solo_chain, a)
    return jnp.where(rocket, _ROCKET_ID, a).astype(jnp.int32)


def follow_action(key, words, to_beat, yield_trick) -> jax.Array:
    """int32: the lowest legal move of the move to beat's type and length, else pass when
    ``yield_trick``, else a uniformly random legal action.

    ``words``: the legal moves packed (:mod:`cardjax.legal_words`).  Each type and length is one
    run of ids ordered by main rank, so the lowest such move is the first legal id of that run.
    """
    b = jnp.maximum(to_beat, 0)
    run = legal_words.span(jnp.asarray(moves.SAME_LO)[b], jnp.asarray(moves.SAME_HI)[b],
                           words.shape[-1])
    same = words & run
    other = jnp.where(yield_trick, PASS, legal_words.sample(key, words))
    return jnp.where(jnp.any(same != 0), legal_words.first(same), other).astype(jnp.int32)


def bid_points(hand) -> jax.Array:
    """int32: (number of 2s) + (number of jokers) + 2 * (bombs, rocket included)."""
    c = jnp.asarray(hand, jnp.int32)
    bombs = jnp.sum(c[:13] == 4) + ((c[13] == 1) & (c[14] == 1))
    return c[TWO] + c[13] + c[14] + 2 * bombs


def wanted_bid(hand) -> jax.Array:
    """int32 0..3: the bid the hand is worth (0 = none); see the module doc."""
    p = bid_points(hand)
    return jnp.where(p >= 5, 3, jnp.where(p == 4, 2, jnp.where(p == 3, 1, 0))).astype(jnp.int32)


def bid(state) -> jax.Array:
    """int32 0..3: the rule player's bid for the seat to act, 0 = pass (the bid its hand is worth
    when that is above the current one)."""
    want = wanted_bid(state._hands[state.current_player])
    return jnp.where(want > state.bid, want, 0).astype(jnp.int32)


def _act(env, rlcard_partner_quirk, params, key, state):
    del params
    s = state
    me = s.current_player
    hand = s._hands[me]
    words = env.legal_words(s)
    peasant = me != s.landlord
    partner = 3 - s.landlord - me
    if rlcard_partner_quirk:
        # RLCard: the seat of the last trace entry (the previous seat) stands for the trick holder.
        holder = (me + 2) % 3
    else:
        holder = s.to_beat_seat
    yield_trick = peasant & (holder == partner)
    k_follow, k_fallback = jax.random.split(key)
    a = jnp.where(s.to_beat < 0, lead_action(hand), follow_action(k_follow, words, s.to_beat,
                                                                    yield_trick))
    # Safety net (never expected to fire on a live game): a legal action.
    ok = env.is_legal(s, jnp.clip(a, 0, env.num_actions - 1))
    a = jnp.where(ok, a, env.random_action(k_fallback, s))
    if env.bidding:
        a = jnp.where(s.bidding, NUM_ACTIONS + bid(s), a)
    return a.astype(jnp.int32)


def make(env, rlcard_partner_quirk: bool = False):
    """The rule player for ``env`` (a ``DouDizhu``): ``Agent("rule", act)``."""
    return Agent("rule", functools.partial(_act, env, bool(rlcard_partner_quirk)))
