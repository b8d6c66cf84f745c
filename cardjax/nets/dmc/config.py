"""The configuration of a DMC run: the trainer's fields, and the game adapter's own options.

A config is saved with every checkpoint as one flat JSON object (the trainer's fields and the
adapter's options side by side), so runs saved before the adapters existed load unchanged.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from cardjax.dict_config import DictConfig
from cardjax.nets.dmc import adapter as adapters


@dataclasses.dataclass(frozen=True)
class Config(DictConfig):
    """Everything that defines a DMC training run.  The defaults are DouZero's hyper-parameters
    (the paper the trainer follows); each game's adapter overrides what differs
    (:meth:`for_game`)."""

    algorithm: str = "dmc"  # tells a run directory's loader which trainer made it
    game: str = "doudizhu"
    reward: str = "adp"  # the env's reward kind (one of the adapter's rewards)
    reward_scale: float = 1.0  # targets are the rewards times this
    num_envs: int = 64  # self-play games per iteration
    k: int = 512  # candidate slots per decision (legal actions beyond are counted as overflow)
    k_fast: int = 4  # the smallest candidate pool, per game; 0 = all k slots (acting.score_slots)
    max_steps: int = 156  # static bound on a game's steps (longer games count as truncated)
    epsilon: float = 0.01  # exploration of the actors
    # Boltzmann exploration: the actors' non-random choices are drawn from softmax(Q / T) over
    # the legal candidates instead of taking the best (0: greedy)
    temperature: float = 0.0
    gamma: float = 1.0  # discount per step (per decision), or per trick with discount "trick"
    lam: float = 1.0  # lambda of the targets: 1 = Monte-Carlo returns; below 1 mixes in the
    # actors' Q of the seat's later decisions (targets.returns)
    train_forced: bool = True  # train on the decisions with one legal action too (DouZero);
    # False: they weigh 0, as their Q chooses nothing
    lr: float = 1e-4  # RMSProp (DouZero)
    alpha: float = 0.99
    rms_eps: float = 1e-5
    clip: float = 40.0  # global gradient norm, per role
    minibatch: int = 1024  # decisions per gradient step (per role)
    epochs: int = 1  # passes over the iteration's decisions
    replay: int = 0  # previous iterations' decisions trained on again
    lstm: int = 128  # LSTM size over the history (DouZero: 128)
    width: int = 256  # state trunk MLP
    depth: int = 2
    head_width: int = 256  # per-candidate head
    head_depth: int = 2
    # games whose adapter marks trick ends: discount per "step" or per "trick"; a decision's
    # target is its seat's discounted "return", or "trick": its own trick's rewards plus the
    # final reward discounted once per later trick (the ShengJi+ report's)
    discount: str = "step"
    target: str = "return"
    oracle_iterations: int = 0  # games with an oracle view: oracle guiding over this many
    # games whose adapter knows the exact step reward of alternative actions (Tractor: the
    # points of each card that ends a trick): the weight of the loss that trains each such
    # alternative toward the taken action's target with its own step reward (0: off)
    counterfactual: float = 0.0
    # the same games: add each candidate's exactly known step reward to the network's Q when
    # choosing, and train the network on the rest of the return (target less that reward)
    exact_rewards: bool = False
    # games whose adapter names a reference player's move (Tractor with its advice option): added
    # to that move's Q when choosing, by the actors and the trained player; targets unchanged
    advice_bonus: float = 0.0
    # the same games: the weight of a large-margin imitation loss (DQfD's) at the decisions with
    # advice: the advised move's Q should exceed every other candidate's by ``imitation_margin``
    imitation: float = 0.0
    imitation_margin: float = 0.1
    # a prior player (a run directory or a baseline name) whose moves the actors play instead of
    # their own: a share ``prior_share`` of the decisions at first, falling to 0 over
    # ``prior_iterations`` iterations (a warm start from, e.g., a supervised policy)
    init_from: str = ""
    prior_iterations: int = 0
    prior_share: float = 0.25
    options: Any = None  # the adapter's options (its dataclass); None: their defaults

    def __post_init__(self):
        if self.algorithm != "dmc":
            raise ValueError(f"algorithm must be 'dmc', got {self.algorithm!r}")
        game = adapters.get(self.game)
        if self.options is None and game.options is not None:
            object.__setattr__(self, "options", game.options())
        if self.reward not in game.rewards:
            raise ValueError(f"reward of {self.game} must be one of {game.rewards}, got "
                             f"{self.reward!r} (Config.for_game sets a game's defaults)")
        for name in ("num_envs", "k", "max_steps", "minibatch", "epochs", "lstm", "width",
                     "head_width", "head_depth"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("replay", "depth", "k_fast", "oracle_iterations", "prior_iterations"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if not 0.0 < self.prior_share <= 1.0:
            raise ValueError(f"prior_share must be in (0, 1], got {self.prior_share}")
        if bool(self.init_from) != (self.prior_iterations > 0):
            raise ValueError("init_from (the prior player) and prior_iterations (> 0) go together; "
                             f"got init_from {self.init_from!r}, prior_iterations "
                             f"{self.prior_iterations}")
        if not 0.0 <= self.epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {self.epsilon}")
        if not 0.0 < self.gamma <= 1.0:
            raise ValueError(f"gamma must be in (0, 1], got {self.gamma}")
        if not (self.counterfactual >= 0.0 and math.isfinite(self.counterfactual)):
            raise ValueError(f"counterfactual must be a weight >= 0, got {self.counterfactual}")
        for name in ("advice_bonus", "imitation", "temperature"):
            value = getattr(self, name)
            if not (value >= 0.0 and math.isfinite(value)):
                raise ValueError(f"{name} must be >= 0, got {value}")
        for name in ("advice_bonus", "imitation"):
            if getattr(self, name) and not (game.advises and game.advises(self.options)):
                raise ValueError(f"{name} needs a game that names a reference move, which "
                                 f"{self.game} does not with these options (Tractor: advice "
                                 "true)")
        if not (self.imitation_margin > 0.0 and math.isfinite(self.imitation_margin)):
            raise ValueError(f"imitation_margin must be > 0, got {self.imitation_margin}")
        if not 0.0 <= self.lam <= 1.0:
            raise ValueError(f"lam must be in [0, 1], got {self.lam}")
        for name in ("lr", "rms_eps", "clip", "reward_scale"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha}")
        if self.discount not in ("step", "trick"):
            raise ValueError(f"discount must be 'step' or 'trick', got {self.discount!r}")
        if self.target not in ("return", "trick"):
            raise ValueError(f"target must be 'return' or 'trick', got {self.target!r}")
        if self.target == "trick" and (self.discount != "trick" or self.lam != 1.0):
            raise ValueError("target 'trick' discounts per trick (discount 'trick') and has no "
                             f"lambda (lam 1); got discount {self.discount!r}, lam {self.lam}")
        if not game.ticks and (self.discount != "step" or self.target != "return"):
            raise ValueError(f"discount 'trick' and target 'trick' need a game that marks trick "
                             f"ends; {self.game}'s DMC adapter does not")
        if not game.oracle and self.oracle_iterations:
            raise ValueError(f"oracle_iterations needs a game with an oracle view; "
                             f"{self.game}'s DMC adapter has none")

    @classmethod
    def for_game(cls, game: str, **fields) -> "Config":
        """The config of a new run of ``game``: its adapter's defaults, updated by ``fields``
        (the trainer's fields and the adapter's options alike, as in :meth:`to_dict`)."""
        return cls.from_dict({"game": game, **adapters.get(game).defaults, **fields})

    def to_dict(self) -> dict:
        """One flat dict: the trainer's fields, then the adapter's options."""
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "options"}
        if self.options is not None:
            d.update(dataclasses.asdict(self.options))
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Config":
        """The config of a flat dict (:meth:`to_dict`, a saved run, or flags).  Unknown keys are
        an error naming the known ones; a run saved before the adapters carries every game's
        options, and those of other games at their defaults are dropped."""
        game = adapters.get(d.get("game", cls.game))
        own = set(game.option_names())
        known = {f.name for f in dataclasses.fields(cls)} - {"options"}
        unknown = [k for k in d if k not in own and k not in known and not _former_default(k, d[k])]
        if unknown:
            raise ValueError(f"unknown config keys {sorted(unknown)} for {game.game}; known: "
                             f"{sorted(known | own)}")
        options = game.options(**{k: d[k] for k in d if k in own}) if game.options else None
        return cls(**{k: v for k, v in d.items() if k in known}, options=options)

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
