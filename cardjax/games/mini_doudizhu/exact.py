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

The value tables (equation (1), its tie-breaks and ``eps``, expectimax, the weights ``P0`` of
the opponent's possible hands) are :mod:`cardjax.games.mini_doudizhu.exact_tables`.

Bayesian inference
------------------
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
from fractions import Fraction
from typing import Callable

import numpy as np

from cardjax.games.mini_doudizhu import solver as solver
from cardjax.games.mini_doudizhu.env import (ACTION_COUNT, ACTION_RANK, FULL, HAND_SIZE,
                                             NUM_ACTIONS, NUM_RANKS, PASS, _as_hand, action_str,
                                             hand_str, legal_mask, parse_action)
from cardjax.games.mini_doudizhu.exact_tables import (EPS, HANDS, KITTY, LEAD, MOVE_VEC,
                                                      NUM_CODES, NUM_PAIRS, PX, PY, candidates,
                                                      deal_weights, expectimax_tables, hand_code,
                                                      minimax_tables)

_RADIX, _HMUL = solver.HAND_RADIX, solver.HAND_CODE_WEIGHTS

# ---------------------------------------------------------------------------- the players
# The players keep hands as codes: a move subtracts its code, and two tables turn a pair of
# codes into a pair index (_pair_table) or the ways to deal a hand out of some cards (_deal_table).
_MOVE_CODE = (MOVE_VEC.astype(np.int64) @ _HMUL).astype(np.int32)  # pass: 0
_FULL_CODE = int(FULL @ _HMUL)


@functools.lru_cache(maxsize=None)
def _pair_table():
    """int32 (NUM_CODES, NUM_CODES): pair index of two disjoint hands' codes (0 if not)."""
    t = np.zeros((NUM_CODES, NUM_CODES), np.int32)
    t[hand_code(PX), hand_code(PY)] = np.arange(NUM_PAIRS)
    t.setflags(write=False)
    return t


@functools.lru_cache(maxsize=None)
def _deal_table():
    """int32 (NUM_CODES, NUM_CODES): ``[code(cards), code(h)]`` = prod_r C(cards_r, h_r), the
    ways to deal hand ``h`` out of ``cards`` (0 unless h <= cards)."""
    t = np.zeros((NUM_CODES, NUM_CODES), np.int32)
    t[hand_code(PX + PY), hand_code(PX)] = deal_weights(PX + PY, PX)
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

    ``inference``: ``None``, ``"incorrect"`` (the model named by ``incorrect``, one of
    :data:`INCORRECT_MODELS`: cheating minimax by default), ``"correct"`` (the model is the
    actual opponent, given to :meth:`spawn`) or any player spec as the model."""

    eps: float = EPS
    inference: object = None
    incorrect: str = "cheat"

    def __post_init__(self):
        if not (self.inference in (None, "incorrect", "correct")
                or hasattr(self.inference, "spawn")):
            raise ValueError(f"inference must be None, 'incorrect', 'correct' or a player, "
                             f"got {self.inference!r}")
        if self.incorrect not in INCORRECT_MODELS:
            raise ValueError(f"incorrect must be one of {sorted(INCORRECT_MODELS)}, "
                             f"got {self.incorrect!r}")

    @property
    def name(self) -> str:
        inf = {None: "no inference", "incorrect": "incorrect inference",
               "correct": "correct inference"}.get(self.inference, f"model {self.inference}")
        if self.inference == "incorrect" and self.incorrect != "cheat":
            inf += f" (model: {self.incorrect})"
        return f"determinized minimax, {inf}" + ("" if self.eps else " (plain)")

    def model(self, opponent):
        """The opponent model used against ``opponent`` (None without inference)."""
        if self.inference is None:
            return None
        if self.inference == "incorrect":
            return INCORRECT_MODELS[self.incorrect](self.eps)
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
        cand = candidates()[self.own].astype(np.int32)  # (K, M) opponent's starting hands
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


# The "different, but still sensible, algorithm" of the paper's incorrect model (not named there):
# cheating minimax (this module's default), the same with the plain tie-break, information-set
# expectimax, or determinized minimax without inference.
INCORRECT_MODELS: dict[str, Callable[[float], object]] = {
    "cheat": lambda eps: Cheating(eps),
    "cheat_plain": lambda eps: Cheating(0.0),
    "expectimax": lambda eps: Expectimax(eps),
    "det": lambda eps: Determinized(eps),
}

PLAYERS: dict[str, Callable[[float], object]] = {
    "cheat": lambda eps: Cheating(eps),
    "det": lambda eps: Determinized(eps),
    "det_inc": lambda eps: Determinized(eps, "incorrect"),
    "det_cor": lambda eps: Determinized(eps, "correct"),
    "expectimax": lambda eps: Expectimax(eps),
}


def player(name: str, eps: float = EPS, incorrect: str = "cheat"):
    """The player of :data:`PLAYERS` named ``name``; ``det_inc`` with the incorrect model
    ``incorrect`` (:data:`INCORRECT_MODELS`)."""
    if name == "det_inc":
        return Determinized(eps, "incorrect", incorrect)
    return PLAYERS[name](eps)


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
    own0 = me + sum((MOVE_VEC[a] for a in hist[seat::2]), np.zeros(NUM_RANKS, np.int64))
    opp_played = sum((MOVE_VEC[a] for a in hist[1 - seat::2]), np.zeros(NUM_RANKS, np.int64))
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
                raise ValueError(f"history[{i}]: {action_str(a)} is not legal for "
                                 f"{hand_str(hands[p])}")
            hands[p] = hands[p] - MOVE_VEC[a]
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
            cur[:, seat] -= MOVE_VEC[a]
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
