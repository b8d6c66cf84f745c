"""The state value trainer (:mod:`cardjax.train.state_value.train`)."""

from cardjax.train.state_value.train import Config, Trainer, cached_trainer, make_trainer, positions

__all__ = ["Config", "Trainer", "cached_trainer", "make_trainer", "positions"]
