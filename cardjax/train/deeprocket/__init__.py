"""DeepRocket (Jiang et al.): a supervised Dou Dizhu player from game records -- a policy network
over move categories and a kicker network that completes them (:mod:`cardjax.train.deeprocket.
train`); the networks and one adapter per game are :mod:`cardjax.nets.deeprocket`.  The command
is ``cardjax train deeprocket``; :mod:`cardjax.agents.deeprocket` plays a run."""

from cardjax.train.deeprocket.train import Config, TrainState, cached_trainer, make_trainer

__all__ = ["Config", "TrainState", "cached_trainer", "make_trainer"]
