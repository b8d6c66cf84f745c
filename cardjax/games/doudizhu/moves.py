"""Dou Dizhu moves: the 27,472-action table and legal-move generation as JAX array arithmetic.

Ranks, index 0..14: ``3 4 5 6 7 8 9 T J Q K A 2 B R`` (``B``/``R`` = black/red joker).  A hand or a
move is a rank-count vector ``int[15]`` or its sorted rank string (``"33344"``, ``"3456789"``,
``"BR"``); pass is ``"pass"``.

The action table
----------------
:data:`ACTIONS` is exactly RLCard's set of 27,472 moves (``rlcard/games/doudizhu/jsondata``), built
here from the rules of ``shared/rules/doudizhu.md`` (RLCard is only a test dependency):

* solo (15, jokers included), pair (13), trio (13), bomb (13), rocket ``BR`` (1);
* trio + solo (182) and trio + pair (156): the kicker rank differs from the trio's, a pair kicker is
  never jokers;
* solo chains of 5..12 (36), pair chains of 3..10 (52), trio chains of 2..6 (45): no 2, B or R;
* airplane + solos (2..5 trios, 21,822) and airplane + pairs (2..4 trios, 2,939): one kicker per
  trio, kicker ranks outside the chain, no four of a rank and not both jokers among the kickers,
  pair kickers of different ranks, and (RLCard's rule) no kicker trio of a rank adjacent to the
  chain, except a trio of 2s;
* four + two solos (1,326; the two solos may be a pair, not both jokers) and four + two pairs (858;
  two different ranks);
* pass.

Order (action ids): the types in RLCard's order, ``solo, pair, trio, trio_solo, trio_pair,
chain_solo (by length), chain_pair, chain_trio, plane_solo (by number of trios), plane_pair,
four_two_solo, four_two_pair, bomb, rocket, pass``; inside a type and length, by main rank and then
by the sorted card string (rank order).  This is RLCard's id for every action except inside the
blocks of airplane + solos with 3, 4 or 5 trios (ids 1480..22333, whose inner order in RLCard's file
is not a simple rule); the blocks themselves sit at RLCard's offsets.  ``PASS`` is the last id,
27471, as in RLCard.

Per-action tables (NumPy constants): ``COUNTS`` int8[A, 15], ``TYPE`` int8[A] (the enum below),
``MAIN_RANK`` int8[A] (rank that decides comparisons: the single/pair/trio/four rank, the lowest
rank of a chain or airplane; 13 for the rocket, -1 for pass), ``LENGTH`` int8[A] (number of cards:
"same type and same length" is ``TYPE`` and ``LENGTH`` equal, which is RLCard's type string such as
``trio_solo_chain_3``).

Legal moves: the formulation
----------------------------
The legal moves of a state are a set of action ids packed into 864 ``uint32`` words (27 blocks
of 32; 859 would hold them; :mod:`cardjax.legal_words`), computed without looking at the 27,472
actions one by one:

1. *Held moves by rank.*  For every rank ``r`` and count ``c`` the table ``TOO_MANY[r, c]`` is the
   packed set of moves that need more than ``c`` cards of rank ``r``.  A hand holds a move iff no
   rank excludes it: ``held = ~(TOO_MANY[0, hand[0]] | ... | TOO_MANY[14, hand[14]])``.  The
   table is kept by pairs of ranks (25 count pairs each), so a state ORs eight gathered rows,
   about 7,000 word operations.
2. *Beating by id ranges.*  Each (type, length) class is a contiguous run of ids ordered by main
   rank, and bombs, the rocket and pass come last.  So the moves beating ``b`` are two id ranges:
   ``[BEAT_LO[b], BEAT_HI[b])`` (same class, higher main rank; higher bombs and the rocket after a
   bomb) and ``[FLOOR_LO[b], 27472)`` (bombs, rocket and pass after a non-bomb; pass only after a
   bomb or the rocket).  Leading: ``[0, PASS)``, every move but pass.  Each range becomes a word
   mask by a few shifts per word.

:func:`legal_words` is ``held & ranges``; :func:`legal_mask` unpacks it to the boolean mask.
:func:`legal_moves` (strings in, strings out) runs the same jitted :func:`legal_mask`.
"""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np

from cardjax import gate, legal_words

Array = jax.Array

RANKS = "3456789TJQKA2BR"
NUM_RANKS = 15
RANK_INDEX = {c: i for i, c in enumerate(RANKS)}
TWO, BLACK_JOKER, RED_JOKER = 12, 13, 14
MAX_COUNT = np.array([4] * 13 + [1, 1], np.int8)

# Move types.
(PASS_T, SOLO, PAIR, TRIO, TRIO_SOLO, TRIO_PAIR, CHAIN_SOLO, CHAIN_PAIR, CHAIN_TRIO, PLANE_SOLO,
 PLANE_PAIR, FOUR_TWO_SOLO, FOUR_TWO_PAIR, BOMB, ROCKET) = range(15)
TYPE_NAMES = ("pass", "solo", "pair", "trio", "trio_solo", "trio_pair", "chain_solo", "chain_pair",
              "chain_trio", "plane_solo", "plane_pair", "four_two_solo", "four_two_pair", "bomb",
              "rocket")


# ----------------------------------------------------------------------------- the table
def _build_table():
    """(strings, counts[A, 15], type[A], main[A]) in the documented order."""
    moves: list[tuple[dict, int, int]] = []  # ({rank: count}, type, main rank)

    def add(parts, t, main):
        moves.append((parts, t, main))

    for r in range(15):
        add({r: 1}, SOLO, r)
    for r in range(13):
        add({r: 2}, PAIR, r)
    for r in range(13):
        add({r: 3}, TRIO, r)
    for r in range(13):
        for k in range(15):
            if k != r:
                add({r: 3, k: 1}, TRIO_SOLO, r)
    for r in range(13):
        for k in range(13):
            if k != r:
                add({r: 3, k: 2}, TRIO_PAIR, r)
    for t, mult, lengths in ((CHAIN_SOLO, 1, range(5, 13)), (CHAIN_PAIR, 2, range(3, 11)),
                             (CHAIN_TRIO, 3, range(2, 7))):
        for n in lengths:
            for s in range(0, 12 - n + 1):
                add({r: mult for r in range(s, s + n)}, t, s)
    for n in range(2, 6):  # airplane + solos
        for s in range(0, 12 - n + 1):
            chain = range(s, s + n)
            others = [r for r in range(15) if r not in chain]
            for kick in itertools.combinations_with_replacement(others, n):
                c = {r: 3 for r in chain}
                for k in kick:
                    c[k] = c.get(k, 0) + 1
                if any(c[k] > MAX_COUNT[k] or (c[k] == 4) for k in kick):
                    continue  # two of a joker, or four of a rank among the kickers
                if BLACK_JOKER in c and RED_JOKER in c:
                    continue  # no rocket among the kickers
                if any(c.get(a, 0) == 3 and a != TWO for a in (s - 1, s + n)):
                    continue  # RLCard: no kicker trio next to the chain (2s excepted)
                add(c, PLANE_SOLO, s)
    for n in range(2, 5):  # airplane + pairs
        for s in range(0, 12 - n + 1):
            chain = range(s, s + n)
            others = [r for r in range(13) if r not in chain]
            for kick in itertools.combinations(others, n):
                c = {r: 3 for r in chain}
                c.update({k: 2 for k in kick})
                add(c, PLANE_PAIR, s)
    for r in range(13):  # four + two solos (may be a pair, never both jokers)
        others = [k for k in range(15) if k != r]
        for a, b in itertools.combinations_with_replacement(others, 2):
            if b >= BLACK_JOKER and a >= BLACK_JOKER:
                continue
            c = {r: 4}
            c[a] = c.get(a, 0) + 1
            c[b] = c.get(b, 0) + 1
            add(c, FOUR_TWO_SOLO, r)
    for r in range(13):
        others = [k for k in range(13) if k != r]
        for a, b in itertools.combinations(others, 2):
            add({r: 4, a: 2, b: 2}, FOUR_TWO_PAIR, r)
    for r in range(13):
        add({r: 4}, BOMB, r)
    add({BLACK_JOKER: 1, RED_JOKER: 1}, ROCKET, BLACK_JOKER)
    add({}, PASS_T, -1)

    num = len(moves)
    counts = np.zeros((num, NUM_RANKS), np.int8)
    types = np.empty(num, np.int8)
    main = np.empty(num, np.int8)
    for i, (c, t, m) in enumerate(moves):
        for r, k in c.items():
            counts[i, r] = k
        types[i] = t
        main[i] = m
    return _strings(counts[:-1]) + ("pass",), counts, types, main


def _strings(counts: np.ndarray) -> tuple:
    """The strings of the moves ``counts`` [A, 15], all at once: character ``j`` of a move's
    string is the first rank whose running count exceeds ``j`` (each rank repeated its count)."""
    ends = np.cumsum(counts, axis=1)
    longest = int(ends[:, -1].max())
    rank = (ends[:, None, :] <= np.arange(longest)[:, None]).sum(axis=2)  # [A, longest]
    chars = np.frombuffer(RANKS.encode() + b"\0", "S1")[rank]  # past the end: NUL, dropped
    return tuple(x.decode() for x in chars.view(f"S{longest}").ravel())


def _counts_str(row) -> str:
    return "".join(RANKS[r] * int(k) for r, k in enumerate(row))


ACTIONS, COUNTS, TYPE, MAIN_RANK = _build_table()
NUM_ACTIONS = len(ACTIONS)  # 27472
PASS = NUM_ACTIONS - 1
LENGTH = COUNTS.sum(axis=1).astype(np.int8)
_ACTION_ID = {s: i for i, s in enumerate(ACTIONS)}
for _a in (COUNTS, TYPE, MAIN_RANK, LENGTH):
    _a.setflags(write=False)


def _kicker_groups() -> np.ndarray:
    """int32[A]: for a move with kickers, the id of its main group (type, length and main rank:
    e.g. every ``333`` + solo is one group); -1 for the other moves."""
    kicked = np.isin(TYPE, (TRIO_SOLO, TRIO_PAIR, PLANE_SOLO, PLANE_PAIR, FOUR_TWO_SOLO,
                            FOUR_TWO_PAIR))
    keys = np.stack([TYPE, LENGTH, MAIN_RANK], axis=1).astype(np.int32)
    _, first_seen = np.unique(keys[kicked], axis=0, return_inverse=True)
    groups = np.full(len(TYPE), -1, np.int32)
    groups[kicked] = first_seen.reshape(-1)
    return groups


# The paper's move grouping: a move with kickers chosen as its main cards, then its kickers
# (:mod:`cardjax.search.move_groups`).  120 groups.
KICKER_GROUP = _kicker_groups()
KICKER_GROUP.setflags(write=False)


def _runs(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per id, the first id and one past the last of its run of equal ``key`` (each key must
    make one run)."""
    change = np.flatnonzero(np.diff(key)) + 1
    starts = np.concatenate([[0], change])
    ends = np.concatenate([change, [len(key)]])
    assert len(starts) == len(np.unique(key)), "a key is split over several runs of ids"
    run = np.repeat(np.arange(len(starts)), ends - starts)
    return starts[run], ends[run]


def _build_legality_tables():
    """TOO_MANY uint32[15, 5, W]; BEAT_LO, BEAT_HI, FLOOR_LO, SAME_LO, SAME_HI int32[A]."""
    # 27 blocks of 32 words, bidding actions included: sampling reads whole blocks (no padding).
    nw = 27 * legal_words.BITS
    counts = COUNTS.astype(np.int32)
    too_many = np.zeros((NUM_RANKS, 5, nw * legal_words.BITS), bool)
    for c in range(5):
        too_many[:, c, :NUM_ACTIONS] = (counts > c).T
    bits = (1 << np.arange(legal_words.BITS, dtype=np.uint64))
    too_many = (too_many.reshape(NUM_RANKS, 5, nw, legal_words.BITS) * bits).sum(-1)

    # Classes: one (type, length); bombs and the rocket share the last one.  Each class and each
    # (type, length) is one run of ids, ordered by main rank (asserted): ranges, not id lists.
    is_bombish = (TYPE == BOMB) | (TYPE == ROCKET)
    type_length = TYPE.astype(np.int64) * 64 + LENGTH
    cls = np.where(is_bombish, -1, type_length)
    beat_start, beat_hi = _runs(cls)
    same_lo, same_hi = _runs(type_length)
    beat_lo = beat_hi.copy()
    for lo in np.unique(beat_start):
        hi = beat_hi[lo]
        main = MAIN_RANK[lo:hi]
        assert np.all(np.diff(main) >= 0), lo  # ordered by main rank
        beat_lo[lo:hi] = lo + np.searchsorted(main, main, side="right")  # first higher main rank
    floor_lo = np.where(is_bombish, PASS, int(np.flatnonzero(is_bombish)[0]))
    beat_lo[PASS] = beat_hi[PASS] = floor_lo[PASS] = NUM_ACTIONS  # unused: pass to beat = leading
    same_lo[PASS] = same_hi[PASS] = PASS
    i32 = lambda a: np.asarray(a, np.int32)  # noqa: E731
    return (too_many.astype(np.uint32), i32(beat_lo), i32(beat_hi), i32(floor_lo), i32(same_lo),
            i32(same_hi))


TOO_MANY, BEAT_LO, BEAT_HI, FLOOR_LO, SAME_LO, SAME_HI = _build_legality_tables()
NUM_WORDS = TOO_MANY.shape[-1]  # 864
# The same by pairs of ranks (0-1, 2-3, ..., 14 alone): [8, 25 = 5 x 5 counts, W], half the rows
# to OR per state for a table that still fits a CPU's L2 cache.
_TOO_MANY_2 = np.zeros((8, 25, NUM_WORDS), np.uint32)
for _p in range(8):
    for _c in range(25):
        _TOO_MANY_2[_p, _c] = TOO_MANY[2 * _p, _c // 5] | (
            TOO_MANY[2 * _p + 1, _c % 5] if 2 * _p + 1 < NUM_RANKS else 0)


# ----------------------------------------------------------------------------- legality
def _row_index(hand: Array) -> Array:
    """int32[8]: the rows of :data:`_TOO_MANY_2` that ``hand`` (int[15]) picks, one per rank pair."""
    hand = jnp.clip(jnp.asarray(hand, jnp.int32), 0, 4)
    pairs = jnp.concatenate([hand, jnp.zeros(1, jnp.int32)]).reshape(8, 2)
    return pairs[:, 0] * 5 + pairs[:, 1]


def held_words(hand: Array) -> Array:
    """uint32[NUM_WORDS]: the moves whose cards are all in ``hand`` (int[15]), pass included."""
    rows = jnp.asarray(_TOO_MANY_2)[jnp.arange(8), _row_index(hand)]  # [8, W]
    excluded = jax.lax.reduce(rows, jnp.uint32(0), jax.lax.bitwise_or, (0,))
    return ~excluded & legal_words.full(NUM_ACTIONS, NUM_WORDS)


def _held_in(hand: Array, word_ids: Array) -> Array:
    """uint32[k]: the words ``word_ids`` (int32[k], traced) of :func:`held_words`, pass included,
    past-the-end bits not cleared (callers mask them with an id range)."""
    rows = jnp.asarray(_TOO_MANY_2)[jnp.arange(8)[:, None], _row_index(hand)[:, None], word_ids]
    return ~jax.lax.reduce(rows, jnp.uint32(0), jax.lax.bitwise_or, (0,))


def _ranges(to_beat: Array):
    """``(lo1, hi1, lo2)``: whatever the hand, the moves allowed after ``to_beat`` are the ids in
    ``[lo1, hi1)`` and ``[lo2, NUM_ACTIONS)`` (leading: ``[0, PASS)`` and none)."""
    to_beat = jnp.asarray(to_beat, jnp.int32)
    following = (to_beat >= 0) & (to_beat != PASS)
    b = jnp.clip(to_beat, 0, NUM_ACTIONS - 1)
    lo1 = jnp.where(following, jnp.asarray(BEAT_LO)[b], 0)
    hi1 = jnp.where(following, jnp.asarray(BEAT_HI)[b], PASS)
    lo2 = jnp.where(following, jnp.asarray(FLOOR_LO)[b], NUM_ACTIONS)
    return lo1, hi1, lo2


def beating_words(to_beat: Array) -> Array:
    """uint32[NUM_WORDS]: the moves allowed after ``to_beat`` whatever the hand (-1 or ``PASS``:
    leading, every move but pass)."""
    lo1, hi1, lo2 = _ranges(to_beat)
    return (legal_words.span(lo1, hi1, NUM_WORDS)
            | legal_words.span(lo2, NUM_ACTIONS, NUM_WORDS))


def legal_words_of(hand: Array, to_beat: Array) -> Array:
    """uint32[NUM_WORDS]: the legal actions packed (:mod:`cardjax.legal_words`); see
    :func:`legal_mask`."""
    return held_words(hand) & beating_words(to_beat)


def is_legal(hand: Array, to_beat: Array, action: Array) -> Array:
    """bool: ``action`` (an id ``0 .. NUM_ACTIONS - 1``) is in :func:`legal_words_of`, tested on
    that one move (its cards in the hand, its id in a range) instead of building the set."""
    action = jnp.asarray(action, jnp.int32)
    lo1, hi1, lo2 = _ranges(to_beat)
    held = jnp.all(jnp.asarray(COUNTS)[action] <= jnp.asarray(hand, COUNTS.dtype))
    return held & (((action >= lo1) & (action < hi1)) | (action >= lo2))


# Where a state's legal moves can lie.  A follow's moves of its own class are one id range (in
# random play 99.4% of them span at most WINDOW_WORDS words).  A lead's moves from a hand without
# two adjacent trios (the trio chains and airplanes, ids 467..25272) and without four of a rank
# (the four-with-twos, 25273..27456) are all below the trio chains, in the first WINDOW_WORDS
# words, or bombs and the rocket.  Either way one window of words and the tail (bombs, rocket,
# pass) hold the whole set; the other states (about 1% in random play) build every word.
CHAIN_TRIO_FIRST = int(np.flatnonzero(TYPE == CHAIN_TRIO)[0])  # 467
WINDOW_WORDS = -(-CHAIN_TRIO_FIRST // legal_words.BITS)  # 15
_FIRST_BOMB = int(np.flatnonzero(TYPE == BOMB)[0])
_TAIL_FIRST = _FIRST_BOMB // legal_words.BITS
_TAIL_WORDS = PASS // legal_words.BITS + 1 - _TAIL_FIRST  # bombs, the rocket and pass
# the gate gathers this share of the batch at a time for the states that build every word
_EVERY_WORD_SHARE = 64


def _leads_past_window(hand: Array) -> Array:
    """bool: ``hand`` holds a move of a lead past the first WINDOW_WORDS words that is not a
    bomb or the rocket: two adjacent trios below the 2s, or four of a rank."""
    hand = jnp.asarray(hand, jnp.int32)
    trios = hand[:TWO] >= 3
    return jnp.any(trios[:-1] & trios[1:]) | jnp.any(hand[:TWO + 1] >= 4)


def _reads_every_word(hand: Array, to_beat: Array) -> Array:
    """bool: the legal moves of ``hand`` after ``to_beat`` are not all in a window of
    WINDOW_WORDS words and the tail (a lead from a hand with adjacent trios or four of a rank,
    or a follow whose same-class range spans more words)."""
    lo1, hi1, _ = _ranges(to_beat)
    following = (to_beat >= 0) & (to_beat != PASS)
    span_words = (hi1 - 1) // legal_words.BITS - lo1 // legal_words.BITS + 1
    return jnp.where(following, (hi1 > lo1) & (span_words > WINDOW_WORDS),
                     _leads_past_window(hand))


def _pick_every_word(u: Array, hand: Array, to_beat: Array) -> Array:
    return legal_words.pick(legal_words_of(hand, to_beat), u)


def _pick_in_window(u: Array, hand: Array, to_beat: Array) -> Array:
    lo1, hi1, lo2 = _ranges(to_beat)
    leading = (to_beat < 0) | (to_beat == PASS)
    n = WINDOW_WORDS + _TAIL_WORDS
    in_window = jnp.arange(n) < WINDOW_WORDS
    first = jnp.minimum(lo1 // legal_words.BITS, NUM_WORDS - WINDOW_WORDS)
    ids = jnp.where(in_window, first, _TAIL_FIRST - WINDOW_WORDS) + jnp.arange(n, dtype=jnp.int32)
    # the window's range, then the tail's: a lead's bombs and rocket, a follow's floor and pass
    lo = jnp.where(in_window, lo1, jnp.where(leading, _FIRST_BOMB, lo2))
    hi = jnp.where(in_window, hi1, jnp.where(leading, PASS, NUM_ACTIONS))
    words = _held_in(hand, ids) & legal_words.span_at(lo, hi, ids)
    # every window id is below lo2, so the words in this order list the set in id order
    return legal_words.pick_in(words, ids, u)


def pick_legal(u: Array, hand: Array, to_beat: Array) -> Array:
    """int32: ``legal_words.pick(legal_words_of(hand, to_beat), u)`` (the ``floor(u * count)``-th
    legal move), reading only a window of words and the tail where they hold every legal move.
    Under ``vmap`` on a CPU the whole set is built for the other games alone
    (:func:`cardjax.gate.gated`): about 1% of the moves of random play."""
    return gate.gated(_reads_every_word(hand, to_beat), _pick_every_word, _pick_in_window,
                      jnp.asarray(u, jnp.float32), jnp.asarray(hand), jnp.asarray(to_beat, jnp.int32),
                      share=_EVERY_WORD_SHARE)


def legal_mask(hand: Array, to_beat: Array) -> Array:
    """bool[27472]: the legal actions of a player holding ``hand`` (int[15] rank counts).

    ``to_beat`` is the action id of the move to beat, or -1 (or ``PASS``) when the player leads.
    Leading: every move the hand holds, not pass.  Following: pass, the held moves of the same
    type and length with a higher main rank, bombs over non-bombs, higher bombs, the rocket.
    Pure array arithmetic, jit/vmap-able.
    """
    return legal_words.unpack(legal_words_of(hand, to_beat), NUM_ACTIONS)


_legal_mask_jit = jax.jit(legal_mask)


# ----------------------------------------------------------------------------- strings
def hand_counts(s: str) -> np.ndarray:
    """int32[15] rank counts of a card string such as ``"33345BR"`` (any order; spaces ignored).

    Raises ``ValueError`` for an unknown rank character, more than four of a rank, or more than
    one ``B`` or ``R``.
    """
    if not isinstance(s, str):
        raise ValueError(f"cards must be a string of ranks from {RANKS!r}, got {s!r}")
    counts = np.zeros(NUM_RANKS, np.int32)
    for ch in s:
        if ch.isspace():
            continue
        r = RANK_INDEX.get(ch)
        if r is None:
            raise ValueError(
                f"unknown rank character {ch!r} in {s!r}; ranks are {' '.join(RANKS)} "
                "(T = ten, B/R = black/red joker)")
        counts[r] += 1
    _check_counts(counts, repr(s))
    return counts


def _check_counts(counts: np.ndarray, what: str) -> None:
    for r in np.flatnonzero(counts > MAX_COUNT):
        limit = "more than one" if MAX_COUNT[r] == 1 else "more than four"
        raise ValueError(f"{what} holds {limit} {RANKS[r]!r} ({int(counts[r])} of them)")
    if np.any(counts < 0):
        raise ValueError(f"{what}: negative rank counts {counts.tolist()}")


def counts_to_str(counts) -> str:
    """Sorted rank string of a count vector (15,), e.g. ``[3, 2, 0, ...] -> "33344"``."""
    arr = np.asarray(counts)
    if arr.shape != (NUM_RANKS,) or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"rank counts must be an integer array of shape (15,), got "
                         f"{arr.dtype} {arr.shape}")
    _check_counts(arr, "counts")
    return _counts_str(arr)


def action_index(move: str) -> int:
    """Action id of a move string (``"pass"``, or its cards in any order: ``"43334"`` = ``"33344"``)."""
    if not isinstance(move, str):
        raise ValueError(f"a move must be a string, got {move!r}")
    if move.strip().lower() == "pass":
        return PASS
    canon = _counts_str(hand_counts(move))
    i = _ACTION_ID.get(canon)
    if i is None:
        raise ValueError(f"{move!r} is not a Dou Dizhu move (no type of the move table matches it)")
    return i


def action_string(i: int) -> str:
    """The move string of action id ``i``."""
    i = int(i)
    if not 0 <= i < NUM_ACTIONS:
        raise ValueError(f"action id {i} is not in 0..{NUM_ACTIONS - 1}")
    return ACTIONS[i]


def legal_moves(hand: str, to_beat: str | None = None) -> list[str]:
    """Legal moves (strings, in action-id order) for ``hand`` against ``to_beat``.

    ``to_beat`` None (or ``"pass"``) means the player leads.  Runs the jitted :func:`legal_mask`.

    >>> legal_moves("33355", "44")
    ['55', 'pass']
    """
    counts = hand_counts(hand) if isinstance(hand, str) else _array_hand(hand)
    b = -1 if to_beat is None else action_index(to_beat)
    mask = np.asarray(_legal_mask_jit(counts, np.int32(b)))
    return [ACTIONS[i] for i in np.flatnonzero(mask)]


def _array_hand(hand) -> np.ndarray:
    arr = np.asarray(hand)
    if arr.shape != (NUM_RANKS,) or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"a hand is a card string or int rank counts of shape (15,), got {hand!r}")
    _check_counts(arr, "hand")
    return arr.astype(np.int32)
