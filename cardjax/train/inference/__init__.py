"""Card-location inference (Solinas, Rebstock and Buro 2019): a network trained on corpus games
to predict where each hidden card is (:mod:`cardjax.train.inference.train`); one adapter per game
(:mod:`cardjax.train.inference.adapters`).  The command is ``experiments/inference.py``."""

from cardjax.train.inference.adapter import Adapter, available, get
from cardjax.train.inference.train import (
    Config, Net, TrainState, cached_trainer, load_log_q, load_run, log_q_fn, make_trainer,
    positions,
)

__all__ = ["Adapter", "Config", "Net", "TrainState", "available", "cached_trainer", "get",
           "load_log_q", "load_run", "log_q_fn", "make_trainer", "positions"]
