"""What the card-location network sees of a game: its env, the features of a seat's view, and how
positions are grouped for the figures (the trick or move number, the seat's role)."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Callable, NamedTuple

import jax


class Adapter(NamedTuple):
    """``features(env, state, seat) -> float32[F]``: what the network reads; ``stage(env,
    state) -> int32``: the trick (Gongzhu, Tractor) or move number (Dou Dizhu) a position is
    counted under, ``0 .. stages - 1``; ``role(env, state, seat) -> int32``: the seat's role,
    ``0 .. len(role_names) - 1``."""

    game: str
    features: Callable
    stage: Callable
    stages: int
    role: Callable
    role_names: tuple
    stage_name: str = "trick"


def available() -> tuple:
    from cardjax.nets.card_locations import adapters

    return tuple(m.name for m in pkgutil.iter_modules(adapters.__path__))


def get(game: str) -> Adapter:
    if game not in available():
        raise ValueError(f"no card-location inference for {game!r}; games: "
                         f"{', '.join(available())}")
    return importlib.import_module(f"cardjax.nets.card_locations.adapters.{game}").ADAPTER


def feature_size(env, adapter: Adapter) -> int:
    shapes = jax.eval_shape(lambda k: adapter.features(env, env.init(k), 0),
                            jax.random.PRNGKey(0))
    return int(shapes.shape[-1])
