"""The bid value trainer: an MLP from the declarer's hand (before the bottom cards) to its win
probability (a logistic output, cross-entropy on the result) and its expected return (squared
error), trained on one example per recorded game.  ``value(params, hand) -> (p_win, return)``
is what a bidder reads; the network and its adapters are :mod:`cardjax.nets.bid_value`."""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from cardjax.dict_config import DictConfig
from cardjax.nets.bid_value import adapter as adapters
from cardjax.nets.bid_value.network import Net, make_net, make_value
from cardjax.train import corpus_run
from cardjax.train.corpus_run import TrainState


@dataclasses.dataclass(frozen=True)
class Config(DictConfig):
    """Everything that defines a run (saved with every checkpoint)."""

    algorithm: str = "bid_value"
    game: str = "doudizhu"
    corpus: str = ""
    batch_games: int = 256  # examples (games) per step
    width: int = 128
    depth: int = 2
    lr: float = 1e-3
    return_scale: float = 0.25  # the return's squared error is taken on return x this


class Trainer(NamedTuple):
    env: Any
    adapter: Any
    net: Net
    cfg: Config
    init: Any
    update: Any  # (state, states, returns) -> (state, metrics), jitted
    predict: Any  # (params, states, returns) -> (p_win, expected return, won, return), jitted
    value: Any  # (params, hand) -> (p_win, expected return)


def make_trainer(cfg: Config, env) -> Trainer:
    adapter = adapters.get(cfg.game)
    net = make_net(cfg.to_dict())
    tx = optax.adam(cfg.lr)

    def init(key):
        k_net, k_state = jax.random.split(key)
        params = net.init(k_net, jnp.zeros((1, adapter.num_features), jnp.float32))
        return TrainState(params, tx.init(params), k_state, jnp.int32(0))

    def examples(states, returns):
        hand, ret = jax.vmap(lambda s, r: adapter.example(env, s, r))(states, returns)
        return jax.vmap(adapter.features)(hand), ret

    def loss_fn(params, x, ret):
        logit, mean = net.apply(params, x)
        won = (ret > 0).astype(jnp.float32)
        bce = jnp.mean(optax.sigmoid_binary_cross_entropy(logit, won))
        mse = jnp.mean((mean - ret * cfg.return_scale) ** 2)
        return bce + mse, {"bce": bce, "mse": mse}

    @jax.jit
    def update(state, states, returns):
        x, ret = examples(states, returns)
        (loss, m), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params, x, ret)
        updates, opt_state = tx.update(grads, state.opt_state, state.params)
        new = TrainState(optax.apply_updates(state.params, updates), opt_state, state.key,
                         state.iteration + 1)
        return new, {"loss": loss, **m, "games": jnp.float32(ret.shape[0])}

    @jax.jit
    def predict(params, states, returns):
        x, ret = examples(states, returns)
        logit, mean = net.apply(params, x)
        return jax.nn.sigmoid(logit), mean / cfg.return_scale, ret > 0, ret

    return Trainer(env, adapter, net, cfg, jax.jit(init), update, predict,
                   make_value(cfg.to_dict()))


cached_trainer = corpus_run.cached(make_trainer)

