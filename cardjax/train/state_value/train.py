"""The state value trainer: a network from a whole position (every hand seen) to the return the
seat to act still gets as the corpus's players play the game out, by squared error on recorded
games.  A search that deals worlds reads it at its leaves (``pimc:value=RUN``): each world is a
whole position, and the network stands for the corpus's players playing it out, at the cost of
one network call instead of a playout.

One jitted step takes ``batch_games`` corpus games, replays them (every position, and the
rewards each seat still gets after it), draws ``batch`` of their positions at random and takes
one Adam step.  The network is :mod:`cardjax.nets.state_value` (a search needs it, not this
trainer).
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from cardjax.corpus import replay
from cardjax.corpus.batches import draw
from cardjax.dict_config import DictConfig
from cardjax.nets.state_value.network import Net, features, make_net, make_value
from cardjax.train import corpus_run
from cardjax.train.corpus_run import TrainState


@dataclasses.dataclass(frozen=True)
class Config(DictConfig):
    """Everything that defines a run (saved with every checkpoint)."""

    algorithm: str = "state_value"
    game: str = "doudizhu"
    corpus: str = ""  # the corpus directory (its manifest names the game and options)
    batch_games: int = 64  # games replayed per step; the positions are drawn from them
    batch: int = 1024  # positions per step
    width: int = 512
    depth: int = 3
    lr: float = 3e-4
    return_scale: float = 0.5  # the squared error is taken on the return x this


def positions(env, states, actions):
    """Every position of the games (initial ``states``, ``actions`` int[B, T], -1 after the
    last), flattened to [N = T x B]: ``(states, to_come float32[N], live bool[N])``, ``to_come``
    the rewards the seat to act receives after that position (the game's return less what it had
    received before), ``live`` where a recorded move was played from it."""
    _, total, ((st, arrived), live) = replay(env, states, actions, lambda s, a: (s, s.rewards))
    arrived = jnp.where(live[..., None], arrived.at[0].set(0.0), 0.0)  # [T, B, P]
    to_come = total[None] - jnp.cumsum(arrived, axis=0)
    mover = st.current_player.astype(jnp.int32)
    mine = jnp.take_along_axis(to_come, mover[..., None], -1)[..., 0]
    flat = lambda x: x.reshape((-1,) + x.shape[2:])
    return jax.tree_util.tree_map(flat, st), flat(mine), flat(live)


class Trainer(NamedTuple):
    env: Any
    net: Net
    cfg: Config
    init: Any  # key -> TrainState
    update: Any  # (state, states, actions) -> (state, metrics), jitted
    score: Any  # (params, states, actions) -> (predicted, to_come, live), all flat, jitted


def make_trainer(cfg: Config, env) -> Trainer:
    net, value = make_net(cfg.to_dict()), make_value(cfg.to_dict(), env)
    tx = optax.adam(cfg.lr)
    size = jax.eval_shape(lambda k: features(env, env.init(k)), jax.random.PRNGKey(0)).shape[-1]

    def init(key):
        k_net, k_state = jax.random.split(key)
        params = net.init(k_net, jnp.zeros((1, size), jnp.float32))
        return TrainState(params, tx.init(params), k_state, jnp.int32(0))

    def loss_fn(params, x, target, chosen):
        w = chosen.astype(jnp.float32)
        err = (net.apply(params, x) - target * cfg.return_scale) ** 2
        mse = jnp.sum(w * err) / jnp.maximum(jnp.sum(w), 1.0)
        return mse, {"loss": mse, "positions": jnp.sum(w)}

    @jax.jit
    def update(state, states, actions):
        st, to_come, live = positions(env, states, actions)
        key = jax.random.fold_in(state.key, state.iteration)
        idx, chosen = draw(key, live, min(cfg.batch, live.shape[0]))
        x = jax.vmap(lambda s: features(env, s))(jax.tree_util.tree_map(lambda a: a[idx], st))
        (_, metrics), grads = jax.value_and_grad(loss_fn, has_aux=True)(
            state.params, x, to_come[idx], chosen)
        updates, opt_state = tx.update(grads, state.opt_state, state.params)
        params = optax.apply_updates(state.params, updates)
        return TrainState(params, opt_state, state.key, state.iteration + 1), metrics

    @jax.jit
    def score(params, states, actions):
        st, to_come, live = positions(env, states, actions)
        return jax.vmap(lambda s: value(params, s))(st), to_come, live

    return Trainer(env, net, cfg, jax.jit(init), update, score)


cached_trainer = corpus_run.cached(make_trainer)
