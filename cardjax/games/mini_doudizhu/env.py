"""Mini Dou Di Zhu (Whitehouse, Powley & Cowling 2011, section II.G).

The game (``shared/rules/doudizhu.md``, section "Mini Dou Di Zhu"): two players, 18 cards in six
ranks ``1 < 2 < 3 < 4 < B < R`` (four copies each of the ranks 1..4, one small joker ``B`` and one
big joker ``R``).  Each player gets 7 cards; 4 stay hidden from both.  A move is 1, 2, 3 or 4 cards
of one rank (jokers only as singles).  Seat 0 (the paper's "player 1") leads; a leader may play any
move and may not pass; otherwise a move must have the same number of cards as the move to beat and
a higher rank, or the player passes; after a pass the other player leads freely.  The first player
to empty the hand wins: rewards +1 / -1 (zero-sum).

Hands and moves are rank-count vectors ``int (6,)`` (ranks in the order above) or rank strings
such as ``"11234BR"``; a move is written as its cards (``"33"``), pass as ``"pass"``.

Actions (19): ``4 * r + (c - 1)`` plays ``c`` (1..4) cards of rank ``r`` (0..3, i.e. ``1``..``4``),
so ``0..15`` are ``1 11 111 1111 2 22 ... 4444``; ``16`` plays ``B``, ``17`` plays ``R``; ``18`` is
pass.  The tables :data:`ACTION_RANK` / :data:`ACTION_COUNT` describe every action; the legal-move
rule (:func:`legal_mask`) and the effect of a move (:func:`apply_action`) are written once against
them and run both under ``jax.numpy`` (the env) and NumPy (the exact solver,
:mod:`cardjax.games.mini_doudizhu.solver`).

State fields beyond the contract: ``to_beat`` the action to beat (-1 when the player to act
leads), ``played[seat, rank]`` cards played so far by each seat, ``leader`` the seat that led the
game, ``winner`` (-1 while playing); hidden: ``_hands[seat, rank]`` the cards each seat holds and
``_kitty[rank]`` the 4 undealt cards.
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
NUM_RANKS = 6
HAND_SIZE = 7
RANK_CHARS = "1234BR"
FULL = np.array([4, 4, 4, 4, 1, 1], np.int32)  # copies of each rank in the deck
NUM_CARDS = int(FULL.sum())  # 18
NUM_MOVES = 4 * 4 + 2  # 18 card-playing actions
PASS = NUM_MOVES  # 18
NUM_ACTIONS = NUM_MOVES + 1  # 19

# action -> (rank, count); pass is (-1, 0) and removes nothing.
ACTION_RANK = np.array([r for r in range(4) for _ in range(4)] + [4, 5, -1], np.int32)
ACTION_COUNT = np.array([c for _ in range(4) for c in range(1, 5)] + [1, 1, 0], np.int32)
# the physical cards: rank of each and copy number within its rank
CARD_RANK = np.repeat(np.arange(NUM_RANKS), FULL).astype(np.int32)
CARD_COPY = np.concatenate([np.arange(n) for n in FULL]).astype(np.int32)

OBS_SIZE = NUM_RANKS + 1 + 2 * NUM_RANKS + NUM_MOVES + 2  # 39
ORACLE_SIZE = OBS_SIZE + NUM_RANKS  # 45


# ---------------------------------------------------------------------------- the rule (one copy)
def legal_mask(hand, to_beat, xp=jnp):
    """bool[..., 19]: the legal actions of a player holding ``hand`` (int[..., 6]) facing
    ``to_beat`` (int[...], an action 0..17, or -1 when leading).

    Leading: any move the hand holds, no pass.  Following: a move of the same count and a higher
    rank, or pass.  ``xp`` is ``jax.numpy`` (the env) or ``numpy`` (the solver).
    """
    hand = xp.asarray(hand)
    to_beat = xp.asarray(to_beat)
    rank = xp.asarray(ACTION_RANK[:NUM_MOVES])
    count = xp.asarray(ACTION_COUNT[:NUM_MOVES])
    holds = hand[..., rank] >= count
    leading = (to_beat < 0)[..., None]
    tb = xp.clip(to_beat, 0, NUM_MOVES - 1)
    beats = (count == xp.asarray(ACTION_COUNT)[tb][..., None]) & (
        rank > xp.asarray(ACTION_RANK)[tb][..., None]
    )
    moves = holds & (leading | beats)
    can_pass = xp.broadcast_to(~leading, moves.shape[:-1] + (1,))
    return xp.concatenate([moves, can_pass], axis=-1)


def apply_action(hand, action, xp=jnp):
    """The hand (int[..., 6]) after playing ``action`` (pass leaves it unchanged)."""
    hand = xp.asarray(hand)
    action = xp.asarray(action)
    rank = xp.asarray(ACTION_RANK)[action][..., None]
    count = xp.asarray(ACTION_COUNT)[action][..., None]
    return hand - xp.where(xp.arange(NUM_RANKS) == rank, count, 0).astype(hand.dtype)


# ---------------------------------------------------------------------------- strings
def hand_str(counts) -> str:
    """``"11234BR"`` from a rank-count vector (6,)."""
    counts = np.asarray(counts).astype(int)
    return "".join(ch * int(n) for ch, n in zip(RANK_CHARS, counts))


def parse_hand(text) -> np.ndarray:
    """Rank-count vector int32 (6,) of a rank string (``"11234BR"``; spaces ignored, ``b``/``r``
    in either case).  Only the characters ``1234BR`` are cards; anything else raises
    ``ValueError``."""
    if not isinstance(text, str):
        raise ValueError(f"a hand string must be a str like '11234BR', got {text!r}")
    counts = np.zeros(NUM_RANKS, np.int32)
    for ch in text.replace(" ", "").upper():
        if ch not in RANK_CHARS:
            raise ValueError(
                f"unknown card {ch!r} in {text!r}: Mini Dou Di Zhu cards are 1, 2, 3, 4 "
                "(four of each), B (small joker) and R (big joker)"
            )
        counts[RANK_CHARS.index(ch)] += 1
    return counts


def action_str(action: int) -> str:
    action = int(action)
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action must be in 0..{NUM_ACTIONS - 1}, got {action}")
    if action == PASS:
        return "pass"
    return RANK_CHARS[ACTION_RANK[action]] * int(ACTION_COUNT[action])


def parse_action(text: str) -> int:
    """The action of a move string (``"33"``, ``"B"``, ``"pass"``)."""
    if isinstance(text, str) and text.strip().lower() == "pass":
        return PASS
    for a in range(NUM_MOVES):
        if isinstance(text, str) and text.strip().upper() == action_str(a):
            return a
    raise ValueError(
        f"unknown move {text!r}: a move is 1-4 cards of one rank 1..4 (e.g. '33'), "
        "'B', 'R' or 'pass'"
    )


def _as_hand(h, what: str) -> np.ndarray:
    if isinstance(h, str):
        return parse_hand(h)
    arr = np.asarray(h)
    if arr.shape != (NUM_RANKS,):
        raise ValueError(f"{what}: a hand is 6 rank counts (1, 2, 3, 4, B, R), got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{what}: rank counts must be integers, got dtype {arr.dtype}")
    return arr.astype(np.int32)


def _as_to_beat(to_beat) -> int:
    if to_beat is None:
        return -1
    if isinstance(to_beat, str):
        a = parse_action(to_beat)
        return -1 if a == PASS else a
    a = int(to_beat)
    if not -1 <= a < NUM_MOVES:
        raise ValueError(f"to_beat must be a move 0..{NUM_MOVES - 1} or -1 (leading), got {a}")
    return a


def check_deal(hands) -> np.ndarray:
    """int32 (2, 6) hands of a valid deal (7 cards each, no rank over its copies), else
    ``ValueError``.  ``hands`` is (2, 6) counts or two rank strings."""
    if isinstance(hands, (list, tuple)) and len(hands) == NUM_PLAYERS:
        arr = np.stack([_as_hand(h, f"hand of seat {i}") for i, h in enumerate(hands)])
    else:
        arr = np.asarray(hands)
        if arr.shape != (NUM_PLAYERS, NUM_RANKS):
            raise ValueError(
                f"hands must be two hands of 6 rank counts, shape (2, 6), or two strings; got shape {arr.shape}"
            )
        if not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"rank counts must be integers, got dtype {arr.dtype}")
        arr = arr.astype(np.int32)
    if (arr < 0).any():
        raise ValueError(f"rank counts must be non-negative, got {arr.tolist()}")
    for seat in range(NUM_PLAYERS):
        if arr[seat].sum() != HAND_SIZE:
            raise ValueError(
                f"every seat holds {HAND_SIZE} cards; seat {seat} holds {int(arr[seat].sum())} ({hand_str(arr[seat])})"
            )
    over = np.flatnonzero(arr.sum(0) > FULL)
    if over.size:
        r = int(over[0])
        raise ValueError(
            f"the deck has {FULL[r]} card(s) of rank {RANK_CHARS[r]}, the hands hold {int(arr[:, r].sum())}"
        )
    return arr


_legal_mask_jit = jax.jit(legal_mask, static_argnames="xp")


def legal_moves(hand, to_beat=None) -> list[str]:
    """The legal moves (strings) of ``hand`` (string or counts) facing ``to_beat`` (a move string
    or action; ``None``/``-1``/``"pass"`` = leading).  Runs the env's (jitted) rule function."""
    mask = _legal_mask_jit(_as_hand(hand, "hand"), jnp.int32(_as_to_beat(to_beat)))
    return [action_str(a) for a in np.flatnonzero(np.asarray(mask))]


# ---------------------------------------------------------------------------- the env
@struct.dataclass
class State(MaskedState):
    to_beat: Array
    played: Array
    leader: Array
    winner: Array
    _hands: Array
    _kitty: Array


def _is_concrete(x) -> bool:
    return not isinstance(x, jax.core.Tracer)


def _counts(cards_mask: Array) -> Array:
    """int32 (6,) rank counts of a bool (18,) mask of physical cards."""
    onehot = jnp.asarray(CARD_RANK)[:, None] == jnp.arange(NUM_RANKS)
    return jnp.sum(onehot & cards_mask[:, None], axis=0, dtype=jnp.int32)


class MiniDouDizhu(Env):
    """Mini Dou Di Zhu for two seats (one per team). See the module docstring for the rules and
    the action layout; ``illegal_penalty`` is the loss of a seat playing an illegal action under
    ``jit``."""

    name = "mini_doudizhu"
    version = "1"  # the rules' version: runs, corpora and players record mini_doudizhu@1
    num_players = NUM_PLAYERS
    num_actions = NUM_ACTIONS
    teams = (0, 1)

    max_steps = 26  # a bound: at most 13 plays and 12 passes between them

    def __init__(self, illegal_penalty: float = 1.0):
        self.illegal_penalty = float(illegal_penalty)
        self.options = {} if illegal_penalty == 1.0 else {"illegal_penalty": self.illegal_penalty}
        self.observation_shape = (OBS_SIZE,)
        self.oracle_shape = (ORACLE_SIZE,)

    # ------------------------------------------------------------------ dealing
    def init(self, key: PRNGKey) -> State:
        """A uniformly random deal (the 18 physical cards shuffled); seat 0 leads."""
        # position of each physical card in the deck shuffled by jax.random.permutation(key, 18)
        pos = shuffle.places(key, NUM_CARDS)
        h0 = _counts(pos < HAND_SIZE)
        h1 = _counts((pos >= HAND_SIZE) & (pos < 2 * HAND_SIZE))
        return self._deal(jnp.stack([h0, h1]), 0)

    def init_from_deal(self, hands, leader=0) -> State:
        """The game of an explicit deal: ``hands`` (2, 6) rank counts or two rank strings
        (``["1112234", "2334BR4"]``), 7 cards each; ``leader`` 0 or 1 leads.  Outside ``jit`` a bad
        deal raises ``ValueError``."""
        if isinstance(hands, (list, tuple)) and hands and isinstance(hands[0], str):
            hands = check_deal(hands)
        elif _is_concrete(hands):
            hands = check_deal(np.asarray(hands))
        if _is_concrete(leader):
            if np.ndim(leader) != 0 or int(leader) not in (0, 1):
                raise ValueError(f"leader must be seat 0 or 1, got {leader!r}")
        return self._deal(jnp.asarray(hands, jnp.int32), leader)

    def rotate(self, state: State, shift: int = 1) -> State:
        """The same deal with the hands and the first lead moved ``shift`` seats on (for initial
        states: the arena's duplicate rotation)."""
        hands = state._hands + state.played
        return self._deal(jnp.roll(hands, shift, axis=0), (state.leader + shift) % NUM_PLAYERS)

    def _deal(self, hands: Array, leader) -> State:
        hands = hands.astype(jnp.int32)
        leader = jnp.asarray(leader, jnp.int32)
        state = State(
            current_player=leader,
            legal_action_mask=legal_mask(hands[leader], jnp.int32(-1)),
            rewards=jnp.zeros(NUM_PLAYERS, jnp.float32),
            terminated=jnp.bool_(False),
            step_count=jnp.int32(0),
            to_beat=jnp.int32(-1),
            played=jnp.zeros((NUM_PLAYERS, NUM_RANKS), jnp.int32),
            leader=leader,
            winner=jnp.int32(-1),
            _hands=hands,
            _kitty=jnp.asarray(FULL) - hands.sum(0),
        )
        return state

    # ------------------------------------------------------------------ rules
    def _step(self, s: State, action: Array, key=None) -> State:
        p = s.current_player
        mine = jnp.arange(NUM_PLAYERS)[:, None] == p
        hand = apply_action(s._hands[p], action)
        hands = jnp.where(mine, hand[None, :], s._hands)
        played = s.played + jnp.where(mine, (s._hands[p] - hand)[None, :], 0)
        is_pass = action == PASS
        done = ~is_pass & (jnp.sum(hand) == 0)
        to_beat = jnp.where(is_pass, -1, action).astype(jnp.int32)
        nxt = (1 - p).astype(jnp.int32)  # the players always alternate
        rewards = jnp.where(done, jnp.where(jnp.arange(NUM_PLAYERS) == p, 1.0, -1.0), 0.0)
        mask = jnp.where(done, True, legal_mask(hands[nxt], to_beat))
        return s.replace(
            current_player=nxt,
            legal_action_mask=mask,
            rewards=rewards.astype(jnp.float32),
            terminated=done,
            step_count=s.step_count + 1,
            to_beat=to_beat,
            played=played,
            winner=jnp.where(done, p, -1).astype(jnp.int32),
            _hands=hands,
        )

    # ------------------------------------------------------------------ observations
    def observe(self, state: State, seat) -> Array:
        """float32[39] from ``seat``'s point of view: own hand (6 rank counts), the opponent's
        number of cards (1), cards played by itself and by the opponent (2x6), the move to beat
        (one-hot over the 18 moves, zeros when leading), leading (1), to act (1)."""
        s = state
        seat = jnp.asarray(seat, jnp.int32)
        opp = 1 - seat
        parts = [
            s._hands[seat],
            jnp.sum(s._hands[opp])[None],
            s.played[seat],
            s.played[opp],
            jnp.arange(NUM_MOVES) == s.to_beat,
            (s.to_beat < 0)[None],
            (s.current_player == seat)[None],
        ]
        return jnp.concatenate([x.astype(jnp.float32).reshape(-1) for x in parts])

    def observe_oracle(self, state: State, seat) -> Array:
        """float32[45]: :meth:`observe` followed by the opponent's hand (6 rank counts)."""
        opp = 1 - jnp.asarray(seat, jnp.int32)
        return jnp.concatenate([self.observe(state, seat), state._hands[opp].astype(jnp.float32)])

    # ------------------------------------------------------------------ hidden information
    def sample_hidden(self, key: PRNGKey, state: State, seat) -> State:
        """A full state ``seat`` cannot tell from ``state``: the cards it has not seen (not in its
        hand, not played) are shuffled and the opponent gets as many of them as it holds, the
        rest go to the kitty.  Uniform over the physical cards, so the opponent's hand has its
        exact (hypergeometric) distribution given the counts."""
        s = state
        seat = jnp.asarray(seat, jnp.int32)
        opp = 1 - seat
        unseen = jnp.asarray(FULL) - s._hands[seat] - jnp.sum(s.played, axis=0)
        avail = jnp.asarray(CARD_COPY) < unseen[jnp.asarray(CARD_RANK)]
        u = jnp.where(avail, jax.random.uniform(key, (NUM_CARDS,)), 2.0)
        order = jnp.argsort(jnp.argsort(u))  # rank of each available card in a random order
        opp_hand = _counts(order < jnp.sum(s._hands[opp]))
        hands = jnp.where(jnp.arange(NUM_PLAYERS)[:, None] == opp, opp_hand[None, :], s._hands)
        world = s.replace(_hands=hands, _kitty=unseen - opp_hand)
        mask = jnp.where(
            s.terminated, s.legal_action_mask, legal_mask(hands[s.current_player], s.to_beat)
        )
        return world.replace(legal_action_mask=mask)

    # ------------------------------------------------------------------ people
    def action_to_str(self, action: int) -> str:
        return action_str(action)

    def render(self, state: State) -> str:
        s = jax.device_get(state)
        if np.ndim(s.current_player) != 0:
            raise ValueError("render takes one game, not a batch; index the batch first")
        head = f"Mini Dou Di Zhu  step {int(s.step_count)}  "
        if s.terminated:
            head += f"finished: seat {int(s.winner)} wins" if int(s.winner) >= 0 else "finished"
        else:
            what = "leads" if int(s.to_beat) < 0 else f"to beat {action_str(int(s.to_beat))}"
            head += f"to act: seat {int(s.current_player)} ({what})"
        lines = [head]
        for seat in range(NUM_PLAYERS):
            lines.append(
                f"seat {seat}: {hand_str(s._hands[seat]) or '-':<8} played: {hand_str(s.played[seat]) or '-'}"
            )
        lines.append(f"hidden: {hand_str(s._kitty) or '-'}")
        if s.terminated:
            lines.append(f"rewards: {np.asarray(s.rewards).astype(int).tolist()}")
        return "\n".join(lines)
