"""DeepRocket (Jiang et al.): a supervised Dou Dizhu player from game records -- a policy network
over move categories and a kicker network that completes them (:mod:`cardjax.train.deeprocket.
train`); one adapter per game (:mod:`cardjax.train.deeprocket.adapters`).  The command is
``experiments/deeprocket.py``; :mod:`cardjax.agents.deeprocket` plays a run."""

from cardjax.train.deeprocket.adapter import Adapter, available, get
from cardjax.train.deeprocket.train import (
    Config, Nets, TrainState, cached_trainer, choose, make_nets, make_trainer,
)

__all__ = ["Adapter", "Config", "Nets", "TrainState", "available", "cached_trainer", "choose",
           "get", "make_nets", "make_trainer"]
