"""What the bid value network sees of a game: one example per recorded game (the bidder's hand
before the auction and the return it got as the declarer: what the trainer learns from) and the
hand's features (what the network reads)."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Callable, NamedTuple


class Adapter(NamedTuple):
    """``example(env, initial_state, returns float[P]) -> (hand, return)``; ``features(hand) ->
    float32[num_features]``."""

    game: str
    example: Callable
    features: Callable
    num_features: int


def available() -> tuple:
    from cardjax.nets.bid_value import adapters

    return tuple(m.name for m in pkgutil.iter_modules(adapters.__path__))


def get(game: str) -> Adapter:
    if game not in available():
        raise ValueError(f"no bid value adapter for {game!r}; games: {', '.join(available())}")
    return importlib.import_module(f"cardjax.nets.bid_value.adapters.{game}").ADAPTER
