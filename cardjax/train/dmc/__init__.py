"""Deep Monte Carlo (DMC) self-play training, generic over games: DouZero for Dou Dizhu,
ShengJi+ for Tractor, a Gongzhu baseline.  Each game enters through its adapter
(``cardjax/nets/dmc/adapters/<game>.py``); the trainer never names a game.  What a trained
player needs (the config, the adapters, the Q network, the acting kernels) is in
:mod:`cardjax.nets.dmc`, below the trainer.  The design, the options and the measurements are in
``docs/dmc.md``.

:func:`make_train` returns ``init(key) -> TrainState`` and a jitted ``step(TrainState) ->
(TrainState, metrics)`` that does a whole iteration on device: self-play
(:mod:`~cardjax.train.dmc.self_play`), targets (:mod:`~cardjax.train.dmc.targets`) and the
learner (:mod:`~cardjax.train.dmc.learner`): DouZero's core, to which each research idea
(per-trick targets, lambda-returns, oracle guiding, exact rewards, counterfactual targets,
advice, imitation, a prior player) adds its hooks from one module of
:mod:`cardjax.train.dmc.extensions` (:mod:`~cardjax.train.dmc.extension` says how).
"""

from cardjax.nets.dmc.acting import (compact, compact_words, feature_rows, greedy_actions,
                                     legal_sets, observe, pool_sizes, q_values, role_params,
                                     score_by_role, score_slots)
from cardjax.nets.dmc.adapter import Adapter, Game, available, get as get_adapter, make_game
from cardjax.train.dmc.config import Config
from cardjax.train.dmc.extension import Extension, Hooks
from cardjax.train.dmc.extensions import EXTENSIONS
from cardjax.nets.dmc.q_net import QNet, make_net
from cardjax.train.dmc.learner import Batch, make_learner, make_optimizer
from cardjax.train.dmc.state import Decisions, TrainState, state_shardings
from cardjax.train.dmc.targets import returns
from cardjax.train.dmc.train import Train, cached_train, make_train

__all__ = [
    "Adapter", "Batch", "Config", "Decisions", "EXTENSIONS", "Extension", "Game", "Hooks", "QNet", "Train", "TrainState", "available",
    "cached_train", "compact", "compact_words", "feature_rows", "get_adapter", "greedy_actions",
    "legal_sets", "make_game", "make_learner", "make_net", "make_optimizer", "make_train",
    "observe", "pool_sizes", "q_values", "returns", "role_params", "score_by_role", "score_slots",
    "state_shardings",
]
