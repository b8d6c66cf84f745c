"""Dou Dizhu moves as DeepRocket's categories and kickers (the paper's table 3 and section 4.3).

The policy network of DeepRocket chooses one of 309 *categories*: a move's type, length and main
rank, its kickers left open ("3334" and "3335" are one category, trio of 3s with a solo).  The
kicker network then chooses the kickers, one rank at a time (15 solos, 13 pairs).  Here every
action id of :mod:`cardjax.games.doudizhu.moves` maps to exactly one ``(category, kicker
counts)`` and back:

* :data:`CATEGORY` int16[A]: the action's category, ``0 .. 308``, in action-id order of first
  appearance (so categories keep the table's type order: solo, pair, trio, trio + solo, ...).
* :data:`MAIN` int8[A, 15] and :data:`KICKERS` int8[A, 15]: the rank counts of the main group and
  of the kickers (``MAIN + KICKERS = COUNTS``).
* :data:`KICKER_KIND` int8[A]: 0 none, 1 solo kickers, 2 pair kickers; :data:`NUM_KICKERS` int8[A]:
  how many (the kicker network is called that many times).
* :func:`action_of` rebuilds the action id; :func:`category_mask` gives the categories with a legal
  move (the policy network's mask at play time); :func:`kicker_choices` the legal actions of one
  category.

Counts per row of table 3 (``TABLE3``) are checked by the tests: 15 + 36 + 13 + 52 + 13 + 45 + 13
+ 38 + 13 + 30 + 13 + 13 + 13 + 1 + 1 = 309.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from cardjax.games.doudizhu import moves as mv

# Rows of the paper's table 3: (type, number of categories).
TABLE3 = ((mv.SOLO, 15), (mv.CHAIN_SOLO, 36), (mv.PAIR, 13), (mv.CHAIN_PAIR, 52), (mv.TRIO, 13),
          (mv.CHAIN_TRIO, 45), (mv.TRIO_SOLO, 13), (mv.PLANE_SOLO, 38), (mv.TRIO_PAIR, 13),
          (mv.PLANE_PAIR, 30), (mv.FOUR_TWO_SOLO, 13), (mv.FOUR_TWO_PAIR, 13), (mv.BOMB, 13),
          (mv.ROCKET, 1), (mv.PASS_T, 1))

_SOLO_KICKED = (mv.TRIO_SOLO, mv.PLANE_SOLO, mv.FOUR_TWO_SOLO)
_PAIR_KICKED = (mv.TRIO_PAIR, mv.PLANE_PAIR, mv.FOUR_TWO_PAIR)


def _build():
    t = mv.TYPE.astype(np.int32)
    main_rank = mv.MAIN_RANK.astype(np.int32)
    kind = np.where(np.isin(t, _SOLO_KICKED), 1, np.where(np.isin(t, _PAIR_KICKED), 2, 0))
    # the main group: the trios of a trio or airplane, the four of four + two
    per_rank = np.where(np.isin(t, (mv.FOUR_TWO_SOLO, mv.FOUR_TWO_PAIR)), 4, 3)
    n_main = np.where(np.isin(t, (mv.PLANE_SOLO, mv.PLANE_PAIR)),
                      (mv.LENGTH.astype(np.int32)) // np.where(kind == 1, 4, 5), 1)
    ranks = np.arange(mv.NUM_RANKS)
    in_main = ((ranks[None, :] >= main_rank[:, None])
               & (ranks[None, :] < (main_rank + n_main)[:, None]))
    counts = mv.COUNTS.astype(np.int32)
    main = np.where(kind[:, None] > 0, np.where(in_main, per_rank[:, None], 0), counts)
    kickers = counts - main
    key = np.stack([t, mv.LENGTH.astype(np.int32), main_rank], axis=1)
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first))  # categories numbered by first action id
    category = order[inverse.reshape(-1)].astype(np.int16)
    num_kickers = np.where(kind == 2, kickers.sum(1) // 2, kickers.sum(1))
    return (category, main.astype(np.int8), kickers.astype(np.int8), kind.astype(np.int8),
            num_kickers.astype(np.int8), np.sort(first).astype(np.int32))


# CATEGORY_FIRST: each category's first action id
CATEGORY, MAIN, KICKERS, KICKER_KIND, NUM_KICKERS, CATEGORY_FIRST = _build()
NUM_CATEGORIES = len(CATEGORY_FIRST)  # 309
CATEGORY_TYPE = mv.TYPE[CATEGORY_FIRST]
_ID = {(int(c), k.tobytes()): i for i, (c, k) in enumerate(zip(CATEGORY, KICKERS))}
for _a in (CATEGORY, MAIN, KICKERS, KICKER_KIND, NUM_KICKERS, CATEGORY_FIRST, CATEGORY_TYPE):
    _a.setflags(write=False)


def action_of(category: int, kickers) -> int:
    """The action id of a category with these kicker counts (``int[15]``); ``ValueError`` when the
    pair is not a move."""
    k = np.asarray(kickers, np.int8).reshape(mv.NUM_RANKS)
    try:
        return _ID[(int(category), k.tobytes())]
    except KeyError:
        raise ValueError(f"category {category} with kickers {mv.counts_to_str(k) or '-'} is not a "
                         "Dou Dizhu move") from None


def category_str(category: int) -> str:
    """A readable name: the type, the main cards and the kickers left open (``333+s``)."""
    a = int(CATEGORY_FIRST[category])
    main = mv.counts_to_str(MAIN[a]) or "pass"
    kick = {0: "", 1: "+" + "s" * int(NUM_KICKERS[a]), 2: "+" + "p" * int(NUM_KICKERS[a])}
    return main + kick[int(KICKER_KIND[a])]


def category_mask(legal_mask: jax.Array) -> jax.Array:
    """bool[309]: the categories with at least one legal action (``legal_mask`` bool[27,472])."""
    return jnp.zeros(NUM_CATEGORIES, bool).at[jnp.asarray(CATEGORY, jnp.int32)].max(legal_mask)


def kicker_choices(legal_mask: jax.Array, category) -> jax.Array:
    """bool[27,472]: the legal actions of ``category`` (the kicker network chooses among them)."""
    return legal_mask & (jnp.asarray(CATEGORY, jnp.int32) == category)
