"""Toy: two seats, eight cards ranked 0..7 (one suit), three dealt to each, two left hidden.

Seat ``leader`` (seat 0 in a fresh deal) leads the first trick.  The leader plays any card it
holds, then the other seat plays any card it holds (no suit to follow); the higher card wins the
trick and its winner leads the next.  After three tricks (six plays) the seat that won more
tricks (two or three) wins: rewards ``+1`` / ``-1``, zero-sum, one seat a team.

Actions (8): ``i`` plays card ``i``.  An illegal action under ``jit`` ends the game and costs the
offender ``illegal_penalty`` (the contract's policy, :class:`cardjax.core.Env`).

State fields beyond the contract: ``leader`` (the seat that led the game), ``table`` (the card
led to the current trick, -1 when the seat to act leads), ``played[seat, card]`` (the cards each
seat played), ``tricks[seat]`` (tricks won); hidden: ``_hands[seat, card]`` and ``_kitty[card]``
(the two undealt cards).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from cardjax import shuffle
from cardjax.core import Env, MaskedState, PRNGKey

Array = jax.Array

NUM_PLAYERS = 2
NUM_CARDS = 8
HAND_SIZE = 3
TRICKS = HAND_SIZE
OBS_SIZE = 4 * NUM_CARDS + 2 + 2 * TRICKS  # 40
ORACLE_SIZE = OBS_SIZE + NUM_CARDS  # 48


@struct.dataclass
class State(MaskedState):
    leader: Array
    table: Array
    played: Array
    tricks: Array
    _hands: Array
    _kitty: Array


def hand_str(mask) -> str:
    """``"0 3 7"``: the cards of a bool[8] mask."""
    return " ".join(str(c) for c in np.flatnonzero(np.asarray(mask))) or "-"


class Toy(Env):
    """The toy game (module docstring)."""

    name = "toy"
    version = "1"
    num_players = NUM_PLAYERS
    num_actions = NUM_CARDS
    teams = (0, 1)
    max_steps = 2 * TRICKS  # 6

    def __init__(self, illegal_penalty: float = 1.0):
        self.illegal_penalty = float(illegal_penalty)
        self.options = {} if illegal_penalty == 1.0 else {"illegal_penalty": self.illegal_penalty}
        self.observation_shape = (OBS_SIZE,)
        self.oracle_shape = (ORACLE_SIZE,)

    # ------------------------------------------------------------------ dealing
    def init(self, key: PRNGKey) -> State:
        pos = shuffle.places(key, NUM_CARDS)  # each card's place in a shuffled deck
        hands = jnp.stack([pos < HAND_SIZE, (pos >= HAND_SIZE) & (pos < 2 * HAND_SIZE)])
        return self._deal(hands, 0)

    def init_from_deal(self, hands, leader=0) -> State:
        """The game of an explicit deal: ``hands`` bool[2, 8] (three cards each) or two lists of
        card numbers; ``leader`` leads."""
        arr = np.asarray(hands)
        if arr.dtype != bool:  # two lists of card numbers
            arr = np.zeros((NUM_PLAYERS, NUM_CARDS), bool)
            for seat, cards in enumerate(hands):
                arr[seat, list(cards)] = True
            hands = arr
        hands = np.asarray(hands, bool)
        if hands.shape != (NUM_PLAYERS, NUM_CARDS) or (hands.sum(1) != HAND_SIZE).any() \
                or (hands.sum(0) > 1).any():
            raise ValueError(f"a deal is two disjoint hands of {HAND_SIZE} cards 0..7")
        return self._deal(jnp.asarray(hands), leader)

    def rotate(self, state: State, shift: int = 1) -> State:
        """The same deal with the hands and the first lead moved ``shift`` seats on (initial
        states: the arena's duplicate rotation)."""
        hands = state._hands | state.played
        return self._deal(jnp.roll(hands, shift, axis=0), (state.leader + shift) % NUM_PLAYERS)

    def _deal(self, hands: Array, leader) -> State:
        hands = hands.astype(bool)
        leader = jnp.asarray(leader, jnp.int32)
        return State(
            current_player=leader,
            legal_action_mask=hands[leader],
            rewards=jnp.zeros(NUM_PLAYERS, jnp.float32),
            terminated=jnp.bool_(False),
            step_count=jnp.int32(0),
            leader=leader,
            table=jnp.int32(-1),
            played=jnp.zeros((NUM_PLAYERS, NUM_CARDS), bool),
            tricks=jnp.zeros(NUM_PLAYERS, jnp.int32),
            _hands=hands,
            _kitty=~hands.any(axis=0),
        )

    # ------------------------------------------------------------------ rules
    def _step(self, s: State, action: Array, key=None) -> State:
        p = s.current_player
        seats = jnp.arange(NUM_PLAYERS)
        card = jnp.arange(NUM_CARDS) == action
        mine = (seats == p)[:, None]
        hands = s._hands & ~(mine & card)
        played = s.played | (mine & card)
        leading = s.table < 0
        winner = jnp.where(action > s.table, p, 1 - p).astype(jnp.int32)
        tricks = s.tricks + jnp.where(leading, 0, (seats == winner).astype(jnp.int32))
        nxt = jnp.where(leading, 1 - p, winner).astype(jnp.int32)
        done = s.step_count + 1 >= 2 * TRICKS
        won = jnp.argmax(tricks)
        rewards = jnp.where(done, jnp.where(seats == won, 1.0, -1.0), 0.0).astype(jnp.float32)
        return s.replace(
            current_player=nxt,
            legal_action_mask=jnp.where(done, True, hands[nxt]),
            rewards=rewards,
            terminated=done,
            step_count=s.step_count + 1,
            table=jnp.where(leading, action, -1).astype(jnp.int32),
            played=played,
            tricks=tricks,
            _hands=hands,
        )

    # ------------------------------------------------------------------ observations
    def observe(self, state: State, seat) -> Array:
        """float32[40], all 0/1, from ``seat``'s view: own hand (8), cards played by itself and
        by the other seat (2 x 8), the card led to this trick (8, zeros when leading), leading
        (1), to act (1), tricks won by itself and by the other seat (2 x 3, thermometers)."""
        s = state
        seat = jnp.asarray(seat, jnp.int32)
        opp = 1 - seat
        won = jnp.arange(1, TRICKS + 1)
        parts = [s._hands[seat], s.played[seat], s.played[opp],
                 jnp.arange(NUM_CARDS) == s.table, (s.table < 0)[None],
                 (s.current_player == seat)[None], s.tricks[seat] >= won, s.tricks[opp] >= won]
        return jnp.concatenate([x.astype(jnp.float32).reshape(-1) for x in parts])

    def observe_oracle(self, state: State, seat) -> Array:
        """float32[48]: :meth:`observe` and the other seat's hand."""
        opp = 1 - jnp.asarray(seat, jnp.int32)
        return jnp.concatenate([self.observe(state, seat), state._hands[opp].astype(jnp.float32)])

    # ------------------------------------------------------------------ hidden information
    def sample_hidden(self, key: PRNGKey, state: State, seat) -> State:
        """A state ``seat`` cannot tell from ``state``: the cards it has not seen (not its own,
        not played) dealt at random, as many to the other seat as it holds, the rest to the
        kitty."""
        s = state
        seat = jnp.asarray(seat, jnp.int32)
        opp = 1 - seat
        unseen = ~s._hands[seat] & ~s.played.any(axis=0)
        u = jnp.where(unseen, jax.random.uniform(key, (NUM_CARDS,)), 2.0)
        order = jnp.argsort(jnp.argsort(u))  # place of each unseen card in a random order
        opp_hand = order < jnp.sum(s._hands[opp])
        hands = jnp.where((jnp.arange(NUM_PLAYERS) == opp)[:, None], opp_hand[None], s._hands)
        mask = jnp.where(s.terminated, s.legal_action_mask, hands[s.current_player])
        return s.replace(_hands=hands, _kitty=unseen & ~opp_hand, legal_action_mask=mask)

    # ------------------------------------------------------------------ people
    def action_to_str(self, action: int) -> str:
        action = int(action)
        if not 0 <= action < NUM_CARDS:
            raise ValueError(f"action must be a card 0..{NUM_CARDS - 1}, got {action}")
        return str(action)

    def render(self, state: State) -> str:
        s = jax.device_get(state)
        if np.ndim(s.current_player) != 0:
            raise ValueError("render takes one game, not a batch; index the batch first")
        head = f"Toy  step {int(s.step_count)}  "
        if s.terminated:
            head += f"finished: seat {int(np.argmax(s.rewards))} wins"
        else:
            what = "leads" if int(s.table) < 0 else f"to beat {int(s.table)}"
            head += f"to act: seat {int(s.current_player)} ({what})"
        lines = [head]
        for seat in range(NUM_PLAYERS):
            lines.append(f"seat {seat}: {hand_str(s._hands[seat]):<6} played: "
                         f"{hand_str(s.played[seat])}  tricks: {int(s.tricks[seat])}")
        lines.append(f"hidden: {hand_str(s._kitty)}")
        if s.terminated:
            lines.append(f"rewards: {np.asarray(s.rewards).astype(int).tolist()}")
        return "\n".join(lines)
