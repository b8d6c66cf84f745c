"""A supervised trainer's view of a corpus: the training batch of every iteration (reproducible,
so ``--resume`` continues exactly), a fixed set of held-out games, and positions drawn from
the games a step replayed."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from cardjax.corpus.store import Corpus, Games


class Batches:
    """The training games of iteration ``i``: batch ``i mod per_epoch`` of epoch ``i //
    per_epoch``, the split shuffled anew each epoch from the run's seed.  Asking for the batch
    after the last one given reads on; any other restarts the epoch and skips to it."""

    def __init__(self, c: Corpus, batch: int, seed: int):
        self.c, self.batch, self.seed = c, batch, seed
        n = c.count("train")
        if n < batch:
            raise SystemExit(f"error: the corpus's train split has {n} games, fewer than "
                             f"--batch_games {batch}")
        self.per_epoch = n // batch
        self._at, self._it = None, None

    def __call__(self, i: int) -> Games:
        epoch, j = divmod(i, self.per_epoch)
        if self._at != (epoch, j):
            self._it = self.c.games("train", self.batch, shuffle=True,
                                    seed=self.seed * 100003 + epoch, drop_last=True)
            for _ in range(j):
                next(self._it)
        self._at = (epoch, j + 1)
        return next(self._it)


def first_games(c: Corpus, split: str, games: int) -> Games:
    """The first ``games`` games of ``split`` (fewer when it has fewer); ``SystemExit`` when it
    has none."""
    parts, n = [], 0
    for g in c.games(split, min(games, 1024)):
        parts.append(g)
        n += g.deal_id.shape[0]
        if n >= games:
            break
    if not parts:
        raise SystemExit(f"error: the corpus has no {split} games; make a larger one")
    return Games.concat(parts).take(np.arange(min(games, n)))


def over_games(fn, data: Games, batch: int, per_position: bool = True):
    """``fn(games)`` over every game of ``data``, ``batch`` games at a time (one compiled
    program: the last batch is filled with repeated games, left out of the result).  ``fn``
    returns a pytree of arrays, per position (flat ``[T * batch]``, time-major) or, with
    ``per_position=False``, per game (``[batch]``); the result holds NumPy arrays
    ``[T, games]`` or ``[games]``."""
    n = data.deal_id.shape[0]
    parts = []
    for start in range(0, n, batch):
        rows = np.arange(start, start + batch)
        keep = rows < n
        got = jax.device_get(fn(data.take(rows % n)))
        parts.append(jax.tree_util.tree_map(
            lambda x: (np.asarray(x).reshape(-1, batch)[:, keep] if per_position
                       else np.asarray(x)[keep]), got))
    axis = 1 if per_position else 0
    return jax.tree_util.tree_map(lambda *xs: np.concatenate(xs, axis=axis), *parts)


def to_device(g: Games):
    """``(initial states, actions)`` of a batch as device arrays."""
    return jax.tree_util.tree_map(jnp.asarray, g.state), jnp.asarray(g.actions)


def draw(key, weights, k):
    """``(indices int32[k], chosen bool[k])``: ``k`` distinct entries where ``weights`` (bool[N])
    is True, uniformly (fewer chosen when fewer are True): a trainer's positions drawn from the
    games it replayed."""
    score = jnp.where(weights, jax.random.uniform(key, weights.shape), -1.0)
    top, idx = jax.lax.top_k(score, k)
    return idx, top >= 0
