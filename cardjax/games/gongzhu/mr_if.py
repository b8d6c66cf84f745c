"""Mr If: a rule-based Gongzhu player (ScrofaZero paper, section 5.1 and supplementary 8.2).

Every legal card gets a priority from the rules below and the highest one is played (ties go to
the higher rank, then the later suit, so play is deterministic).  The rules read only the acting
seat's hand and public facts (:class:`cardjax.games.gongzhu.features.Position`, the voids).
A card is "out" while another seat may still hold it; the partner "wins safely" when it is
winning the trick and either we play last or no out card of the led suit can beat it.

Leading
 1. Never lead SQ while holding another card.
 2. Do not lead SA or SK while the pig (SQ) is out.
 3. Keep DA/DK/DQ while DJ is out and CA/CK while C10 is out: do not lead them.
 4. Do not lead C10; lead DJ only when no out diamond beats it (then lead it gladly).
 5. A lead that no out card can beat is poor, and very poor when nobody else holds its suit.
 6. Avoid suits that an opponent (less so the partner) has shown void in.
 7. Prefer the lowest card, i.e. the one with the fewest out cards of its suit below it,
 8. of the shortest suit; no heart with points while another suit is left.

Following suit
 9. Duck: play the highest card that still loses to the current winner.
10. Dump SQ under an SA/SK on the table when an opponent is winning the trick.
11. Keep SQ when the partner is winning (rather win with another spade).
12. Never give DJ to an opponent; give it to a partner winning safely, to no other partner.
13. Give C10 only to a winner whose pile it makes worse (or to a safe partner it helps).
14. Ducking hearts under the partner, play cheap hearts before costly ones.
15. Take a trick holding DJ (when it adds to our pile) with a card no out card beats.
16. Win with DJ itself when no out diamond beats it; do not play it as a winner that can be beaten.
17. Last to play on a trick with no score card: win with a burden card (SA/SK/CA/CK...) to shed it.
18. Forced to win: play the highest winner when last, the lowest one otherwise.
19. Never win with SQ while another spade also wins.

Discarding (void in the led suit)
20. Opponent winning: dump SQ first,
21. then the highest heart with points,
22. then SA/SK while the pig is out,
23. then C10 when it doubles the winner's negative pile (never otherwise),
24. then other burden cards (CA/CK/CQ/CJ while C10 is out),
25. then high plain cards, short suits first; zero-point hearts after those; DJ never.
26. Partner winning safely: give DJ first, then C10 when it improves the partner's pile.
27. Partner winning: shed burden cards, then high plain cards; hearts cheapest first; SQ last.
28. Partner winning but not safely: keep DJ and C10 as well.
"""

from __future__ import annotations

from functools import partial

import jax.numpy as jnp
import numpy as np

from cardjax.games.gongzhu import features as F
from cardjax.cards import card_index
from cardjax.core import Agent
from cardjax.games.gongzhu import env as gz

CARDS = np.arange(gz.NUM_CARDS)
SUIT, RANK = gz.SUIT, gz.RANK
COST = -gz.POINTS  # what a card costs its taker: > 0 for hearts and SQ, < 0 for DJ
POINT_HEART = gz.IS_HEART & (COST > 0)
PLAIN = ~gz.IS_SCORE


def _is(*names: str) -> np.ndarray:
    """bool[52]: the named cards."""
    return np.isin(CARDS, [card_index(n) for n in names])


IS_SQ, IS_DJ, IS_C10 = _is("SQ"), _is("DJ"), _is("C10")
SPADE_GUARDS = _is("SA", "SK")  # dangerous while the pig is out
DIAMOND_CATCHERS = _is("DA", "DK", "DQ")  # can catch DJ
CLUB_CATCHERS = _is("CA", "CK")  # can catch C10


def act(env, params, key, state):
    """Mr If's card for ``state`` (one game; jit/vmap-able); ``params`` and ``key`` are unused."""
    del params, key
    pos = F.Position(env, state)
    hand, unseen = pos.hand, pos.unseen
    rank = jnp.asarray(RANK, jnp.float32)
    cost = jnp.asarray(COST)

    # ---- facts about each card ------------------------------------------------------------
    suit_len = jnp.sum(hand.reshape(4, 13), axis=1)[SUIT]  # my cards of the card's suit
    out = unseen.reshape(4, 13).astype(jnp.int32)
    out_upto = jnp.cumsum(out, axis=1)
    lower_out = (out_upto - out).reshape(-1)  # out cards of its suit below it
    higher_out = (out_upto[:, -1:] - out_upto).reshape(-1)  # ... and above it
    unbeatable = higher_out == 0
    burden = -pos.burden(jnp.asarray(CARDS))  # > 0 for SA/SK/CA/CK/CQ/CJ while SQ/C10 is out

    # ---- the situation --------------------------------------------------------------------
    leading, last = pos.leading, pos.k == 3
    of_led_suit = jnp.asarray(SUIT) == pos.led
    can_follow = ~leading & jnp.any(hand & of_led_suit)
    wins = of_led_suit & (jnp.asarray(RANK) > pos.best_rank)  # beats the current winner
    partner_winning = ~leading & (pos.teams[pos.best_seat] == pos.team)
    best_card = jnp.maximum(pos.led, 0) * 13 + jnp.maximum(pos.best_rank, 0)
    partner_safe = partner_winning & (last | (higher_out[best_card] == 0))
    pig_out, dj_out, c10_out = unseen[gz.SQ], unseen[gz.DJ], unseen[gz.C10]
    seat = pos.seat
    opponent_void = state.voids[(seat + 1) % 4] | state.voids[(seat + 3) % 4]  # [suit]
    partner_void = state.voids[(seat + 2) % 4]
    top_spade_on_table = (pos.led == gz.SPADES) & (pos.best_rank >= RANK[card_index("SK")])
    have_other_non_heart = jnp.any(hand & ~gz.IS_HEART)

    # ---- what the trick is worth ----------------------------------------------------------
    with_card = pos.trick_summary[None, :] + F.card_summary(jnp.asarray(CARDS))  # [52, 4]
    my_gain = F.gain(pos.piles[seat][None, :], with_card)  # if I take it with this card
    hurts_winner = F.value(F.merge(pos.piles[pos.best_seat], with_card)) < 0  # (for C10)
    helps_partner = F.gain(pos.piles[(seat + 2) % 4], with_card) > 0  # (for C10)
    dj_on_table = pos.table[gz.DJ]
    trick_clean = ~jnp.any(pos.table & gz.IS_SCORE)

    # ---- leading: rules 1-8 -----------------------------------------------------------------
    lead = (
        -10.0 * lower_out                                                         # 7
        - 3.0 * suit_len                                                          # 8
        - 40.0 * (POINT_HEART & have_other_non_heart)                             # 8
        - 50.0 * unbeatable - 400.0 * (unbeatable & (lower_out == 0))             # 5
        - 60.0 * opponent_void[SUIT] - 20.0 * partner_void[SUIT]                  # 6
        - 300.0 * (DIAMOND_CATCHERS & dj_out) - 300.0 * (CLUB_CATCHERS & c10_out)  # 3
        - 200.0 * IS_C10 + IS_DJ * jnp.where(unbeatable, 600.0, -200.0)           # 4
        - 1000.0 * (SPADE_GUARDS & pig_out)                                       # 2
        - 5000.0 * IS_SQ                                                          # 1
    )

    # ---- following suit: rules 9-19 ---------------------------------------------------------
    other_winner = jnp.any(hand & wins & ~IS_SQ)
    gift_to_opponent = (
        -5000.0 * IS_DJ                                                           # 12
        - 600.0 * (IS_C10 & ~hurts_winner)                                        # 13
        + 4000.0 * (IS_SQ & top_spade_on_table)                                   # 10
    )
    gift_to_partner = (
        IS_DJ * jnp.where(partner_safe, 3000.0, -5000.0)                          # 12
        + IS_C10 * jnp.where(partner_safe & helps_partner, 600.0, -600.0)         # 13
        - 30.0 * cost * (cost > 0)                                                # 14
        - 4000.0 * IS_SQ                                                          # 11
    )
    duck = 5000.0 + rank + jnp.where(partner_winning, gift_to_partner, gift_to_opponent)  # 9
    win = (
        2000.0 + jnp.where(last, rank, -rank)                                     # 18
        + 6000.0 * (unbeatable & dj_on_table & (my_gain > 0))                     # 15
        + IS_DJ * jnp.where(unbeatable, 6000.0, -1000.0)                          # 16
        + 5000.0 * (last & trick_clean & (burden > 0))                            # 17
        - 1500.0 * (IS_SQ & other_winner)                                         # 19
    )
    follow = jnp.where(wins, win, duck)

    # ---- discarding: rules 20-28 ------------------------------------------------------------
    plain_rank = 10.0 * rank - 5.0 * suit_len  # high cards of short suits first
    to_opponent = jnp.select(
        [IS_SQ,                                                                   # 20
         POINT_HEART,                                                             # 21
         SPADE_GUARDS & pig_out,                                                  # 22
         IS_C10 & hurts_winner,                                                   # 23
         burden > 0,                                                              # 24
         PLAIN, gz.IS_HEART, IS_C10],                                             # 25
        [9000.0, 8000.0 + cost, 7000.0 + rank, 6000.0, 5000.0 + burden,
         3000.0 + plain_rank, 2000.0 + rank, 1000.0],
        0.0,                                                                      # DJ
    )
    to_partner = jnp.select(
        [IS_DJ & partner_safe,                                                    # 26
         IS_C10 & partner_safe & helps_partner,                                   # 26
         burden > 0,                                                              # 27
         PLAIN,                                                                   # 27
         gz.IS_HEART, IS_C10, IS_DJ],                                             # 27, 28
        [9000.0, 8000.0, 5000.0 + burden, 3000.0 + plain_rank,
         2000.0 - cost, 1000.0, 500.0],
        0.0,                                                                      # SQ
    )
    discard = jnp.where(partner_winning, to_partner, to_opponent)

    score = jnp.where(leading, lead, jnp.where(can_follow, follow, discard))
    score = score + 0.01 * rank + 0.001 * jnp.asarray(SUIT)  # deterministic tie-break
    score = jnp.where(pos.legal, score, -jnp.inf)
    return jnp.argmax(score).astype(jnp.int32)


def make(env):
    return Agent("if", partial(act, env))
