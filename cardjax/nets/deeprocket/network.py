"""DeepRocket's two networks (section 4): convolution layers over the rank x row x plane input,
then one fully connected layer and the output (the paper: 10 layers of 512 filters for the policy,
5 layers for the kicker network)."""

from __future__ import annotations

import flax.linen as nn
import jax.numpy as jnp


class ConvNet(nn.Module):
    """``planes [..., X, Y, Z]`` (and optional ``extras [..., E]``) -> ``logits [..., outputs]``.

    ``depth`` 3x3 convolutions of ``width`` filters with ReLU, padded so the rank x row grid keeps
    its size; the result flattened, the extras appended, one hidden fully connected layer of
    ``fc`` units, then the output layer."""

    outputs: int
    width: int = 64
    depth: int = 4
    fc: int = 256

    @nn.compact
    def __call__(self, planes, extras=None):
        x = planes.astype(jnp.float32)
        lead = x.shape[:-3]
        x = x.reshape((-1,) + x.shape[-3:])
        for _ in range(self.depth):
            x = nn.relu(nn.Conv(self.width, (3, 3), padding="SAME")(x))
        x = x.reshape((x.shape[0], -1))
        if extras is not None:
            x = jnp.concatenate([x, extras.reshape((-1, extras.shape[-1])).astype(jnp.float32)], 1)
        x = nn.relu(nn.Dense(self.fc)(x))
        return nn.Dense(self.outputs)(x).reshape(lead + (self.outputs,))
