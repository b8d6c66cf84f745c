"""Tractor card tables and move arithmetic: effective suits, orders, tractors, the units of a
play, following.  Pure functions of count vectors, shared by the env and the string helpers;
throws and trick winners are in :mod:`~cardjax.games.tractor.tricks`.  The parts that seldom
apply (the tractor search of a throw, the packing of several tractors, the chains of a follow)
go through :func:`~cardjax.gate.gated`, so that in a vmapped batch only the games that need
them pay for them.

Card types: ``t = 13 * suit + rank`` for suits S, H, D, C (0..3) and ranks 2..A (0..12), then
``52`` = small joker ``XJ`` and ``53`` = big joker ``DJ``; each type exists twice.  A hand or a play
is a count vector ``int[54]`` (values 0..2).  Internally vectors are padded to 55 entries: type
``54`` is a dummy that is never held, so table gathers need no bounds checks.

Context: ``level`` is a rank index 0..12 (rank 2..A), ``trump`` a suit 0..3 or ``4`` = no trump.
Effective suits are 0..3 (plain suits) and ``4`` = TRUMP.

Tractor geometry.  Every effective suit is laid out on 16 *positions* (position = order - 3):
plain ranks fill positions 0..11 (the level rank is skipped, so the orders are consecutive);
in a trump suit position 12 holds the off-suit level cards (order 15, up to 3 *alternatives*),
13 the level card of the trump suit (16), 14 ``XJ``, 15 ``DJ``; with no trump the four level
cards are alternatives at position 13.  A tractor is a path over consecutive positions taking one
alternative at a layered position, so off-suit level pairs never chain with each other.  All
paths (start, length, alternative) are one static table of 301 rows.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from cardjax.gate import gated

NUM_TYPES = 54
PAD = 55  # count vectors padded with the dummy type 54
DUMMY = 54
XJ, DJ = 52, 53
TRUMP = 4
NT = 4
NUM_POS = 16
NUM_ALT = 4
# the phases of a hand (the env's ``State.phase``), here so that the env's modules share them
DECLARE, BURY, CHAODI, PLAY, OVER = range(5)

SUITS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
RANKS = "23456789TJQKA"

POINTS = np.zeros(PAD, np.int32)
for _s in range(4):
    POINTS[13 * _s + 3] = 5  # 5
    POINTS[13 * _s + 8] = 10  # 10
    POINTS[13 * _s + 11] = 10  # K


def _context_tables():
    """EFF[level, trump, type], ORD[level, trump, type] and SLOT[level, trump, suit, pos, alt]."""
    eff = np.full((13, 5, PAD), -1, np.int32)
    order = np.zeros((13, 5, PAD), np.int32)
    slot = np.full((13, 5, 5, NUM_POS, NUM_ALT), DUMMY, np.int32)
    for lv in range(13):
        for tr in range(5):
            for t in range(NUM_TYPES):
                if t >= 52:
                    e, o = TRUMP, 17 + (t - 52)
                else:
                    s, r = divmod(t, 13)
                    if r == lv:
                        e, o = TRUMP, (16 if (tr == NT or s == tr) else 15)
                    else:
                        e = TRUMP if s == tr else s
                        v = r + 2
                        o = v + 1 if v < lv + 2 else v
                eff[lv, tr, t], order[lv, tr, t] = e, o
                pos = o - 3
                if e == TRUMP and o == 15:  # off-suit level cards: alternatives at position 12
                    alt = [s2 for s2 in range(4) if s2 != tr].index(t // 13)
                    slot[lv, tr, e, pos, alt] = t
                elif e == TRUMP and o == 16 and tr == NT:  # NT: level cards alternate at 13
                    slot[lv, tr, e, pos, t // 13] = t
                else:
                    slot[lv, tr, e, pos, :] = t
    return eff, order, slot


EFF, ORD, SLOT = _context_tables()


def _dynamic_tables():
    """The dynamic card encoding of the ShengJi+ report (4.2, figure 4.1): card places that
    depend on the level and the trump suit, so that a network sees "a trump", "the second-best
    plain card" at the same place in every hand.  ``SUIT_ORDER[trump]``: the plain suits in
    S H D C order, then the trump suit (no trump: S H D C).  ``DYN[level, trump, type]``: the
    place 0..53 of a type -- the plain suits, 12 ranks each in order (the level rank skipped, so
    neighbouring places are neighbouring ranks, as in a tractor), in ``SUIT_ORDER``, then the
    trump suit's 12 (places 36..47); then the level cards of the plain suits (48..50, in
    ``SUIT_ORDER``), of the trump suit (51), XJ (52) and DJ (53).  With no trump the four suits
    fill 0..47 and their level cards 48..51."""
    order = np.zeros((5, 4), np.int32)
    dyn = np.zeros((13, 5, NUM_TYPES), np.int32)
    for tr in range(5):
        plain = [s for s in range(4) if s != tr]
        order[tr] = plain + ([tr] if tr < 4 else [])
        for lv in range(13):
            for t in range(NUM_TYPES):
                e, o = EFF[lv, tr, t], ORD[lv, tr, t]
                if t >= 52:
                    place = t
                elif e != TRUMP:
                    place = 12 * plain.index(e) + o - 3
                elif t % 13 == lv:  # a level card: the trump suit's, or a plain suit's
                    place = 51 if t // 13 == tr else 48 + plain.index(t // 13)
                else:  # the trump suit's other ranks
                    place = 36 + o - 3
                dyn[lv, tr, t] = place
            assert sorted(dyn[lv, tr]) == list(range(NUM_TYPES))
    return order, dyn


SUIT_ORDER, DYN = _dynamic_tables()


def _path_table():
    # alternatives only matter on the positions that can be layered (12, 13)
    rows = [(st, ln, a) for st in range(NUM_POS) for ln in range(1, NUM_POS - st + 1)
            for a in range(NUM_ALT) if a == 0 or (st <= 13 and st + ln - 1 >= 12)]
    start, length, alt = (np.array(c, np.int32) for c in zip(*rows))
    pos = np.arange(NUM_POS)
    member = (pos[None] >= start[:, None]) & (pos[None] < (start + length)[:, None])
    return start, length, alt, member


P_START, P_LEN, P_ALT, P_MEM = _path_table()
P_TOP = P_START + P_LEN - 1 + 3  # order of the top pair
NUM_PATHS = len(P_LEN)
# the rows of each length (LEN_ROWS[L, j], padded with row 0 where LEN_VALID is False)
_W = int(np.bincount(P_LEN).max())
LEN_ROWS = np.zeros((NUM_POS + 1, _W), np.int32)
LEN_VALID = np.zeros((NUM_POS + 1, _W), bool)
for _l in range(NUM_POS + 1):
    _r = np.flatnonzero(P_LEN == _l)
    LEN_ROWS[_l, :len(_r)], LEN_VALID[_l, :len(_r)] = _r, True


# ---------------------------------------------------------------------------- context
def context(level, trump):
    """(eff[55], order[55], slot[5, 16, 4]) as jnp arrays for a traced level and trump."""
    return (jnp.asarray(EFF)[level, trump], jnp.asarray(ORD)[level, trump],
            jnp.asarray(SLOT)[level, trump])


def path_types(layout, rows):
    """int[R, 16]: the type at each member position of the paths ``rows`` (int[R]) of the suit laid
    out as ``layout`` (``slot[suit]``, int[16, 4]); dummy elsewhere."""
    t = jnp.asarray(layout)[np.arange(NUM_POS)[None, :], jnp.asarray(P_ALT)[rows][:, None]]
    return jnp.where(jnp.asarray(P_MEM)[rows], t, DUMMY)


def pair_runs(layout, pairs):
    """int[4, 16]: along each alternative's line of positions of the suit laid out as
    ``layout`` (``slot[suit]``), the length of the run of pairs (``pairs`` bool[55]) ending at
    each position.  A path of length L with its top at position e is held iff its alternative's
    run at e is at least L (a path not through the layered position is the same in every
    alternative, and the table lists it under alternative 0)."""
    return _run_lengths(pairs[layout].T)


def held_paths(layout, pairs):
    """bool[P]: the paths of the suit laid out as ``layout`` (``slot[suit]``) all of whose
    positions are pairs in ``pairs`` (bool[55]).  (Gathering every path's types instead reads
    a 301 x 16 table per game.)"""
    return pair_runs(layout, pairs)[P_ALT, P_START + P_LEN - 1] >= P_LEN


def pad(c):
    """int32[..., 55] from a count vector int[..., 54]."""
    c = jnp.asarray(c, jnp.int32)
    return jnp.concatenate([c, jnp.zeros(c.shape[:-1] + (PAD - c.shape[-1],), jnp.int32)], axis=-1)


def suit_of_play(c, eff):
    """(suit, one_suit): the effective suit of a play and whether all its cards share it."""
    present = c > 0
    suits = jnp.any(present[:, None] & (eff[:, None] == jnp.arange(5)[None, :]), axis=0)
    return jnp.argmax(suits).astype(jnp.int32), jnp.sum(suits) == 1


def lead_info(c, eff, slot, tractors=None):
    """(suit, n, tractors int[6], pairs) of a play used as a lead: its tractors' lengths longest
    first (0 = none; from :func:`units` unless given), pairs in all."""
    suit, _ = suit_of_play(c, eff)
    if tractors is None:
        tractors = units(c, suit, eff, slot)[0]
    return suit, jnp.sum(c), tractors, jnp.sum(c == 2)


def unbeaten(unseen, eff, order):
    """(single, pair) bool[54] each: per card type, whether no unseen card (for ``pair``: no
    unseen pair) of its effective suit ranks above it -- ``unseen`` int[54] the copies a seat
    has not seen, ``eff``/``order`` the context's first 54 entries."""
    above = (eff[None, :] == eff[:, None]) & (order[None, :] > order[:, None])  # [t, u]
    return (~jnp.any(above & (unseen > 0)[None, :], axis=1),
            ~jnp.any(above & (unseen == 2)[None, :], axis=1))


def at_risk(suit, key, unseen, eff, order, need, lead_suit, next_void):
    """bool: whether the opponent who plays next may still beat the play holding a trick, topped
    at order ``key`` in effective suit ``suit``: it may if the seat has not seen a card of that
    suit above ``key`` (both copies, ``need = 2``, for a pair lead) or if it has shown void in
    the led plain suit (``next_void``) -- either for a play of the led suit, both for a ruff."""
    higher = jnp.any((unseen >= need) & (eff == suit) & (order > key))
    void = next_void & (lead_suit != TRUMP)
    return jnp.where(suit == lead_suit, higher | void, void & higher)


# ---------------------------------------------------------------------------- units and chains
MAX_TRACTORS = 6  # 25 cards hold at most 6 tractors


def units(c, suit, eff, slot):
    """Greedy split of a one-suit play ``c`` (int[55]): longest tractors first, then pairs, then
    singles.  Returns (tractor lengths int[6] (0 = none), tractor tops int[6], tractor types
    bool[6, 55], leftover pair types bool[55], single types bool[55])."""
    del eff  # the suit's layout (slot) says it all
    layout = jnp.asarray(slot)[suit]  # (slot may be a numpy table)

    pos = jnp.arange(NUM_POS)

    def take(rest, _):
        # the longest held path, the highest of those, its first alternative on a tie: the
        # longest run ending at each position, scored alternative-major (the path table's order)
        run = pair_runs(layout, rest)
        score = jnp.where(run >= 2, run * 32 + pos + 3, -1).reshape(-1)
        best = jnp.argmax(score)
        ok = score[best] >= 0
        alt, top = jnp.divmod(best, NUM_POS)
        length = jnp.where(ok, run.reshape(-1)[best], 0)
        members = jnp.zeros(PAD, bool).at[layout[:, alt]].max((pos <= top) & (pos > top - length))
        return rest & ~members, (length, jnp.where(ok, top + 3, 0), members)

    # a loop, not unrolled: six copies of the body made every program with a throw check 15%
    # larger (it runs only in the games a gate gives it, so the loop costs no measurable time)
    rest, (lens, tops, masks) = jax.lax.scan(take, c == 2, None, length=MAX_TRACTORS)
    return lens, tops, masks, rest, c == 1


def _run_lengths(held):
    """int[..., 16]: at each position of ``held`` (bool[..., 16]) the length of the run of True
    ending there (0 where False)."""
    # bit p of a line's mask is position p; the run ending at p is the count of leading zeros
    # of the inverted mask with bit p moved to the top (XLA's CPU cumulative max is a windowed
    # reduction, quadratic in the line's length)
    idx = jnp.arange(held.shape[-1], dtype=jnp.uint32)
    bits = jnp.sum(jnp.where(held, jnp.uint32(1) << idx, jnp.uint32(0)), axis=-1,
                   dtype=jnp.uint32)
    top = (~bits)[..., None] << (jnp.uint32(31) - idx)
    return jnp.minimum(jax.lax.clz(top), idx + 1).astype(jnp.int32)


def _runs(held):
    """int[..., 16]: the length of each maximal run of True in ``held`` (bool[..., 16]) at its
    last position, 0 elsewhere."""
    ends = held & ~jnp.concatenate([held[..., 1:], jnp.zeros_like(held[..., :1])], axis=-1)
    return jnp.where(ends, _run_lengths(held), 0)


# the sets of up to MAX_TRACTORS items as bit masks, each set's members, and which sets hold which
_SETS = np.arange(2 ** MAX_TRACTORS)
_MEMBERS = ((_SETS[:, None] >> np.arange(MAX_TRACTORS)) & 1).astype(np.int32)  # [set, item]
_WITHIN = (_SETS[None, :] & ~_SETS[:, None]) == 0  # [u, t]: set t is part of set u
_WITHOUT = _SETS[:, None] ^ _SETS[None, :]  # [u, t]: set u less set t (where t is part of u)


def _packs(bins, items):
    """Whether the items ``items`` (int[6], 0 = none) pack into the bins of each row of ``bins``
    (int[..., m]), a bin holding items of total length at most its own.  Exact: after each bin,
    which sets of items can have been placed (a set is placed with bin b if a part of it fitting
    in b was added to a set placed before)."""
    size = jnp.asarray(_MEMBERS) @ items.astype(jnp.int32)  # [set]: the set's total length
    placed = jnp.zeros(bins.shape[:-1] + (_SETS.size,), bool).at[..., 0].set(True)
    within, without = jnp.asarray(_WITHIN), jnp.asarray(_WITHOUT)

    def put(placed, b):
        adds = within & (size[None, :] <= b[..., None, None])  # [..., u, t]
        return jnp.any(adds & placed[..., without], axis=-1), None

    # a loop, not unrolled (it runs only where a lead has several tractors: compile time, not
    # run time, is what copies of the body would cost)
    placed, _ = jax.lax.scan(put, placed, jnp.moveaxis(bins, -1, 0).astype(jnp.int32))
    return placed[..., -1]


def chains_fit(pairs, suit, slot, items):
    """Whether the pair types ``pairs`` (bool[55]) of ``suit`` hold disjoint tractors of the
    lengths ``items`` (int[6], 0 = none): the structure test of a play against a lead with
    several tractors.

    The pairs of a suit lie on one line of positions, except at its layered position (the
    off-suit level cards of a trump suit, the level cards in NT) where one alternative can link
    to the position below and one (the same or another) to the position above.  The tractors fit
    when they pack into the runs of pairs of the line (a run of r pairs holds tractors of r pairs
    in all), with the layered position held when one of its alternatives is: one run through it,
    or, with two alternatives held, that run split in two at it, each part holding the layered
    position (one alternative linked down, another up).  Every other way of linking gives smaller
    runs than one of these two.
    """
    s = slot[suit]  # [16, 4]
    held = pairs[s] & (s != DUMMY)
    lay = jnp.argmax(jnp.any(s != s[:, :1], axis=1))  # the layered position (0 when none)
    alts = s[lay]
    first = ~jnp.any(jnp.tril(alts[:, None] == alts[None, :], k=-1), axis=1)  # each type once
    held_alts = jnp.sum(held[lay] & first)
    pos = jnp.arange(NUM_POS)
    line = jnp.where(pos == lay, held_alts > 0, held[:, 0])
    through = _runs(line)
    split = jnp.where(pos > lay, _runs(line & (pos >= lay)), _runs(line & (pos <= lay)))
    fit = _packs(jnp.stack([through, split]), items)
    return fit[0] | (fit[1] & (held_alts >= 2))


# ---------------------------------------------------------------------------- following
def _topm(m, x, y):
    """Largest sum of ``m`` values drawn from ``x`` twos, ``y`` ones and enough zeros."""
    a = jnp.minimum(m, x)
    return 2 * a + jnp.minimum(m - a, y)


def _best_chain(layout, pairt, w2, w1, up0, up1, c2_t, c1_t, t_star, p_t):
    """:func:`follow_mask`'s best cover of each type added, over the chains of ``t_star``."""
    # only the chains of length t_star count: their rows of the path table, as type masks
    held = held_paths(layout, pairt)
    rows = jnp.asarray(LEN_ROWS)[t_star]
    mem = jnp.zeros((rows.shape[0], PAD), bool).at[
        jnp.arange(rows.shape[0])[:, None], path_types(layout, rows)].max(
        jnp.asarray(P_MEM)[rows])  # [R, 55]
    a2 = jnp.sum(mem & w2[None, :], axis=1)
    a1 = jnp.sum(mem & w1[None, :], axis=1)
    a2_t = a2[:, None] + (mem & up1[None, :])
    a1_t = a1[:, None] + (mem & up0[None, :]) - (mem & up1[None, :])
    val = 2 * a2_t + a1_t + _topm(p_t - t_star, c2_t[None, :] - a2_t, c1_t[None, :] - a1_t)
    ok_path = (held[rows] & jnp.asarray(LEN_VALID)[t_star])[:, None]
    return jnp.max(jnp.where(ok_path, val, -1000), axis=0)


def _no_chain(layout, pairt, w2, w1, up0, up1, c2_t, c1_t, t_star, p_t):
    """:func:`_best_chain` without a chain (``t_star`` 0)."""
    return _topm(p_t, c2_t, c1_t)


def follow_mask(hand, part, suit, n, k1, lead_pairs, eff, slot):
    """bool[55]: the card types whose addition to the partial follow ``part`` still leaves a legal
    follow reachable.  ``hand`` is the follower's hand before the move (int[55]).

    With H the hand's cards in the led suit: if |H| <= n the follow holds all of H; otherwise it is
    n cards of H with ``Pt = min(lead pairs, pairs in H)`` pairs of which, when the lead has a
    tractor of ``k1`` pairs, ``T = min(k1, longest chain in H)`` (when >= 2) form one chain.  A
    partial selection p extends to such a follow iff some set Q of Pt pair types of H containing a
    T-chain covers enough of p: |p| - sum_{t in Q} p[t] <= n - 2 Pt (the uncovered cards must fit
    the free places).  The best Q is found over all chains, with the rest of Q the pairs of H most
    used by p, in closed form because p[t] is 0, 1 or 2.
    """
    in_suit = eff == suit
    h = jnp.where(in_suit, hand, 0)
    h_n = jnp.sum(h)
    avail = hand - part > 0
    size1 = jnp.sum(part) + 1
    # |H| <= n: all of H, the rest free
    off_suit = jnp.sum(jnp.where(in_suit, 0, part))
    short_ok = avail & (in_suit | (off_suit < n - h_n))
    # |H| > n
    pairt = h == 2
    layout = slot[suit]
    lh = jnp.max(pair_runs(layout, pairt))  # the longest held path
    t_star = jnp.where((k1 >= 2) & (lh >= 2), jnp.minimum(k1, lh), 0)
    p_t = jnp.minimum(lead_pairs, jnp.sum(pairt))
    w = jnp.where(pairt, part, 0)
    w2, w1 = (w == 2), (w == 1)
    c2, c1 = jnp.sum(w2), jnp.sum(w1)
    up0 = pairt & (w == 0)  # adding t turns a 0 into a 1
    up1 = pairt & w1  # adding t turns a 1 into a 2
    c2_t = c2 + up1
    c1_t = c1 + up0 - up1
    # the chains matter only against a tractor, with a chain in H
    best = gated(t_star > 0, _best_chain, _no_chain,
                 layout, pairt, w2, w1, up0, up1, c2_t, c1_t, t_star, p_t)
    long_ok = avail & in_suit & (size1 - best <= n - 2 * p_t)
    return jnp.where(h_n <= n, short_ok, long_ok)


def unit_prefix_mask(hand, part, eff, slot):
    """(cards bool[55], done bool): leads limited to one unit (option ``throws=False``); the lead
    is built as a chain of pairs, each pair completed before the next starts."""
    suit, _ = suit_of_play(part, eff)
    empty = jnp.sum(part) == 0
    avail = hand - part > 0
    types = jnp.arange(PAD)
    # each candidate t: the lead with one more card of type t.  Its types must form one path
    # (a held path over "present" types of length ntypes, that is a run of at least ntypes: a
    # run holds the paths of every length up to its own), in the layout of t's suit: the
    # lead's, as only t of its suit are kept once it has a card (and a first card is a path)
    cand = part[None, :] + (types[:, None] == types[None, :]).astype(part.dtype)  # [t, 55]
    present = cand > 0
    ntypes = jnp.sum(present, axis=1)
    layout = slot[suit]  # [16, 4]
    lines = (part > 0)[layout.T][None] | (layout.T[None] == types[:, None, None])  # [t, 4, 16]
    is_path = jnp.max(_run_lengths(lines).reshape(PAD, -1), axis=1) >= ntypes
    ones = cand == 1
    n1 = jnp.sum(ones, axis=1)
    one = jnp.argmax(ones, axis=1)
    complete = (n1 == 0) | ((n1 == 1) & ((ntypes == 1) | (hand[one] == 2)))
    cards = avail & jnp.where(empty, True, (eff == suit) & is_path & complete)
    done = ~empty & ((jnp.sum(part > 0) == 1) | (jnp.sum(part == 1) == 0))
    return cards, done


# ---------------------------------------------------------------------------- a unit's tractor
def longest_tractor(c, level, trump):
    """int: the length of the longest tractor in a one-suit play ``c`` (int[55]), 0 below two
    pairs -- the first of :func:`units`' lengths (its greedy split takes the longest run of
    pairs first), without the split: enough for a play of one unit, or for the largest unit of
    a play."""
    eff, _, slot = context(level, trump)
    longest = jnp.max(pair_runs(slot[suit_of_play(c, eff)[0]], c == 2))
    return jnp.where(longest >= 2, longest, 0)
