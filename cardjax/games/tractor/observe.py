"""Tractor observations: the flat float32 vector a seat sees (:func:`observe`, ``OBS_SIZE``), the
same with every hand and the kitty appended (:func:`observe_oracle`, ``ORACLE_SIZE``), and the
ShengJi+ report's dynamic card encoding of either (:func:`to_dynamic`, :func:`cards_to_dynamic`).
Pure functions of a :class:`~cardjax.games.tractor.env.State`; the env's ``observe`` and
``observe_oracle`` call them."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from cardjax.games.tractor import moves as tm
from cardjax.games.tractor.moves import BURY, PLAY

Array = jax.Array

OBS_SIZE = 54 + 13 + 5 + 4 + 5 + 4 * 54 * 4 + 4 * 5 + 4 + 4 + 3 + 4 + 54  # see observe
ORACLE_SIZE = OBS_SIZE + 5 * 54  # observe_oracle: every hand and the kitty appended


def _onehot(i, n):
    return (jnp.arange(n) == i)


def _rel(x, seat):
    """Rows of a per-seat array reordered self, left (next), opposite, right."""
    return jnp.stack([x[(seat + i) % 4] for i in range(4)])


def observe(state, seat) -> Array:
    """float32[OBS_SIZE]: own hand /2 (54), level one-hot (13), trump one-hot (5), dealer
    relative one-hot (4), phase one-hot (5); relative to ``seat`` (self, next, opposite,
    previous): cards on the table, cards played, revealed cards, last trick (4 x 4 x 54 / 2);
    shown voids (4 x 5); leader of the trick and of the last trick (4 + 4, relative one-hot);
    attacker points, defender points /200 and trick number /25 (3); declarer relative (4); the
    kitty /2 if ``seat`` buried it (54)."""
    s = state
    rel = lambda i: _onehot((i - seat) % 4, 4) & (i >= 0)  # noqa: E731
    kitty_known = (s.burier == seat) & (s.phase >= BURY)
    parts = [
        s._hands[seat] / 2.0, _onehot(s.level, 13), _onehot(s.trump, 5), rel(s.dealer),
        _onehot(s.phase, 5),
        _rel(s.trick, seat) / 2.0, _rel(s.played, seat) / 2.0,
        _rel(s.revealed, seat) / 2.0, _rel(s.last_trick, seat) / 2.0,
        _rel(s.voids, seat), rel(s.leader) & (s.phase == PLAY), rel(s.last_leader),
        jnp.array([s.attacker_points / 200.0, s.defender_points / 200.0, s.trick_no / 25.0]),
        rel(s.decl_seat), jnp.where(kitty_known, s._kitty / 2.0, 0.0),
    ]
    return jnp.concatenate([jnp.asarray(x, jnp.float32).reshape(-1) for x in parts])


def observe_oracle(state, seat) -> Array:
    """``observe`` followed by every hand (relative to ``seat``) and the kitty, /2
    (``float32[ORACLE_SIZE]``)."""
    extra = jnp.concatenate([_rel(state._hands, seat).reshape(-1), state._kitty]) / 2.0
    return jnp.concatenate([observe(state, seat), extra.astype(jnp.float32)])


def _dynamic_template(n: int):
    """For :func:`to_dynamic` of a vector of length ``n``: per entry, the start of its 54-card
    block (-1: none) and its void row (-1: not a suit column of the voids)."""
    starts = [0] + [81 + 54 * i for i in range(16)] + [OBS_SIZE - 54]  # see observe
    if n == ORACLE_SIZE:
        starts += [OBS_SIZE + 54 * i for i in range(5)]
    block = np.full(n, -1, np.int32)
    for b in starts:
        block[b:b + 54] = b
    void = np.full(n, -1, np.int32)
    v0 = 81 + 16 * 54  # voids [4 seats, 5 effective suits]; column 4 (trump) stays
    for r in range(4):
        void[v0 + 5 * r:v0 + 5 * r + 4] = v0 + 5 * r
    return block, void


def _type_at(level, trump) -> Array:
    """int32[54]: the type at each place of the dynamic encoding."""
    return jnp.argsort(jnp.asarray(tm.DYN)[level, trump])


def cards_to_dynamic(cards, level, trump) -> Array:
    """A card vector ``[..., 54]`` (by type) in the dynamic encoding's places (as
    :func:`to_dynamic` reorders observe's card blocks)."""
    return cards[..., _type_at(level, trump)]


def to_dynamic(obs, level, trump) -> Array:
    """``observe`` (or ``observe_oracle``) in the dynamic card encoding of the ShengJi+ report:
    every 54-card block reordered so that place ``p`` holds the type placed at ``p`` by
    :data:`~cardjax.games.tractor.moves.DYN` for this ``level`` and ``trump`` (the plain suits, then the trump
    suit, then the level cards and jokers), and the voids' four suit columns in
    :data:`~cardjax.games.tractor.moves.SUIT_ORDER` (the trump suit last).  The other entries stay."""
    n = obs.shape[-1]
    if n not in (OBS_SIZE, ORACLE_SIZE):
        raise ValueError(f"to_dynamic needs an observe ({OBS_SIZE}) or observe_oracle "
                         f"({ORACLE_SIZE}) vector, got length {n}")
    block, void = (jnp.asarray(x) for x in _dynamic_template(n))
    type_at = _type_at(level, trump)
    col = jnp.arange(n) - jnp.maximum(block, void)
    idx = jnp.where(block >= 0, block + type_at[col % 54],
                    jnp.where(void >= 0, void + jnp.asarray(tm.SUIT_ORDER)[trump][col % 4],
                              jnp.arange(n)))
    return obs[..., idx]
