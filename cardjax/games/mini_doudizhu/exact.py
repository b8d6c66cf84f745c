"""The exact players of Whitehouse, Powley & Cowling (CIG 2011) for Mini Dou Di Zhu (figure 3).

Five deterministic players, all exact (no sampling), in NumPy:

* :class:`Cheating` -- **cheating minimax**: sees both hands and plays the minimax move, ties
  broken by the paper's equation (1);
* :class:`Determinized` -- **determinized minimax**: every opponent hand consistent with what
  the player has seen is a determinization, weighted by its probability; each is solved by the
  cheating minimax above and the move with the largest total weight is played (weighted
  majority vote).  ``inference=None`` (no inference), ``"incorrect"`` or ``"correct"``
  (Bayesian inference under an opponent model, below);
* :class:`Expectimax` -- **information-set expectimax** (the paper's section III.E): a tree of
  the player's information sets, the opponent's nodes being chance nodes over the hands the
  opponent may hold, each followed by the opponent's perfect-information choice.

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

The opponent's hand: determinizations and inference
---------------------------------------------------
Without inference an opponent hand ``h`` (``n`` cards out of ``unseen``) has the probability of
dealing the unseen cards at random to the opponent and the kitty (the paper's "fixing the
agent's own cards and randomly dealing the unseen cards", :meth:`MiniDouDizhu.sample_hidden`)::

    P0(h) = prod_r C(unseen_r, h_r) / C(n + 4, n)

(hypergeometric over the physical cards; the 4 kitty cards are the ones not dealt).  This is the
exact distribution when the physical identity of a played card is seen, as in the real game.

With **Bayesian inference** (the paper's section III.H, a pure-policy opponent model) every
earlier decision of the opponent is replayed from each hypothesis: the opponent's hand then was
``h`` plus the cards it has played since, the player's own hand then is known, the public
history is known.  A hypothesis under which the model would not have played the move actually
played is ruled out::

    P(h) = P0(h) * [d(h) = min_h' d(h')] / sum(...)        d(h) = decisions the model gets wrong

When some hypothesis explains every decision (always so with the correct model) this is exactly
the paper's rule (zero for the states whose model move does not match).  With an incorrect model
it can happen that none does; the hypotheses with the fewest mismatches are kept -- Bayes' rule
for a model that errs with a vanishing probability -- so the posterior never empties.

* ``"correct"``: the model is the opponent's own player (the same object, replayed from the
  opponent's side of every hypothesis).  Determinized minimax with correct inference against
  itself would need an infinite nesting of models, as the paper notes; it raises ``ValueError``.
* ``"incorrect"``: the paper says only that this model "uses a different, but still sensible,
  algorithm".  Here it is **cheating minimax** (the same equation (1) and ``eps``): the opponent is
  assumed to play perfect-information minimax as if it could see the player's cards.  It is none
  of the opponents of the paper's figure 3 (the three determinized players and expectimax);
  against a cheating minimax opponent it happens to be the correct model.

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

Using the players
-----------------
:func:`act` is the one-game form, ``(own hand, history) -> action``::

    act(Determinized(inference="correct"), "112234B", ["444"], opponent=Expectimax())

:func:`play` plays all 8832 deals (or any list) between two players in lockstep, and
:func:`win_rate` weights the results by the deals' probabilities.  Each player is a spec (a
frozen dataclass) whose :meth:`spawn` makes a batch of games' worth of state: ``act()`` gives the
moves of the rows whose turn it is, ``observe(actions)`` is told every move of both players.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from fractions import Fraction
from typing import Callable

import numpy as np

from cardjax.games.mini_doudizhu import solver as solver
from cardjax.games.mini_doudizhu.env import (ACTION_COUNT, ACTION_RANK, FULL, HAND_SIZE, NUM_ACTIONS,
                                         NUM_MOVES, NUM_RANKS, PASS, _as_hand, _as_to_beat,
                                         action_str, hand_str, legal_mask, parse_action)

EPS = 1e-3  # the constant of equation (1)
EPS_MAX = 2 ** (1 / 26) - 1  # 0.0270: below it equation (1) keeps the minimax order
TOL = 1e-12  # values this close are equal (then: lowest action id)
KITTY = 4  # cards dealt to nobody
LEAD = NUM_MOVES  # slot 18 of the tables: the player to move leads

# ---------------------------------------------------------------------------- hands and pairs
# A hand is a rank-count vector (6,); its code is the solver's (mixed radix over 5,5,5,5,2,2).
_RADIX, _HMUL = solver.HAND_RADIX, solver.HAND_CODE_WEIGHTS
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


_PX, _PY = _all_pairs()


def pair_index(x, y) -> np.ndarray:
    """Pair index of the hands ``x`` and ``y`` (int[..., 6], ``x + y <= FULL``).  Counts are
    clipped into the table, so a garbage row (a ruled-out hypothesis) stays in range."""
    x = np.clip(np.asarray(x), 0, 4).astype(np.int64)
    y = np.clip(np.asarray(y), 0, 4).astype(np.int64)
    out = np.zeros(np.broadcast_shapes(x.shape, y.shape)[:-1], np.int64)
    for r in range(NUM_RANKS):
        out += _PIDX[r, x[..., r], y[..., r]] * _PMUL[r]
    return out


_MOVE_VEC = np.zeros((NUM_ACTIONS, NUM_RANKS), np.int8)  # the cards of each action
for _a in range(NUM_MOVES):
    _MOVE_VEC[_a, ACTION_RANK[_a]] = ACTION_COUNT[_a]
# the moves that may answer each move (LEAD: every move), by the env's rule: what a hand holding
# every card may play, pass aside
_BEATS = [np.flatnonzero(legal_mask(FULL, s, xp=np)[:NUM_MOVES]).tolist()
          for s in list(range(NUM_MOVES)) + [-1]]
_COMB = np.array([[math.comb(n, k) for k in range(5)] for n in range(5)], np.int64)


def _weights(unseen, h) -> np.ndarray:
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
    nx, ny = _PX.sum(1), _PY.sum(1)
    valid = (nx >= 1) & (nx <= HAND_SIZE) & (ny >= 1) & (ny <= HAND_SIZE)
    for total in range(2, 2 * HAND_SIZE + 1):
        g = np.flatnonzero(valid & (nx + ny == total))
        x, y, n = _PX[g], _PY[g], nx[g]
        child = {}
        for a in range(NUM_MOVES):  # playing a: the other player moves, facing a
            holds = x[:, ACTION_RANK[a]] >= ACTION_COUNT[a]
            w = np.full(len(g), np.nan)
            i = np.flatnonzero(holds)
            won = n[i] == ACTION_COUNT[a]
            w[i] = np.where(won, 1.0, -V[pair_index(y[i], x[i] - _MOVE_VEC[a]), a])
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
        raise ValueError(f"not two hands of the 18-card deck: {hand_str(me)!r} and {hand_str(other)!r}")
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
    nx, nu = _PX.sum(1), _PY.sum(1)
    nopp = nu - kitty
    valid = (nx >= 1) & (nx <= HAND_SIZE) & (nopp >= 1) & (nopp <= HAND_SIZE)
    kits = _kitties(kitty)
    for total in range(2, 2 * HAND_SIZE + 1):  # own cards + opponent's cards
        g = np.flatnonzero(valid & (nx + nopp == total))
        if not len(g):
            continue
        x, u, n, m = _PX[g], _PY[g], nx[g], nopp[g]
        # the opponent's possible hands: h = unseen - kitty, weighted by the ways to deal it
        fits = (kits[None, :, :] <= u[:, None, :]).all(-1)  # (G, kitties)
        pe, ke = np.nonzero(fits)
        he = u[pe] - kits[ke]
        we = _weights(u[pe], he).astype(np.float64)
        wsum = np.bincount(pe, we, minlength=len(g))
        mine, theirs = {}, {}
        for a in range(NUM_MOVES):
            r, c = ACTION_RANK[a], ACTION_COUNT[a]
            w = np.full(len(g), np.nan)  # I play a
            i = np.flatnonzero(x[:, r] >= c)
            w[i] = np.where(n[i] == c, 1.0, VO[pair_index(x[i] - _MOVE_VEC[a], u[i]), a])
            mine[a] = w
            w = np.full(len(g), np.nan)  # the opponent plays a
            i = np.flatnonzero(u[:, r] >= c)
            w[i] = np.where(m[i] == c, -1.0, VM[pair_index(x[i], u[i] - _MOVE_VEC[a]), a])
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
                         f"{int(unseen.sum()) - kitty} (kitty {kitty}); it must hold 1..{HAND_SIZE}")


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
def _candidates():
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


# ---------------------------------------------------------------------------- the players
# The players keep hands as codes: a move subtracts its code, and two tables turn a pair of
# codes into a pair index (_pair_table) or the ways to deal a hand out of some cards (_deal_table).
_MOVE_CODE = (_MOVE_VEC.astype(np.int64) @ _HMUL).astype(np.int32)  # pass: 0
_FULL_CODE = int(FULL @ _HMUL)


@functools.lru_cache(maxsize=None)
def _pair_table():
    """int32 (NUM_CODES, NUM_CODES): pair index of two disjoint hands' codes (0 if not)."""
    t = np.zeros((NUM_CODES, NUM_CODES), np.int32)
    t[hand_code(_PX), hand_code(_PY)] = np.arange(NUM_PAIRS)
    t.setflags(write=False)
    return t


@functools.lru_cache(maxsize=None)
def _deal_table():
    """int32 (NUM_CODES, NUM_CODES): ``[code(cards), code(h)]`` = prod_r C(cards_r, h_r), the
    ways to deal hand ``h`` out of ``cards`` (0 unless h <= cards)."""
    t = np.zeros((NUM_CODES, NUM_CODES), np.int32)
    t[hand_code(_PX + _PY), hand_code(_PX)] = _weights(_PX + _PY, _PX)
    t.setflags(write=False)
    return t


def _codes(hands) -> np.ndarray:
    h = np.asarray(hands)
    return (h.astype(np.int32) if h.ndim == 1 else hand_code(h).astype(np.int32))


class _Rows:
    """The state every player keeps per game (row), as hand codes: its own hand and (for
    cheating) the other's, all cards played, the move to beat.  Seat 0 leads.  Rows of
    hypotheses that the cards have ruled out may hold garbage (kept in range, never used)."""

    def _setup(self, own0, other0, seat):
        self.seat = int(seat)
        self.t = 0
        self.own = _codes(own0)
        self.other = _codes(other0)  # only cheating players look at it
        self.played = np.zeros_like(self.own)
        self.slot = np.full(len(self.own), LEAD, np.int8)

    def _advance(self, a):
        mc = _MOVE_CODE[a]
        if self.t % 2 == self.seat:
            self.own = np.maximum(self.own - mc, 0)
        else:
            self.other = np.maximum(self.other - mc, 0)
        self.played = self.played + mc
        self.slot = np.where(a == PASS, LEAD, a).astype(np.int8)
        self.t += 1

    def unseen(self):
        return np.clip(_FULL_CODE - self.own - self.played, 0, NUM_CODES - 1)

    def keep(self, rows):
        """Keep only the games ``rows`` (index array) of the batch."""
        for k in ("own", "other", "played", "slot"):
            setattr(self, k, getattr(self, k)[rows])


@dataclasses.dataclass(frozen=True)
class Cheating:
    """Cheating minimax: both hands known, equation (1) with ``eps`` (0: plain minimax)."""

    eps: float = EPS

    @property
    def name(self) -> str:
        return "cheating minimax" + ("" if self.eps else " (plain)")

    def spawn(self, own0, other0, seat, opponent=None):
        """Rows of games: own and other starting hands (counts (K, 6) or codes (K,))."""
        return _CheatingRows(self, own0, other0, seat)


class _CheatingRows(_Rows):
    def __init__(self, spec, own0, other0, seat):
        self._setup(own0, other0, seat)
        self.D = minimax_tables(spec.eps)[1]
        self.P = _pair_table()

    def act(self):
        return self.D[self.P[self.own, self.other], self.slot].astype(np.int64)

    def observe(self, actions):
        self._advance(np.asarray(actions, np.int64))


@dataclasses.dataclass(frozen=True)
class Expectimax:
    """Information-set expectimax with equation (1)'s ``eps`` (0: plain expectimax)."""

    eps: float = EPS
    kitty: int = KITTY

    @property
    def name(self) -> str:
        return "expectimax" + ("" if self.eps else " (plain)")

    def spawn(self, own0, other0, seat, opponent=None):
        return _ExpectimaxRows(self, own0, other0, seat)


class _ExpectimaxRows(_Rows):
    def __init__(self, spec, own0, other0, seat):
        self._setup(own0, other0, seat)
        self.D = expectimax_tables(spec.eps, spec.kitty)[2]
        self.P = _pair_table()

    def act(self):
        return self.D[self.P[self.own, self.unseen()], self.slot].astype(np.int64)

    def observe(self, actions):
        self._advance(np.asarray(actions, np.int64))


@dataclasses.dataclass(frozen=True)
class Determinized:
    """Determinized minimax: every consistent opponent hand, weighted by its probability (and
    by the inference, if any), solved by cheating minimax with ``eps``; weighted majority vote.

    ``inference``: ``None``, ``"incorrect"`` (the model is cheating minimax), ``"correct"`` (the
    model is the actual opponent, given to :meth:`spawn`) or any player spec as the model."""

    eps: float = EPS
    inference: object = None

    def __post_init__(self):
        if not (self.inference in (None, "incorrect", "correct")
                or hasattr(self.inference, "spawn")):
            raise ValueError(f"inference must be None, 'incorrect', 'correct' or a player, "
                             f"got {self.inference!r}")

    @property
    def name(self) -> str:
        inf = {None: "no inference", "incorrect": "incorrect inference",
               "correct": "correct inference"}.get(self.inference, f"model {self.inference}")
        return f"determinized minimax, {inf}" + ("" if self.eps else " (plain)")

    def model(self, opponent):
        """The opponent model used against ``opponent`` (None without inference)."""
        if self.inference is None:
            return None
        if self.inference == "incorrect":
            return Cheating(self.eps)
        if self.inference == "correct":
            if opponent is None:
                raise ValueError("correct inference needs the opponent's player (opponent=...)")
            if isinstance(opponent, Determinized) and opponent.inference == "correct":
                raise ValueError("determinized minimax with correct inference cannot model an "
                                 "opponent that models it in turn (infinite nesting)")
            return opponent
        return self.inference

    def spawn(self, own0, other0, seat, opponent=None):
        return _DeterminizedRows(self, own0, other0, seat, self.model(opponent))


class _DeterminizedRows(_Rows):
    def __init__(self, spec, own0, other0, seat, model):
        self._setup(own0, other0, seat)
        self.D = minimax_tables(spec.eps)[1]
        self.P, self.W = _pair_table(), _deal_table()
        cand = _candidates()[self.own].astype(np.int32)  # (K, M) opponent's starting hands
        self.ok = cand >= 0  # not padding, and not ruled out by the cards it has played
        self.hyp = np.maximum(cand, 0)  # the opponent's current hand under each hypothesis
        self.d = np.zeros(cand.shape, np.int16)  # decisions the model gets wrong
        self.model = None
        if model is not None:
            M = cand.shape[1]
            self.model = model.spawn(self.hyp.ravel(), np.repeat(self.own, M), 1 - self.seat,
                                     opponent=spec)

    def weights(self):
        """``(hypotheses (K, M) codes of the opponent's current hand, probabilities (K, M),
        integer weights (K, M))``; padding and hypotheses ruled out are 0."""
        w = self.W[self.unseen()[:, None], self.hyp] * self.ok
        if self.model is not None:
            d = np.where(self.ok, self.d, np.iinfo(np.int16).max)
            w = w * (d == d.min(1, keepdims=True))
        tot = w.sum(1, keepdims=True)
        return self.hyp, w / np.maximum(tot, 1), w

    def act(self):
        _, _, w = self.weights()
        K = len(w)
        dec = self.D[self.P[self.own[:, None], self.hyp], self.slot[:, None]].astype(np.int64)
        dec += np.arange(K)[:, None] * NUM_ACTIONS
        votes = np.bincount(dec.ravel(), w.ravel().astype(np.float64), minlength=K * NUM_ACTIONS)
        return np.argmax(votes.reshape(K, NUM_ACTIONS), axis=1)

    def observe(self, actions):
        a = np.asarray(actions, np.int64)
        if self.t % 2 != self.seat:  # the opponent moved
            M = self.hyp.shape[1]
            if self.model is not None:  # what would the model have done?
                self.d += self.model.act().reshape(-1, M) != a[:, None]
            r, c = ACTION_RANK[a][:, None], ACTION_COUNT[a][:, None]
            self.ok &= (a[:, None] == PASS) | ((self.hyp // _HMUL[r]) % _RADIX[r] >= c)
            self.hyp = np.maximum(self.hyp - _MOVE_CODE[a][:, None], 0)
        if self.model is not None:
            self.model.observe(np.repeat(a, self.hyp.shape[1]))
        self._advance(a)

    def keep(self, rows):
        super().keep(rows)
        if self.model is not None:
            M = self.hyp.shape[1]
            self.model.keep((rows[:, None] * M + np.arange(M)).ravel())
        self.ok, self.hyp, self.d = self.ok[rows], self.hyp[rows], self.d[rows]


PLAYERS: dict[str, Callable[[float], object]] = {
    "cheat": lambda eps: Cheating(eps),
    "det": lambda eps: Determinized(eps),
    "det_inc": lambda eps: Determinized(eps, "incorrect"),
    "det_cor": lambda eps: Determinized(eps, "correct"),
    "expectimax": lambda eps: Expectimax(eps),
}


# ---------------------------------------------------------------------------- one game
def _replay(player, hand, history, other_hand, opponent):
    """A one-row instance of ``player`` for the seat to move after ``history``, told the
    history.  Checks the input (``ValueError``)."""
    me = _as_hand(hand, "hand")
    hist = [parse_action(a) if isinstance(a, str) else int(a) for a in history]
    for a in hist:
        if not 0 <= a < NUM_ACTIONS:
            raise ValueError(f"history: actions are 0..{NUM_ACTIONS - 1}, got {a}")
    seat = len(hist) % 2
    own0 = me + sum((_MOVE_VEC[a] for a in hist[seat::2]), np.zeros(NUM_RANKS, np.int64))
    opp_played = sum((_MOVE_VEC[a] for a in hist[1 - seat::2]), np.zeros(NUM_RANKS, np.int64))
    if (me < 0).any() or own0.sum() != HAND_SIZE or (own0 > FULL).any():
        raise ValueError(f"hand {hand_str(np.maximum(me, 0))!r} and its moves in the history "
                         f"must make a {HAND_SIZE}-card starting hand of the deck")
    if (own0 + opp_played > FULL).any() or opp_played.sum() >= HAND_SIZE:
        raise ValueError("the opponent's moves in the history do not fit the deck and a "
                         f"{HAND_SIZE}-card hand")
    if other_hand is not None:
        oth = _as_hand(other_hand, "other_hand")
        other0 = oth + opp_played
        if (oth < 0).any() or other0.sum() != HAND_SIZE or (own0 + other0 > FULL).any():
            raise ValueError("other_hand and its moves must make a 7-card hand disjoint from yours")
    elif isinstance(player, Cheating):
        raise ValueError("cheating minimax needs other_hand")
    else:
        other0 = np.zeros(NUM_RANKS, np.int64)  # not looked at
    # the moves must be legal for the hands they come from (own: exactly; opponent: as far
    # as the public cards tell)
    hands = {seat: own0.copy(), 1 - seat: other0.copy() if other_hand is not None else None}
    tb = -1
    for i, a in enumerate(hist):
        p = i % 2
        if not legal_mask(FULL, tb, xp=np)[a]:  # the env's rule, whatever the hand
            raise ValueError(f"history[{i}]: a leader may not pass" if tb < 0 else
                             f"history[{i}]: {action_str(a)} does not beat {action_str(tb)}")
        if hands[p] is not None:
            if not legal_mask(hands[p], tb, xp=np)[a]:
                raise ValueError(f"history[{i}]: {action_str(a)} is not legal for {hand_str(hands[p])}")
            hands[p] = hands[p] - _MOVE_VEC[a]
            if hands[p].sum() == 0:
                raise ValueError(f"history[{i}]: the game is over (a hand is empty)")
        tb = -1 if a == PASS else a
    if opponent is not None and not hasattr(opponent, "spawn"):
        raise ValueError(f"opponent must be a player (e.g. Expectimax()), got {opponent!r}")
    inst = player.spawn(own0[None], other0[None], seat, opponent=opponent)
    for a in hist:
        inst.observe(np.array([a]))
    return inst


def act(player, hand, history=(), other_hand=None, opponent=None) -> int:
    """The move of ``player`` (a spec: :class:`Cheating`, :class:`Determinized`,
    :class:`Expectimax`) holding ``hand`` (counts or a string) after ``history`` (actions or move
    strings, from the leader's first move; the player to move is seat ``len(history) % 2``).
    ``other_hand`` (the opponent's current hand) is for cheating minimax, ``opponent`` (a spec)
    for correct inference."""
    return int(_replay(player, hand, history, other_hand, opponent).act()[0])


def posterior(player, hand, history=(), other_hand=None, opponent=None):
    """A determinized player's weights over the opponent's current hands after ``history``:
    ``(hands int (m, 6), probabilities float (m,), weights int (m,))`` for the hands of positive
    weight (the probabilities sum to 1).  ``other_hand`` is needed only by a model that cheats."""
    if not isinstance(player, Determinized):
        raise ValueError("posterior is for Determinized players")
    inst = _replay(player, hand, history, other_hand, opponent)
    h, p, w = inst.weights()
    keep = w[0] > 0
    return HANDS[h[0][keep]].astype(np.int64), p[0][keep], w[0][keep].astype(np.int64)


# ---------------------------------------------------------------------------- all deals
def play(p1, p2, hands, chunk: int = 1104, on_act=None) -> np.ndarray:
    """Play one game per deal: ``p1`` (seat 0, leads) holds ``hands[:, 0]``, ``p2`` holds
    ``hands[:, 1]``; returns the winner seat per deal (int8).  Every move is checked legal.
    ``on_act(seat, instance, deal_rows, actions, hands_now)`` is called after each decision
    (before the move is applied; ``hands_now`` int (k, 2, 6) the hands of the games still on)."""
    hands = np.asarray(hands)
    winners = np.full(len(hands), -1, np.int8)
    for lo in range(0, len(hands), chunk):
        rows = np.arange(lo, min(lo + chunk, len(hands)))
        h = hands[rows].astype(np.int16)
        players = [p1.spawn(h[:, 0], h[:, 1], 0, opponent=p2),
                   p2.spawn(h[:, 1], h[:, 0], 1, opponent=p1)]
        cur = h.copy()
        tb = np.full(len(rows), -1, np.int64)
        for t in range(64):
            seat = t % 2
            a = players[seat].act()
            ok = legal_mask(cur[:, seat], tb, xp=np)[np.arange(len(rows)), a]
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                raise RuntimeError(f"{players[seat]} played an illegal {action_str(a[i])} "
                                   f"with {hand_str(cur[i, seat])} facing {tb[i]}")
            if on_act is not None:
                on_act(seat, players[seat], rows, a, cur)
            cur[:, seat] -= _MOVE_VEC[a]
            tb = np.where(a == PASS, -1, a)
            for p in players:
                p.observe(a)
            done = cur[:, seat].sum(1) == 0
            winners[rows[done]] = seat
            if done.all():
                break
            live = np.flatnonzero(~done)
            if not done.any():
                continue
            rows, cur, tb = rows[live], cur[live], tb[live]
            for p in players:
                p.keep(live)
        else:
            raise RuntimeError("a game did not end")
    return winners


@functools.lru_cache(maxsize=None)
def deals():
    """``(hands int8 (8832, 2, 6), counts int64 (8832,), total)``: every distinct deal, the
    number of ways to deal it (the solver's order) and the number of dealings."""
    hands, _, _ = solver.solve()
    counts = np.array([solver.deal_count(h) for h in hands], np.int64)
    assert counts.sum() == solver.NUM_DEALINGS
    return hands, counts, solver.NUM_DEALINGS


def win_rate(winners, seat: int = 0) -> Fraction:
    """The exact probability that ``seat`` wins a random deal, from :func:`play`'s winners over
    all 8832 deals (weighted by the ways to deal each)."""
    _, counts, total = deals()
    w = np.asarray(winners)
    if w.shape != counts.shape or (w < 0).any():
        raise ValueError("winners of all 8832 deals are needed")
    return Fraction(int(counts[w == seat].sum()), total)
