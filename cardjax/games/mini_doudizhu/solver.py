"""The exact solver of Mini Dou Di Zhu under perfect information.

:func:`solve` and :func:`first_player_win_rate` enumerate the 8832 distinct deals, weight each by
its probability under uniform shuffling of the 18 physical cards and solve it exactly (memoized
negamax over ``(hand to move, other hand, move to beat)``): under perfect play the leader wins
70.71% of deals (exactly 0.707143...), the Whitehouse et al. paper's figure.  The moves come from
the env's own rule (:func:`~cardjax.games.mini_doudizhu.env.legal_mask`, run in NumPy).
"""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

import numpy as np

from cardjax.games.mini_doudizhu.env import (FULL, HAND_SIZE, NUM_ACTIONS, NUM_CARDS, NUM_MOVES,
                                         NUM_RANKS, PASS, _as_hand, _as_to_beat, apply_action,
                                         hand_str, legal_mask)

# A hand is encoded as a small integer: mixed radix over the ranks (5, 5, 5, 5, 2, 2).
HAND_RADIX = (FULL + 1).astype(np.int64)
HAND_CODE_WEIGHTS = np.concatenate([[1], np.cumprod(HAND_RADIX[:-1])]).astype(np.int64)  # 1 5 25 125 625 1250
NUM_HAND_CODES = int(np.prod(HAND_RADIX))  # 2500
_NUM_TO_BEAT = NUM_MOVES + 1  # slot 18 = leading
ALL_HANDS = (np.arange(NUM_HAND_CODES)[:, None] // HAND_CODE_WEIGHTS) % HAND_RADIX  # code -> counts (2500, 6)


def hand_code(hand) -> int:
    return int(hand_codes(hand))


def hand_codes(hands) -> np.ndarray:
    """int64[...]: the codes of hands given as rank counts int[..., 6]."""
    return np.asarray(hands).astype(np.int64) @ HAND_CODE_WEIGHTS


@functools.lru_cache(maxsize=None)
def _move_tables():
    """For every hand code and every move to beat (slot 18 = leading): the legal actions and the
    codes of the hands they leave, from :func:`legal_mask` / :func:`apply_action` in NumPy."""
    codes = np.arange(NUM_HAND_CODES)
    to_beat = np.arange(_NUM_TO_BEAT) % _NUM_TO_BEAT
    to_beat = np.where(to_beat == NUM_MOVES, -1, to_beat)
    mask = legal_mask(ALL_HANDS[:, None, :], to_beat[None, :], xp=np)  # (2500, 19, 19)
    after = apply_action(ALL_HANDS[:, None, :], np.arange(NUM_ACTIONS)[None, :], xp=np)
    after_code = after @ HAND_CODE_WEIGHTS  # (2500, 19)
    assert (after_code[codes, PASS] == codes).all()
    return mask, after_code


class _Solver:
    """Memoized negamax over positions ``(hand to move, other hand, move to beat)``, encoded as
    one integer.  ``wins(me, opp, tb)`` is True when the player to move wins under perfect play."""

    def __init__(self):
        mask, after = _move_tables()
        self._mask, self._after = mask, after
        # per (hand code, to-beat slot): [(action, code after)], winning-if-empty moves first
        self._moves: dict[int, list[tuple[int, int]]] = {}
        self._memo: dict[int, bool] = {}

    def moves(self, me: int, slot: int) -> list[tuple[int, int]]:
        k = me * _NUM_TO_BEAT + slot
        m = self._moves.get(k)
        if m is None:
            acts = np.flatnonzero(self._mask[me, slot])
            m = sorted(((int(a), int(self._after[me, a])) for a in acts), key=lambda x: x[1] != 0)
            self._moves[k] = m
        return m

    def wins(self, me: int, opp: int, slot: int) -> bool:
        key = (me * NUM_HAND_CODES + opp) * _NUM_TO_BEAT + slot
        memo = self._memo
        v = memo.get(key)
        if v is not None:
            return v
        v = False
        for a, left in self.moves(me, slot):
            if left == 0 and a != PASS:
                v = True  # emptied the hand
                break
            nslot = NUM_MOVES if a == PASS else a
            if not self.wins(opp, left, nslot):
                v = True
                break
        memo[key] = v
        return v

    def best_actions(self, me: int, opp: int, slot: int) -> list[int]:
        """The legal actions that keep a won position won (all legal ones when it is lost)."""
        good, legal = [], []
        for a, left in self.moves(me, slot):
            legal.append(a)
            if (left == 0 and a != PASS) or not self.wins(opp, left, NUM_MOVES if a == PASS else a):
                good.append(a)
        return good or legal


@functools.lru_cache(maxsize=None)
def _solver() -> _Solver:
    return _Solver()


def position_wins(hand_to_move, other_hand, to_beat=None) -> bool:
    """Whether the player to move wins under perfect play (both hands known).

    Hands are rank counts (6,) or strings and may hold any number of cards (the player to move
    must hold at least one); ``to_beat`` is the move to beat (a string or action) or ``None``
    when leading.
    """
    me, opp = _as_hand(hand_to_move, "hand_to_move"), _as_hand(other_hand, "other_hand")
    _check_position(me, opp)
    tb = _as_to_beat(to_beat)
    return _solver().wins(hand_code(me), hand_code(opp), NUM_MOVES if tb < 0 else tb)


def optimal_actions(hand_to_move, other_hand, to_beat=None) -> list[int]:
    """The actions that win when the position is won (all legal actions when it is lost)."""
    me, opp = _as_hand(hand_to_move, "hand_to_move"), _as_hand(other_hand, "other_hand")
    _check_position(me, opp)
    tb = _as_to_beat(to_beat)
    return _solver().best_actions(hand_code(me), hand_code(opp), NUM_MOVES if tb < 0 else tb)


def _check_position(me, opp):
    if (me < 0).any() or (opp < 0).any() or ((me + opp) > FULL).any():
        raise ValueError(f"not a position of the 18-card deck: {hand_str(me)!r} vs {hand_str(opp)!r}")
    if me.sum() == 0 or opp.sum() == 0:
        raise ValueError("the game is over when a hand is empty")


def _hands_of_size(n: int) -> np.ndarray:
    return np.array(
        [h for h in itertools.product(*(range(c + 1) for c in FULL)) if sum(h) == n], np.int32
    )


def deal_count(hands) -> int:
    """Number of ways (ordered 7-card sets of physical cards) to deal ``hands`` (2, 6)."""
    h = np.asarray(hands)
    n = 1
    for r in range(NUM_RANKS):
        left = int(FULL[r])
        for seat in range(h.shape[0]):
            n *= math.comb(left, int(h[seat, r]))
            left -= int(h[seat, r])
    return n


NUM_DEALINGS = math.comb(NUM_CARDS, HAND_SIZE) * math.comb(NUM_CARDS - HAND_SIZE, HAND_SIZE)


@functools.lru_cache(maxsize=None)
def _solve_cached():
    one = _hands_of_size(HAND_SIZE)  # the 268 possible hands
    pairs = one[:, None, :] + one[None, :, :]
    i, j = np.nonzero((pairs <= FULL).all(-1))
    hands = np.stack([one[i], one[j]], axis=1).astype(np.int8)  # (8832, 2, 6)
    counts = [deal_count(h) for h in hands]
    probs = np.array(counts, np.float64) / NUM_DEALINGS
    solver = _solver()
    codes = hands.astype(np.int64) @ HAND_CODE_WEIGHTS
    values = np.array(
        [1 if solver.wins(int(a), int(b), NUM_MOVES) else -1 for a, b in codes], np.int8
    )
    win_exact = Fraction(sum(c for c, v in zip(counts, values) if v > 0), NUM_DEALINGS)
    for x in (hands, probs, values):
        x.setflags(write=False)
    return hands, probs, values, win_exact


def solve():
    """Every distinct deal solved exactly.

    Returns ``(hands, probs, values)``: ``hands`` int8 (8832, 2, 6) the deals (seat 0, the
    leader, first), ``probs`` float64 (8832,) each deal's probability when the 18 cards are
    shuffled uniformly (sums to 1), ``values`` int8 (8832,) the leader's result under perfect
    play by both sides, +1 win / -1 loss.  Computed once per process (read-only arrays).
    """
    hands, probs, values, _ = _solve_cached()
    return hands, probs, values


def first_player_win_rate(exact: bool = False):
    """Probability that the leader wins under perfect play (0.70714...; the paper's 70.7%).
    ``exact=True`` gives the ``fractions.Fraction``."""
    _, probs, values, win_exact = _solve_cached()
    return win_exact if exact else float(np.sum(probs[values > 0]))
