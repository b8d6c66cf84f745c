"""cardjax: Chinese card games (Gongzhu, Dou Dizhu, Tractor) as fast, pure JAX functions."""

from __future__ import annotations

import importlib

from cardjax.core import Agent, CheckedEnv, Env, auto_reset, checked, random_action

__version__ = "0.1.0"

# name -> "module:class"; a game is imported when first made.
_REGISTRY = {
    "gongzhu": "cardjax.games.gongzhu:Gongzhu",
    "doudizhu": "cardjax.games.doudizhu:DouDizhu",
    "mini_doudizhu": "cardjax.games.mini_doudizhu:MiniDouDizhu",
    "tractor": "cardjax.games.tractor:Tractor",
}
GAMES = tuple(_REGISTRY)


def make(name: str, checked: bool = False, **options) -> Env:
    """The env of game ``name`` with its rule options, e.g. ``make("gongzhu", exposure=True)``.

    ``checked=True`` returns the eager twin that raises on illegal actions (see ``checked``).
    """
    if name not in _REGISTRY:
        raise ValueError(f"unknown game {name!r}; available: {', '.join(GAMES)}")
    module, cls = _REGISTRY[name].split(":")
    try:
        env = getattr(importlib.import_module(module), cls)(**options)
    except TypeError as e:  # an unknown option name
        raise ValueError(f"bad options for {name!r}: {e}") from None
    return globals()["checked"](env) if checked else env


__all__ = ["make", "GAMES", "Agent", "Env", "CheckedEnv", "auto_reset", "checked", "random_action", "__version__"]
