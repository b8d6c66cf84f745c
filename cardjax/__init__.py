"""cardjax: Chinese card games (Gongzhu, Dou Dizhu, Tractor) as fast, pure JAX functions."""

from __future__ import annotations

import importlib

from cardjax import registry
from cardjax.registry import make
from cardjax.contract import api_test
from cardjax.core import Agent, CheckedEnv, Env, auto_reset, checked, pick_action, random_action

__version__ = "0.1.0"

# the public subpackages, imported on first use (``cardjax.agents.get(...)`` after ``import cardjax``)
_SUBPACKAGES = ("agents", "cards", "contract", "corpus", "duplicate", "eval", "games", "inference",
                "nets", "play", "search", "spec", "table", "train")


def __getattr__(name: str):
    if name == "GAMES":  # the registered games, including any registered at run time
        return registry.names()
    if name in _SUBPACKAGES:
        return importlib.import_module(f"cardjax.{name}")
    raise AttributeError(f"module 'cardjax' has no attribute {name!r}")


__all__ = ["make", "GAMES", "Agent", "Env", "CheckedEnv", "api_test", "auto_reset", "checked",
           "pick_action", "random_action", "registry", "__version__"]
