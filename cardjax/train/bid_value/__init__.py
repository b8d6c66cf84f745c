"""A bid value network (the DouZero+ approach to bidding): from a seat's hand alone, before the
bottom cards, the landlord's chance to win and expected points if it took them, learned from the
outcomes of recorded games (:mod:`cardjax.train.bid_value.train`); the network and one adapter
per game are :mod:`cardjax.nets.bid_value`.  The command is ``cardjax train bid_value``;
:mod:`cardjax.games.doudizhu.bidder` bids with it."""

from cardjax.train.bid_value.train import Config, TrainState, cached_trainer, make_trainer

__all__ = ["Config", "TrainState", "cached_trainer", "make_trainer"]
