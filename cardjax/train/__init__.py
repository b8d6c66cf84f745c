"""Training utilities: losses and optimizers."""

from cardjax.train.losses import alphazero_loss, kl_divergence, make_optimizer

__all__ = ["alphazero_loss", "kl_divergence", "make_optimizer"]
