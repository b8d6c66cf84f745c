"""What DeepRocket sees of a game: the policy network's input planes, the move
categories it chooses among, and how a category's remaining choices (the kickers) are made one
at a time by the kicker network.  A game with no kickers would give ``max_kickers = 0``."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Callable, NamedTuple


class Adapter(NamedTuple):
    """All functions are for one state (vmap for a batch).

    ``planes(env, state, seat) -> uint8[plane_shape]`` and ``extras(env, state, seat) ->
    uint8[num_extras]``: the policy network's input; ``role(env, state, seat) -> int32``;
    ``category(action) -> int32``; ``category_mask(env, state) -> bool[num_categories]`` (the
    categories with a legal action); ``kicker_planes(env, state, seat, category, chosen) ->
    uint8[kicker_shape]``; ``num_kickers(category) -> int32``; ``kicker_targets(action) ->
    (targets int32[max_kickers], chosen [max_kickers, ...], valid bool[max_kickers])``: the
    teacher's kicker choices and what was chosen before each; ``kicker_mask(env, state,
    category, chosen) -> bool[num_kicker_outputs]``; ``add_kicker(category, chosen, k)``: the
    choice after output ``k`` (``chosen`` starts as zeros of ``kicker_choice_shape``);
    ``action_of(env, state, category, chosen) -> int32``; ``is_move(env, state) -> bool``: the
    seat to act plays a move (not a bid, say) and the networks decide it."""

    game: str
    planes: Callable
    plane_shape: tuple
    extras: Callable
    num_extras: int
    role: Callable
    role_names: tuple
    num_categories: int
    category: Callable
    category_mask: Callable
    kicker_planes: Callable
    kicker_shape: tuple
    num_kicker_outputs: int
    max_kickers: int
    kicker_choice_shape: tuple
    num_kickers: Callable
    kicker_targets: Callable
    kicker_mask: Callable
    add_kicker: Callable
    action_of: Callable
    category_name: Callable
    is_move: Callable


def available() -> tuple:
    from cardjax.nets.deeprocket import adapters

    return tuple(m.name for m in pkgutil.iter_modules(adapters.__path__))


def get(game: str) -> Adapter:
    if game not in available():
        raise ValueError(f"no DeepRocket adapter for {game!r}; games: {', '.join(available())}")
    return importlib.import_module(f"cardjax.nets.deeprocket.adapters.{game}").ADAPTER
