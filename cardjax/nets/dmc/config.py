"""The configuration of a DMC run as a trained network reads it: the core trainer's fields, the
game adapter's options, and the extensions' options kept as they were saved.

A config is saved with every checkpoint as one flat JSON object (the core fields, the adapter's
options and the extensions' options side by side), so runs saved before the adapters or the
extensions existed load unchanged.  This module does not know the trainer's extensions
(``cardjax/train/dmc/extensions/``, a floor above): the keys it does not know are kept in
``extensions`` and written back as they came; the trainer's own ``Config`` checks them.  A
trained player reads three of them, because they say what its network's numbers mean
(:attr:`Config.exact_scale`, :attr:`Config.advice_bonus`, :attr:`Config.oracle`).

Each field's metadata is its command-line flag (:func:`cardjax.cli.option`): help written once.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from cardjax.cli import (boolean, discount_factor, non_negative_float, non_negative_int, option,
                         positive_float, positive_int, probability)
from cardjax.dict_config import DictConfig
from cardjax.nets.dmc import adapter as adapters


@dataclasses.dataclass(frozen=True)
class Config(DictConfig):
    """Everything that defines a DMC training run.  The defaults are DouZero's hyper-parameters
    (the paper the trainer follows); each game's adapter overrides what differs
    (:meth:`for_game`).  ``options``: the adapter's options (its dataclass; None: defaults);
    ``extensions``: the other keys, sorted ``(key, value)`` pairs (:meth:`extension`)."""

    algorithm: str = "dmc"  # tells a run directory's loader which trainer made it
    game: str = "doudizhu"
    reward: str = option("adp", "reward of the games (one of the adapter's rewards)")
    reward_scale: float = option(1.0, "targets are the rewards times this", positive_float)
    num_envs: int = option(64, "self-play games per iteration", positive_int)
    k: int = option(512, "candidate slots per decision (more legal moves are counted as "
                    "overflow)", positive_int)
    k_fast: int = option(4, "candidates per game in a pass of the heads: the legal moves of all "
                         "games are packed k_fast x num_envs rows a pass, as many passes as "
                         "they need (0 = all k slots of every game)", non_negative_int)
    max_steps: int = option(156, "longest game played out (longer ones are counted as "
                            "truncated)", positive_int)
    epsilon: float = option(0.01, "exploration of the actors", probability)
    temperature: float = option(0.0, "Boltzmann exploration: the actors' other choices are "
                                "drawn from softmax(Q / temperature) over the legal moves (0: "
                                "the best)", non_negative_float)
    gamma: float = option(1.0, "discount per step (per trick with --discount trick)",
                          discount_factor)
    train_forced: bool = option(True, "train on the decisions with one legal action too "
                                "(true / false; false: they weigh 0, their Q chooses nothing)",
                                boolean)
    lr: float = option(1e-4, "RMSProp learning rate", positive_float)
    alpha: float = option(0.99, "RMSProp decay", probability)
    rms_eps: float = 1e-5
    clip: float = option(40.0, "gradient clipping (global norm, per role)", positive_float)
    minibatch: int = option(1024, "decisions per gradient step (per role)", positive_int)
    epochs: int = option(1, "passes over the iteration's decisions", positive_int)
    replay: int = option(0, "previous iterations' decisions trained on again", non_negative_int)
    lstm: int = option(128, "LSTM size (history of the last 15 moves)", positive_int)
    width: int = option(256, "state MLP width", positive_int)
    depth: int = option(2, "state MLP layers", non_negative_int)
    head_width: int = option(256, "per-candidate head width", positive_int)
    head_depth: int = option(2, "per-candidate head layers", positive_int)
    options: Any = None
    extensions: tuple = ()

    def __post_init__(self):
        if self.algorithm != "dmc":
            raise ValueError(f"algorithm must be 'dmc', got {self.algorithm!r}")
        game = adapters.get(self.game)
        if self.options is None and game.options is not None:
            object.__setattr__(self, "options", game.options())
        object.__setattr__(self, "extensions", tuple(sorted(dict(self.extensions).items())))
        if self.reward not in game.rewards:
            raise ValueError(f"reward of {self.game} must be one of {game.rewards}, got "
                             f"{self.reward!r} (Config.for_game sets a game's defaults)")
        for name in ("num_envs", "k", "max_steps", "minibatch", "epochs", "lstm", "width",
                     "head_width", "head_depth"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("replay", "depth", "k_fast"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if not 0.0 <= self.epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {self.epsilon}")
        if not 0.0 < self.gamma <= 1.0:
            raise ValueError(f"gamma must be in (0, 1], got {self.gamma}")
        if not (self.temperature >= 0.0 and self.temperature < float("inf")):
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        for name in ("lr", "rms_eps", "clip", "reward_scale"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha}")

    @classmethod
    def core_names(cls) -> tuple:
        """The core trainer's fields (neither the adapter's options nor the extensions')."""
        return tuple(f.name for f in dataclasses.fields(cls)
                     if f.name not in ("options", "extensions"))

    @classmethod
    def for_game(cls, game: str, **fields) -> "Config":
        """The config of a new run of ``game``: its adapter's defaults, updated by ``fields``
        (core fields, the adapter's options and extensions' options alike, as in
        :meth:`to_dict`)."""
        return cls.from_dict({"game": game, **adapters.get(game).defaults, **fields})

    def to_dict(self) -> dict:
        """One flat dict: the core fields, the adapter's options, then the extensions'."""
        d = {name: getattr(self, name) for name in self.core_names()}
        if self.options is not None:
            d.update(dataclasses.asdict(self.options))
        d.update(self.extensions)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Config":
        """The config of a flat dict (:meth:`to_dict`, a saved run, or flags).  A run saved before
        the adapters carries every game's options: those of other games at their defaults are
        dropped.  Every other key is kept in ``extensions``."""
        game = adapters.get(d.get("game", "doudizhu"))
        own = set(game.option_names())
        core = set(cls.core_names())
        rest = {k: v for k, v in d.items()
                if k not in own and k not in core and not _former_default(k, v)}
        options = game.options(**{k: d[k] for k in d if k in own}) if game.options else None
        return cls(**{k: v for k, v in d.items() if k in core}, options=options,
                   extensions=tuple(rest.items()))

    def replace(self, **fields) -> "Config":
        """This config with ``fields`` changed (any kind of key, as in :meth:`to_dict`)."""
        return type(self).from_dict({**self.to_dict(), **fields})

    def extension(self, key: str, default=None):
        """The saved value of an extension's option ``key`` (``default`` where the run has
        none: the extension was off, or did not exist yet)."""
        return dict(self.extensions).get(key, default)

    @property
    def exact_scale(self) -> float:
        """The scale of the exactly known step rewards that a player adds to the network's Q
        (the network learned the return less them: ``exact_rewards``), 0 when it did not."""
        return self.reward_scale if self.extension("exact_rewards", False) else 0.0

    @property
    def advice_bonus(self) -> float:
        """The bonus a player adds to the Q of the move its game's advice names."""
        return float(self.extension("advice_bonus", 0.0))

    @property
    def oracle(self) -> bool:
        """The network's input ends with an oracle block (zeros when playing): it was trained
        with oracle guiding."""
        return int(self.extension("oracle_iterations", 0)) > 0

    @property
    def num_roles(self) -> int:
        return len(adapters.get(self.game).role_names_for(self.options))

    @property
    def steps(self) -> int:
        """``max_steps`` rounded up to a multiple of the number of roles (the buffer's length)."""
        r = self.num_roles
        return -(-self.max_steps // r) * r


def _former_default(key: str, value) -> bool:
    """True when ``key`` is an option of some game's adapter and ``value`` its default (what a
    config saved before the adapters held for the games without that option)."""
    for name in adapters.available():
        game = adapters.get(name)
        if game.options is not None and key in game.option_names():
            return dataclasses.fields(game.options)[game.option_names().index(key)].default == value
    return False
