"""Card-location inference (Solinas, Rebstock and Buro 2019): a network trained on corpus games
to predict where each hidden card is (:mod:`cardjax.train.inference.train`); the network and one
adapter per game are :mod:`cardjax.nets.card_locations`.  The command is
``cardjax train inference``."""

from cardjax.train.inference.train import (
    Config, TrainState, cached_trainer, load_run, make_trainer, positions,
)

__all__ = ["Config", "TrainState", "cached_trainer", "load_run", "make_trainer", "positions"]
