"""The state of a Tractor hand (:class:`State`): the contract's fields, then the hand's public
record, then the hidden deal (fields starting with ``_``).  The env that steps it is
:class:`~cardjax.games.tractor.env.Tractor`."""

from __future__ import annotations

import jax
from flax import struct

from cardjax.core import MaskedState

Array = jax.Array


@struct.dataclass
class State(MaskedState):
    phase: Array  # 0 DECLARE, 1 BURY, 2 CHAODI, 3 PLAY (tricks), 4 OVER
    level: Array  # rank index 0..12 (2..A)
    trump: Array  # suit 0..3, or 4 = NT
    dealer: Array  # -1 until the last declarer deals (dealer="declarer")
    deal_first: Array  # the seat that received the first card
    decl_seat: Array  # -1: no declaration yet
    decl_kind: Array  # 0 none, 1 single, 2 pair, 3 XJ pair, 4 DJ pair
    decl_suit: Array  # 0..3, or 4 = NT (a joker pair)
    turn: Array  # declaration turn 0..103
    burier: Array  # the seat that buries, or last buried, the kitty
    buried: Array  # cards buried so far (0..8)
    passes: Array  # chaodi passes in a row
    leader: Array
    trick_no: Array
    trick: Array  # [seat, type] cards on the table, the partial move of the seat to act included
    num_in_trick: Array  # plays of the trick that are complete
    holder: Array  # the seat whose complete play holds the trick so far; -1 before the lead ends
    hold_suit: Array  # that play's effective suit and key (tricks.play_facts), which a follow
    hold_key: Array  # must beat to take the trick
    lead_suit: Array  # the current lead's effective suit
    lead_n: Array  # the lead's cards
    lead_k1: Array  # pairs in the lead's longest tractor
    lead_pairs: Array  # the lead's pairs
    lead_tractors: Array  # the length (pairs) of each of the lead's tractors, longest first
    follow_base: Array  # the cards of a follow's finished units against several tractors
    played: Array  # [seat, type]
    revealed: Array  # [seat, type]: cards known to be in a hand (from failed throws)
    voids: Array  # [seat, effective suit]: shown by not following
    led: Array  # [seat, type]: the cards each seat has led (move history)
    sloughed: Array  # [seat, type]: cards played in a follow off the led suit (discards, ruffs)
    last_trick: Array  # [seat, type]
    last_leader: Array
    last_winner: Array
    hand_sizes: Array
    attacker_points: Array  # points taken in tricks
    defender_points: Array
    kitty_points: Array  # the kitty's points, filled at the end
    kitty_bonus: Array
    penalty: Array  # failed-throw points, signed for the attackers, added to their score at the end
    level_gain: Array  # [team]
    _hands: Array  # [seat, type]
    _kitty: Array  # [type]
    _deal: Array  # [108] the deal order; cards 100..107 form the first kitty
    _bury_mark: Array  # [seat, type]: each seat's last burial, for sample_hidden
    _takers: Array  # [a, b]: seat b took the kitty (chaodi) after a's last burial
