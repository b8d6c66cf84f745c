"""The exact value tables of Mini Dou Di Zhu behind the exact players of Whitehouse, Powley &
Cowling (CIG 2011) (:mod:`cardjax.games.mini_doudizhu.exact`), in NumPy: hands and pairs of
hands as table indices, equation (1) (cheating minimax) and information-set expectimax over
every position, and the opponent's possible hands (the determinizations) with their weights.

Positions and information sets
------------------------------
Seat 0 (the paper's player 1) leads; the players alternate, a pass being a move.  A player's
information set is its own hand, the move history (every move is public) and so the cards played
by each side.  The opponent holds ``n`` cards (7 minus what it has played) out of the ``n + 4``
cards the player has not seen (``unseen = FULL - own hand - played``); the other 4 are the kitty.

Equation (1) and the remaining tie-breaks
-----------------------------------------
Every search value follows the paper's equation (1) in negamax form::

    m(s) = max_a -m(f(s, a))  +  eps * mean_a -m(f(s, a))        (a over the legal moves of s)

a terminal position is worth -1 to the player to move (the other player has emptied its hand).
The second term prefers, among moves of equal minimax value, the one that leaves the opponent
the most chances to go wrong.  ``eps`` is a fixed constant (:data:`EPS` = 1e-3; any eps with
``(1 + eps)**26 < 2``, i.e. below :data:`EPS_MAX` = 0.027, keeps the minimax order, a game
lasting at most 26 moves); ``eps=0`` is the plain
minimax of the comparison ("first winning move": the lowest action id among the moves of best
minimax value).  What is left after equation (1):

* moves whose values differ by at most :data:`TOL` (1e-12; float round-off) are equal, and the
  lowest action id among them is played (actions: ``1 11 111 1111 2 ... 4444 B R pass``);
* determinized minimax: the weights are integers (products of binomials), so the vote is exact;
  an equal vote goes to the lowest action id;
* expectimax: the same equation with the minimising opponent's nodes averaged over its hands
  (below); equal values, again the lowest action id.

The opponent's hand: determinizations
-------------------------------------
Without inference an opponent hand ``h`` (``n`` cards out of ``unseen``) has the probability of
dealing the unseen cards at random to the opponent and the kitty (the paper's "fixing the
agent's own cards and randomly dealing the unseen cards", :meth:`MiniDouDizhu.sample_hidden`)::

    P0(h) = prod_r C(unseen_r, h_r) / C(n + 4, n)

(hypergeometric over the physical cards; the 4 kitty cards are the ones not dealt).  This is the
exact distribution when the physical identity of a played card is seen, as in the real game.

Expectimax
----------
The value of the player's information set (own hand, unseen cards, move to beat, who moves)::

    mine:      v = max_a v(f(I, a)) + eps * mean_a v(f(I, a))
    opponent:  v = sum_h P0(h) * [min_{a in A(h)} v(f(I, a)) + eps * mean_{a in A(h)} v(f(I, a))]

(terminal: +1 won, -1 lost).  At the opponent's node each hand it may hold is a chance branch
with the no-inference probability ``P0`` of *that* information set, followed by the opponent's
move chosen with knowledge of both hands (the paper's figure 1b).  ``eps`` gives expectimax the
same preference among equal values as equation (1) (the paper states equation (1) for minimax
only); with one possible opponent hand (``kitty=0``) expectimax *is* cheating minimax.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from cardjax.games.mini_doudizhu import solver as solver
from cardjax.games.mini_doudizhu.env import (ACTION_COUNT, ACTION_RANK, FULL, HAND_SIZE,
                                             NUM_ACTIONS, NUM_MOVES, NUM_RANKS, PASS, _as_hand,
                                             _as_to_beat, hand_str, legal_mask)

EPS = 1e-3  # the constant of equation (1)
EPS_MAX = 2 ** (1 / 26) - 1  # 0.0270: below it equation (1) keeps the minimax order
TOL = 1e-12  # values this close are equal (then: lowest action id)
KITTY = 4  # cards dealt to nobody
LEAD = NUM_MOVES  # slot 18 of the tables: the player to move leads

# ---------------------------------------------------------------------------- hands and pairs
# A hand is a rank-count vector (6,); its code is the solver's (mixed radix over 5,5,5,5,2,2).
NUM_CODES = solver.NUM_HAND_CODES  # 2500
HANDS = solver.ALL_HANDS.astype(np.int8)  # code -> counts
HANDS.setflags(write=False)
hand_code = solver.hand_codes

# A position of two disjoint hands (x, y), x + y <= FULL, has a pair index: per rank, the
# (x_r, y_r) combinations with x_r + y_r <= FULL_r (15 for 1..4, 3 for the jokers).
_PIDX = np.zeros((NUM_RANKS, 5, 5), np.int64)
_NCOMB = np.zeros(NUM_RANKS, np.int64)
for _r in range(NUM_RANKS):
    _k = 0
    for _x in range(FULL[_r] + 1):
        for _y in range(FULL[_r] + 1 - _x):
            _PIDX[_r, _x, _y] = _k
            _k += 1
    _NCOMB[_r] = _k
_PMUL = np.concatenate([[1], np.cumprod(_NCOMB[:-1])]).astype(np.int64)
NUM_PAIRS = int(np.prod(_NCOMB))  # 455,625


def _all_pairs():
    idx = np.arange(NUM_PAIRS)
    x = np.zeros((NUM_PAIRS, NUM_RANKS), np.int8)
    y = np.zeros((NUM_PAIRS, NUM_RANKS), np.int8)
    for r in range(NUM_RANKS):
        k = (idx // _PMUL[r]) % _NCOMB[r]
        xs, ys = np.nonzero(np.ones((5, 5), bool))
        ok = xs + ys <= FULL[r]
        lut_x = np.zeros(_NCOMB[r], np.int8)
        lut_y = np.zeros(_NCOMB[r], np.int8)
        lut_x[_PIDX[r, xs[ok], ys[ok]]] = xs[ok]
        lut_y[_PIDX[r, xs[ok], ys[ok]]] = ys[ok]
        x[:, r], y[:, r] = lut_x[k], lut_y[k]
    return x, y


PX, PY = _all_pairs()  # pair index -> the hands x and y (int8 (NUM_PAIRS, 6))


def pair_index(x, y) -> np.ndarray:
    """Pair index of the hands ``x`` and ``y`` (int[..., 6], ``x + y <= FULL``).  Counts are
    clipped into the table, so a garbage row (a ruled-out hypothesis) stays in range."""
    x = np.clip(np.asarray(x), 0, 4).astype(np.int64)
    y = np.clip(np.asarray(y), 0, 4).astype(np.int64)
    out = np.zeros(np.broadcast_shapes(x.shape, y.shape)[:-1], np.int64)
    for r in range(NUM_RANKS):
        out += _PIDX[r, x[..., r], y[..., r]] * _PMUL[r]
    return out


MOVE_VEC = np.zeros((NUM_ACTIONS, NUM_RANKS), np.int8)  # the cards of each action
for _a in range(NUM_MOVES):
    MOVE_VEC[_a, ACTION_RANK[_a]] = ACTION_COUNT[_a]
# the moves that may answer each move (LEAD: every move), by the env's rule: what a hand holding
# every card may play, pass aside
_BEATS = [np.flatnonzero(legal_mask(FULL, s, xp=np)[:NUM_MOVES]).tolist()
          for s in list(range(NUM_MOVES)) + [-1]]
_COMB = np.array([[math.comb(n, k) for k in range(5)] for n in range(5)], np.int64)


def deal_weights(unseen, h) -> np.ndarray:
    """prod_r C(unseen_r, h_r): the number of ways to deal ``h`` out of ``unseen`` (int64)."""
    u = np.clip(np.asarray(unseen), 0, 4).astype(np.int64)
    h = np.asarray(h).astype(np.int64)
    ok = (h >= 0).all(-1) & (h <= u).all(-1)
    h = np.clip(h, 0, 4)
    w = np.ones(np.broadcast_shapes(u.shape, h.shape)[:-1], np.int64)
    for r in range(NUM_RANKS):
        w *= _COMB[u[..., r], h[..., r]]
    return np.where(ok, w, 0)


def _best(W: np.ndarray, eps: float, sign: float = 1.0):
    """Rows of child values ``W`` (NaN = illegal): ``(value, decision)`` with value = best +
    eps * mean (best = max, or min when ``sign`` is -1) and decision = the lowest action within
    TOL of the best."""
    legal = ~np.isnan(W)
    cnt = legal.sum(1)
    best = sign * np.max(np.where(legal, sign * W, -np.inf), axis=1)
    mean = np.where(legal, W, 0.0).sum(1) / np.maximum(cnt, 1)
    dec = np.argmax(legal & (sign * (W - best[:, None]) >= -TOL), axis=1)
    return best + eps * mean, dec.astype(np.int8)


# ---------------------------------------------------------------------------- cheating minimax
@functools.lru_cache(maxsize=4)
def minimax_tables(eps: float = EPS):
    """Equation (1) over every position: ``(values, decisions)``, float64 / int8 (NUM_PAIRS, 19).

    Row ``pair_index(me, other)``, column the move to beat (18 = leading): the value to the
    player to move holding ``me`` against ``other`` (both 1..7 cards; other rows are NaN / pass)
    and its move.  With ``eps=0`` the values are the plain minimax values +1 / -1.  Computed
    bottom-up by the number of cards left (a pass keeps the cards: the following slots come after
    the leading one)."""
    V = np.full((NUM_PAIRS, NUM_ACTIONS), np.nan)
    D = np.full((NUM_PAIRS, NUM_ACTIONS), PASS, np.int8)
    nx, ny = PX.sum(1), PY.sum(1)
    valid = (nx >= 1) & (nx <= HAND_SIZE) & (ny >= 1) & (ny <= HAND_SIZE)
    for total in range(2, 2 * HAND_SIZE + 1):
        g = np.flatnonzero(valid & (nx + ny == total))
        x, y, n = PX[g], PY[g], nx[g]
        child = {}
        for a in range(NUM_MOVES):  # playing a: the other player moves, facing a
            holds = x[:, ACTION_RANK[a]] >= ACTION_COUNT[a]
            w = np.full(len(g), np.nan)
            i = np.flatnonzero(holds)
            won = n[i] == ACTION_COUNT[a]
            w[i] = np.where(won, 1.0, -V[pair_index(y[i], x[i] - MOVE_VEC[a]), a])
            child[a] = w
        for s in [LEAD] + list(range(NUM_MOVES)):
            W = np.full((len(g), NUM_ACTIONS), np.nan)
            for a in _BEATS[s]:
                W[:, a] = child[a]
            if s != LEAD:
                W[:, PASS] = -V[pair_index(y, x), LEAD]
            V[g, s], D[g, s] = _best(W, eps)
    V.setflags(write=False)
    D.setflags(write=False)
    return V, D


def _check_pair(me, other):
    if (me < 0).any() or (other < 0).any() or ((me + other) > FULL).any():
        raise ValueError(f"not two hands of the 18-card deck: {hand_str(me)!r} and "
                         f"{hand_str(other)!r}")
    for what, h in (("hand to move", me), ("other hand", other)):
        if not 1 <= h.sum() <= HAND_SIZE:
            raise ValueError(f"the {what} must hold 1..{HAND_SIZE} cards, "
                             f"got {int(h.sum())} ({hand_str(h)!r})")


def minimax_value(hand_to_move, other_hand, to_beat=None, eps: float = EPS) -> float:
    """Equation (1)'s value of a position to the player to move (both hands known; ``to_beat``
    a move string / action, ``None`` when leading).  ``eps=0``: the plain value, +1 or -1."""
    me, other = _as_hand(hand_to_move, "hand_to_move"), _as_hand(other_hand, "other_hand")
    _check_pair(me, other)
    tb = _as_to_beat(to_beat)
    return float(minimax_tables(eps)[0][pair_index(me, other), LEAD if tb < 0 else tb])


def minimax_action(hand_to_move, other_hand, to_beat=None, eps: float = EPS) -> int:
    """Cheating minimax's move in a position (equation (1), then the lowest action id)."""
    me, other = _as_hand(hand_to_move, "hand_to_move"), _as_hand(other_hand, "other_hand")
    _check_pair(me, other)
    tb = _as_to_beat(to_beat)
    return int(minimax_tables(eps)[1][pair_index(me, other), LEAD if tb < 0 else tb])


# ---------------------------------------------------------------------------- expectimax
@functools.lru_cache(maxsize=None)
def _kitties(k: int) -> np.ndarray:
    """Every multiset of ``k`` cards of the deck (int8 (m, 6))."""
    return np.array([h for h in itertools.product(*(range(c + 1) for c in FULL)) if sum(h) == k],
                    np.int8).reshape(-1, NUM_RANKS)


@functools.lru_cache(maxsize=4)
def expectimax_tables(eps: float = EPS, kitty: int = KITTY):
    """Information-set expectimax over every information set: ``(mine, theirs, decisions)``.

    Row ``pair_index(hand, unseen)`` (own hand 1..7 cards; the opponent holds ``n =
    |unseen| - kitty``, 1..7 cards), column the move to beat (18 = leading).  ``mine`` is the
    value when the player is to move, ``theirs`` when the opponent is, both to the player;
    ``decisions`` the player's moves.  ``kitty=0`` (one possible opponent hand) gives cheating
    minimax."""
    VM = np.full((NUM_PAIRS, NUM_ACTIONS), np.nan)
    VO = np.full((NUM_PAIRS, NUM_ACTIONS), np.nan)
    DM = np.full((NUM_PAIRS, NUM_ACTIONS), PASS, np.int8)
    nx, nu = PX.sum(1), PY.sum(1)
    nopp = nu - kitty
    valid = (nx >= 1) & (nx <= HAND_SIZE) & (nopp >= 1) & (nopp <= HAND_SIZE)
    kits = _kitties(kitty)
    for total in range(2, 2 * HAND_SIZE + 1):  # own cards + opponent's cards
        g = np.flatnonzero(valid & (nx + nopp == total))
        if not len(g):
            continue
        x, u, n, m = PX[g], PY[g], nx[g], nopp[g]
        # the opponent's possible hands: h = unseen - kitty, weighted by the ways to deal it
        fits = (kits[None, :, :] <= u[:, None, :]).all(-1)  # (G, kitties)
        pe, ke = np.nonzero(fits)
        he = u[pe] - kits[ke]
        we = deal_weights(u[pe], he).astype(np.float64)
        wsum = np.bincount(pe, we, minlength=len(g))
        mine, theirs = {}, {}
        for a in range(NUM_MOVES):
            r, c = ACTION_RANK[a], ACTION_COUNT[a]
            w = np.full(len(g), np.nan)  # I play a
            i = np.flatnonzero(x[:, r] >= c)
            w[i] = np.where(n[i] == c, 1.0, VO[pair_index(x[i] - MOVE_VEC[a], u[i]), a])
            mine[a] = w
            w = np.full(len(g), np.nan)  # the opponent plays a
            i = np.flatnonzero(u[:, r] >= c)
            w[i] = np.where(m[i] == c, -1.0, VM[pair_index(x[i], u[i] - MOVE_VEC[a]), a])
            theirs[a] = w
        for s in [LEAD] + list(range(NUM_MOVES)):
            # the player's node
            W = np.full((len(g), NUM_ACTIONS), np.nan)
            for a in _BEATS[s]:
                W[:, a] = mine[a]
            if s != LEAD:
                W[:, PASS] = VO[g, LEAD]
            VM[g, s], DM[g, s] = _best(W, eps)
            # the opponent's node: per possible hand, its best move for it (min) + eps * mean
            lo = np.full(len(pe), np.inf)
            tot = np.zeros(len(pe))
            cnt = np.zeros(len(pe))
            if s != LEAD:
                pv = VM[g, LEAD][pe]
                lo, tot, cnt = pv.copy(), pv.copy(), np.ones(len(pe))
            for a in _BEATS[s]:
                holds = he[:, ACTION_RANK[a]] >= ACTION_COUNT[a]
                if not holds.any():
                    continue
                v = theirs[a][pe]
                lo = np.where(holds, np.minimum(lo, v), lo)
                tot = np.where(holds, tot + v, tot)
                cnt = cnt + holds
            val = lo + eps * tot / np.maximum(cnt, 1)
            VO[g, s] = np.bincount(pe, we * val, minlength=len(g)) / wsum
    for t in (VM, VO, DM):
        t.setflags(write=False)
    return VM, VO, DM


def _check_info(hand, unseen, kitty):
    if (hand < 0).any() or (unseen < 0).any() or ((hand + unseen) > FULL).any():
        raise ValueError(f"not a hand and unseen cards of the 18-card deck: {hand_str(hand)!r} "
                         f"and {hand_str(unseen)!r}")
    if not 1 <= hand.sum() <= HAND_SIZE:
        raise ValueError(f"the hand must hold 1..{HAND_SIZE} cards, got {int(hand.sum())}")
    if not 1 <= unseen.sum() - kitty <= HAND_SIZE:
        raise ValueError(f"{int(unseen.sum())} unseen cards leave the opponent "
                         f"{int(unseen.sum()) - kitty} (kitty {kitty}); "
                         f"it must hold 1..{HAND_SIZE}")


def expectimax_value(hand, unseen, to_beat=None, to_move: str = "me", eps: float = EPS,
                     kitty: int = KITTY) -> float:
    """Expectimax value of an information set to its player: own ``hand``, the ``unseen`` cards
    (opponent's hand + kitty), the move to beat, ``to_move`` ``"me"`` or ``"opponent"``."""
    h, u = _as_hand(hand, "hand"), _as_hand(unseen, "unseen")
    _check_info(h, u, kitty)
    if to_move not in ("me", "opponent"):
        raise ValueError(f"to_move must be 'me' or 'opponent', got {to_move!r}")
    tb = _as_to_beat(to_beat)
    VM, VO, _ = expectimax_tables(eps, kitty)
    return float((VM if to_move == "me" else VO)[pair_index(h, u), LEAD if tb < 0 else tb])


def expectimax_action(hand, unseen, to_beat=None, eps: float = EPS, kitty: int = KITTY) -> int:
    """Expectimax's move from an information set (the player to move)."""
    h, u = _as_hand(hand, "hand"), _as_hand(unseen, "unseen")
    _check_info(h, u, kitty)
    tb = _as_to_beat(to_beat)
    return int(expectimax_tables(eps, kitty)[2][pair_index(h, u), LEAD if tb < 0 else tb])


# ---------------------------------------------------------------------------- determinization
@functools.lru_cache(maxsize=None)
def candidates():
    """For every hand code: the codes of the 7-card hands disjoint from it (padded with -1),
    int16 (NUM_CODES, 66) -- the opponent's possible starting hands."""
    seven = np.flatnonzero(HANDS.sum(1) == HAND_SIZE)
    fit = (HANDS[:, None, :].astype(np.int16) + HANDS[seven][None, :, :] <= FULL).all(-1)
    fit &= (HANDS.sum(1) == HAND_SIZE)[:, None]
    width = int(fit.sum(1).max())  # 66, the paper's largest information set
    out = np.full((NUM_CODES, width), -1, np.int16)
    for c in np.flatnonzero(fit.any(1)):
        k = seven[fit[c]]
        out[c, :len(k)] = k
    out.setflags(write=False)
    return out


def determinized_action(hand, to_beat, opponent_hands, weights, eps: float = EPS) -> int:
    """The weighted majority vote of cheating minimax over explicit determinizations: the move
    played in each ``opponent_hands[i]`` (counts or strings) weighted by ``weights[i]``; an equal
    vote goes to the lowest action id."""
    me = _as_hand(hand, "hand")
    opp = [_as_hand(h, f"opponent_hands[{i}]") for i, h in enumerate(opponent_hands)]
    w = np.asarray(weights, np.float64)
    if len(opp) == 0 or w.shape != (len(opp),) or (w < 0).any() or w.sum() <= 0:
        raise ValueError("one non-negative weight per opponent hand, not all zero")
    for h in opp:
        _check_pair(me, h)
    tb = _as_to_beat(to_beat)
    dec = minimax_tables(eps)[1][pair_index(me, np.stack(opp)), LEAD if tb < 0 else tb]
    return int(np.argmax(np.bincount(dec, w, minlength=NUM_ACTIONS)))
