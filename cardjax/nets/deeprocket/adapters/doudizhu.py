"""Dou Dizhu for DeepRocket: the paper's input planes, its 309 move categories and its
kicker choices (Jiang et al., sections 4.2-4.3, tables 2-4).

**Policy planes** ``uint8[15, 19, 21]`` (X: the ranks 3 .. red joker; Y: 19 rows; Z: 21 planes,
table 2).  A *round* is three moves starting with the seat to act (the paper's "specified
player"), so the last six rounds are the last 18 moves, each round's planes in the order: the seat
to act, the seat after it ("down"), the seat before it ("up"):

* plane 0: every card played before the last six rounds;
* planes 1-18: the moves of the six rounds, oldest first (3 planes a round);
* plane 19: the cards the seat has not seen (not in its hand, not played);
* plane 20: the seat's hand.

Rows 0-3 of a plane: whether the rank's count reaches 1, 2, 3, 4.  Rows 4-18 ("features in
Dou Dizhu, such as solo, pair, trio", unspecified in the paper): the 15 move types of table 3
(solo, solo chain, pair, ..., rocket, pass) -- a move marks its type's row on the ranks of its
main group (every rank for a pass); these rows are zero on planes that are not a move.

**Head features** (not in the paper, whose planes do not say who the landlord is nor how many
cards each seat holds): the seat's role and the cards left of the three seats, one-hot, given to
the fully connected layer.

**Kicker planes** ``uint8[15, 9, 3]`` (table 4 names the planes' contents only broadly):

* plane 0, the choice: rows 0-3 the hand less the main group and the kickers chosen so far;
  row 4 the ranks a solo kicker may take next, row 5 a pair kicker; row 6 (7) all ones when the
  kickers are solos (pairs); row 8 the role, one-hot in columns 0-2;
* plane 1, the move: rows 0-3 the main group, rows 4-7 the kickers chosen so far, row 8 the
  kickers still to choose, one-hot;
* plane 2, the game: rows 0-3 the unseen cards, rows 4-7 the move to beat, row 8 all ones
  when the seat leads.

The kicker network's 28 outputs are the 15 solo ranks then the 13 pair ranks (3 .. 2); a move
with ``n`` kickers calls it ``n`` times, choosing the kickers in increasing rank (a rank again
when it holds more than one), each time among the ranks that still complete a legal move.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from cardjax import legal_words
from cardjax.games.doudizhu import env as doudizhu
from cardjax.games.doudizhu import observe as ddz_obs
from cardjax.games.doudizhu import categories as cat
from cardjax.games.doudizhu import moves as mv
from cardjax.nets.deeprocket.adapter import Adapter

R = mv.NUM_RANKS  # 15
ROUNDS = 6
PLANES = 3 + 3 * ROUNDS  # 21
ROWS = 4 + len(cat.TABLE3)  # 19
KICKER_ROWS, KICKER_PLANES = 9, 3
KICKER_OUT = R + 13  # 28
MAX_KICKERS = int(cat.NUM_KICKERS.max())  # 5
ROLES = ddz_obs.ROLES
EXTRAS = 3 + 3 * 21

_TYPE_ROW = np.zeros(len(mv.TYPE_NAMES), np.int32)
for _row, (_t, _n) in enumerate(cat.TABLE3):
    _TYPE_ROW[_t] = 4 + _row
# per action: the rows 4-18 it marks, [A, 15 types, 15 ranks] is too large; keep its row and the
# ranks of its main group instead
_MOVE_ROW = _TYPE_ROW[mv.TYPE.astype(np.int32)]
_MOVE_RANKS = np.where(mv.TYPE[:, None] == mv.PASS_T, True, cat.MAIN > 0)
# the largest category (its actions are consecutive ids), for a fixed-size window
WINDOW = int(np.bincount(cat.CATEGORY.astype(np.int64)).max())
_PAD = lambda a, fill: np.concatenate([a, np.full((WINDOW,) + a.shape[1:], fill, a.dtype)])
_KICKERS_PADDED = _PAD(cat.KICKERS, 0)
_CATEGORY_PADDED = _PAD(cat.CATEGORY.astype(np.int32), -1)
_UNIT = np.array([1, 1, 2], np.int32)  # a kicker's cards, by kicker kind (none, solo, pair)


def _levels(counts):
    """bool[..., 15, 4]: whether each rank's count reaches 1, 2, 3, 4."""
    return counts[..., :, None] > jnp.arange(4)


def _move_plane(action):
    """uint8[15, 19]: one move (-1: none yet)."""
    a = jnp.maximum(action, 0)
    counts = jnp.where(action >= 0, jnp.asarray(mv.COUNTS, jnp.int32)[a], 0)
    rows = jnp.arange(ROWS)
    feature = (rows[None, :] == jnp.asarray(_MOVE_ROW)[a]) & jnp.asarray(_MOVE_RANKS)[a][:, None]
    levels = jnp.concatenate([_levels(counts), jnp.zeros((R, ROWS - 4), bool)], axis=1)
    return ((levels | feature) & (action >= 0)).astype(jnp.uint8)


def _count_plane(counts, rows=ROWS):
    return jnp.concatenate([_levels(counts), jnp.zeros((R, rows - 4), bool)], axis=1).astype(
        jnp.uint8)


def unseen(s, seat):
    """int32[15]: the cards ``seat`` has not seen (not in its hand, not played)."""
    return (jnp.asarray(doudizhu.DECK) - s._hands[seat].astype(jnp.int32)
            - jnp.sum(s.played.astype(jnp.int32), axis=0))


def role(env, s, seat):
    return ddz_obs.role(s, seat)


def planes(env, s, seat):
    """uint8[15, 19, 21]: the policy network's input for ``seat`` (module docstring)."""
    recent = s.history[-3 * ROUNDS:]
    counts = jnp.asarray(mv.COUNTS, jnp.int32)
    in_rounds = jnp.sum(jnp.where((recent >= 0)[:, None], counts[jnp.maximum(recent, 0)], 0), 0)
    before = jnp.sum(s.played.astype(jnp.int32), axis=0) - in_rounds
    moves = jax.vmap(_move_plane)(recent)  # [18, 15, 19], oldest first
    stack = jnp.concatenate([_count_plane(before)[None], moves,
                             _count_plane(unseen(s, seat))[None],
                             _count_plane(s._hands[seat].astype(jnp.int32))[None]])
    return jnp.moveaxis(stack, 0, -1)


def extras(env, s, seat):
    """uint8[66]: the role and the cards left of the seat, the next and the previous seat."""
    rel = (jnp.arange(3) + seat) % 3
    left = s.cards_left[rel][:, None] == jnp.arange(21)
    return jnp.concatenate([jnp.arange(3) == role(env, s, seat), left.reshape(-1)]).astype(
        jnp.uint8)


def category(action):
    return jnp.asarray(cat.CATEGORY, jnp.int32)[action]


def category_mask(env, s):
    """bool[309]: the categories with a legal move."""
    legal = legal_words.unpack(env.legal_words(s), doudizhu.NUM_MOVES)
    return cat.category_mask(legal)


def _window(env, s, c):
    """The actions of category ``c`` (its first id on, ``WINDOW`` of them): ``(ids, kickers
    int32[W, 15], in_category & legal bool[W])``."""
    first = jnp.asarray(cat.CATEGORY_FIRST, jnp.int32)[c]
    ids = first + jnp.arange(WINDOW)
    legal = legal_words.unpack(env.legal_words(s), doudizhu.NUM_MOVES)
    legal = jnp.concatenate([legal, jnp.zeros(WINDOW, bool)])
    ok = jax.lax.dynamic_slice_in_dim(legal, first, WINDOW) & (
        jax.lax.dynamic_slice_in_dim(jnp.asarray(_CATEGORY_PADDED), first, WINDOW) == c)
    kick = jax.lax.dynamic_slice_in_dim(jnp.asarray(_KICKERS_PADDED, jnp.int32), first, WINDOW)
    return ids, kick, ok


def kicker_kind(c):
    return jnp.asarray(cat.KICKER_KIND, jnp.int32)[jnp.asarray(cat.CATEGORY_FIRST)[c]]


def num_kickers(c):
    return jnp.asarray(cat.NUM_KICKERS, jnp.int32)[jnp.asarray(cat.CATEGORY_FIRST)[c]]


def kicker_mask(env, s, c, chosen):
    """bool[28]: the kickers that may come next in category ``c`` after ``chosen`` (int32[15]
    kicker counts so far): a rank not below the last one chosen such that some legal move of
    the category has exactly the chosen kickers below it and one more at it."""
    _, kick, ok = _window(env, s, c)
    last = jnp.max(jnp.where(chosen > 0, jnp.arange(R), 0))
    unit = jnp.asarray(_UNIT)[kicker_kind(c)]
    differs = (kick != chosen[None, :]).astype(jnp.int32)
    below_same = (jnp.cumsum(differs, axis=1) - differs) == 0  # equal on every lower rank
    fits = below_same & (kick >= chosen[None, :] + unit) & (jnp.arange(R) >= last)[None, :]
    ranks = jnp.any(ok[:, None] & fits, axis=0)
    solo = ranks & (kicker_kind(c) == 1)
    pair = ranks[:13] & (kicker_kind(c) == 2)
    return jnp.concatenate([solo, pair])


def kicker_targets(action):
    """The teacher's kickers of ``action``, in the order the network chooses them: ``(targets
    int32[5] in 0 .. 27, chosen int32[5, 15] the kicker counts before each, valid bool[5])``."""
    c = category(action)
    kind = kicker_kind(c)
    unit = jnp.asarray(_UNIT)[kind]
    units = jnp.asarray(cat.KICKERS, jnp.int32)[action] // unit  # kickers per rank
    cum = jnp.cumsum(units)
    j = jnp.arange(MAX_KICKERS)
    rank = jnp.searchsorted(cum, j, side="right").astype(jnp.int32)  # the j-th kicker's rank
    rank = jnp.minimum(rank, R - 1)
    before = cum - units
    chosen = unit * jnp.clip(j[:, None] - before[None, :], 0, units[None, :])
    valid = j < num_kickers(c)
    target = jnp.where(kind == 2, R + rank, rank)
    return jnp.where(valid, target, 0), chosen, valid


def kicker_planes(env, s, seat, c, chosen):
    """uint8[15, 9, 3]: the kicker network's input (module docstring) for category ``c`` with
    ``chosen`` (int32[15]) kickers so far."""
    a0 = jnp.asarray(cat.CATEGORY_FIRST)[c]
    main = jnp.asarray(cat.MAIN, jnp.int32)[a0]
    kind = kicker_kind(c)
    nxt = kicker_mask(env, s, c, chosen)
    left = num_kickers(c) - jnp.sum(chosen) // jnp.asarray(_UNIT)[kind]
    hand = s._hands[seat].astype(jnp.int32) - main - chosen
    cols = jnp.arange(R)
    row = lambda on: jnp.broadcast_to(on, (R,))
    choice = jnp.stack([*_levels(hand).T, nxt[:R], jnp.concatenate([nxt[R:], jnp.zeros(2, bool)]),
                        row(kind == 1), row(kind == 2), cols == role(env, s, seat)], axis=1)
    beat = jnp.where(s.to_beat >= 0, jnp.asarray(mv.COUNTS, jnp.int32)[jnp.maximum(s.to_beat, 0)],
                     0)
    move = jnp.stack([*_levels(main).T, *_levels(chosen).T, cols == left], axis=1)
    game = jnp.stack([*_levels(unseen(s, seat)).T, *_levels(beat).T, row(s.to_beat < 0)], axis=1)
    return jnp.stack([choice, move, game], axis=-1).astype(jnp.uint8)


def action_of(env, s, c, chosen):
    """The legal action of category ``c`` with exactly the kickers ``chosen`` (int32[15]); the
    category's first legal action when there is none."""
    ids, kick, ok = _window(env, s, c)
    exact = ok & jnp.all(kick == chosen[None, :], axis=1)
    return jnp.where(jnp.any(exact), ids[jnp.argmax(exact)], ids[jnp.argmax(ok)])


def add_kicker(c, chosen, k):
    """The kicker counts after choosing output ``k`` (0 .. 27)."""
    rank = jnp.where(k >= R, k - R, k)
    return chosen + jnp.where(jnp.arange(R) == rank, jnp.asarray(_UNIT)[kicker_kind(c)], 0)


ADAPTER = Adapter(
    game="doudizhu", planes=planes, plane_shape=(R, ROWS, PLANES), extras=extras,
    num_extras=EXTRAS, role=role, role_names=ROLES, num_categories=cat.NUM_CATEGORIES,
    category=category, category_mask=category_mask, kicker_planes=kicker_planes,
    kicker_shape=(R, KICKER_ROWS, KICKER_PLANES), num_kicker_outputs=KICKER_OUT,
    max_kickers=MAX_KICKERS, kicker_choice_shape=(R,),
    num_kickers=num_kickers, kicker_targets=kicker_targets,
    kicker_mask=kicker_mask, add_kicker=add_kicker, action_of=action_of,
    category_name=cat.category_str, is_move=lambda env, s: ~s.bidding)
