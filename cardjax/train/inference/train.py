"""The card-location inference trainer (Solinas, Rebstock and Buro 2019): a network that reads a
seat's view and predicts, for every kind of hidden card, the probability of a card of that kind
being in each place (``env.hidden_cards``), trained on the positions of recorded games.

One jitted step takes a batch of corpus games (initial states and actions), replays them, and at
every decision takes the acting seat's features and where the cards it cannot see really are;
the loss is the cross-entropy of each unseen card's place, averaged over the unseen cards of the
batch.  Places a card cannot be in (a shown void, a full place) are masked out of the softmax.
The network, what it reads and its log probabilities are :mod:`cardjax.nets.card_locations`
(a player that draws its worlds from it needs them, not this trainer).
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from cardjax.corpus import replay
from cardjax.dict_config import DictConfig
from cardjax.nets.card_locations import adapter as adapters
from cardjax.nets.card_locations.network import Net, log_probs, make_net
from cardjax.train import corpus_run
from cardjax.train.corpus_run import TrainState


@dataclasses.dataclass(frozen=True)
class Config(DictConfig):
    """Everything that defines a run (saved with every checkpoint).  The paper's network:
    fully connected layers with ELU, dropout, Adam (its Table 1)."""

    algorithm: str = "inference"
    game: str = "gongzhu"
    corpus: str = ""  # the corpus directory (its manifest names the game and options)
    batch_games: int = 16  # games per step; every decision of each is a training position
    width: int = 512
    depth: int = 3
    dropout: float = 0.2  # the paper's "dropout 0.8" keeps 80%
    lr: float = 1e-3
    lr_decay: float = 1.0  # multiplied in every decay_steps steps (the paper: 0.96)
    decay_steps: int = 10000


class Positions(NamedTuple):
    """The decisions of a batch of games, flattened: [N = games x max_steps]."""

    features: jax.Array  # float32[N, F]
    copies: jax.Array  # int32[N, K]
    allowed: jax.Array  # bool[N, K, P]
    capacity: jax.Array  # int32[N, P]
    truth: jax.Array  # int32[N, K, P]
    least: jax.Array  # int32[N, K]: copies that must be in ``group`` (0: no such constraint)
    group: jax.Array  # bool[N, P]
    valid: jax.Array  # bool[N]: a decision with a hidden card, described by ``hidden_cards``
    stage: jax.Array  # int32[N]
    role: jax.Array  # int32[N]


def positions(env, adapter, states, actions) -> Positions:
    """Every decision of the games (initial ``states``, ``actions`` int[B, T] with -1 after the
    last), seen by the seat to act: replayed, not stored."""

    def at(s):
        seat = s.current_player
        h = env.hidden_cards(s, seat)
        least = jnp.zeros_like(h.copies) if h.least is None else h.least
        group = jnp.zeros_like(h.capacity, bool) if h.group is None else h.group
        valid = ~s.terminated & (jnp.sum(h.copies) > 0)
        if h.described is not None:
            valid &= h.described
        return (adapter.features(env, s, seat), h.copies, h.allowed, h.capacity, h.truth, least,
                group, valid, adapter.stage(env, s), adapter.role(env, s, seat))

    _, _, (outs, live) = replay(env, states, actions, lambda s, a: jax.vmap(at)(s))
    outs = outs[:7] + (outs[7] & live,) + outs[8:]
    return Positions(*[x.reshape((-1,) + x.shape[2:]) for x in outs])  # [T * B, ...]


def card_losses(logq, pos: Positions):
    """Per position: (summed cross-entropy of its unseen cards, their number, cards whose most
    likely place is right)."""
    ce = -jnp.sum(pos.truth * jnp.where(pos.truth > 0, logq, 0.0), axis=(-2, -1))
    cards = jnp.sum(pos.copies, axis=-1)
    best = jnp.argmax(logq, axis=-1)  # [N, K]
    right = jnp.sum(jnp.take_along_axis(pos.truth, best[..., None], axis=-1)[..., 0], axis=-1)
    return ce, cards, right


def uniform_log_probs(pos: Positions):
    """The simple baseline: respect what is ruled out, else each place in proportion to the
    unseen cards it holds."""
    ok = pos.allowed & (pos.capacity[..., None, :] > 0)
    w = jnp.where(ok, pos.capacity[..., None, :].astype(jnp.float32), 0.0)
    return jnp.log(w / jnp.maximum(jnp.sum(w, axis=-1, keepdims=True), 1e-9) + 1e-30)


class Trainer(NamedTuple):
    env: Any
    adapter: Any
    net: Net
    init: Any  # key -> TrainState
    update: Any  # (state, states, actions) -> (state, metrics), jitted
    evaluate: Any  # (params, states, actions) -> per-position arrays, jitted
    kinds: int
    places: int


def make_trainer(cfg: Config, env) -> Trainer:
    adapter = adapters.get(cfg.game)
    net = make_net(cfg.to_dict(), env)
    schedule = optax.exponential_decay(cfg.lr, cfg.decay_steps, cfg.lr_decay, staircase=True)
    tx = optax.adam(schedule)

    def init(key):
        k_net, k_state = jax.random.split(key)
        x = jnp.zeros((1, adapters.feature_size(env, adapter)), jnp.float32)
        params = net.init(k_net, x)
        return TrainState(params, tx.init(params), k_state, jnp.int32(0))

    def loss_fn(params, pos, key):
        logits = net.apply(params, pos.features, train=True, rngs={"dropout": key})
        logq = log_probs(logits, pos.allowed, pos.capacity)
        ce, cards, right = card_losses(logq, pos)
        w = pos.valid.astype(jnp.float32)
        n = jnp.maximum(jnp.sum(w * cards), 1.0)
        return jnp.sum(w * ce) / n, (jnp.sum(w * right) / n, jnp.sum(w), jnp.sum(w * cards))

    @jax.jit
    def update(state, states, actions):
        pos = positions(env, adapter, states, actions)
        key = jax.random.fold_in(state.key, state.iteration)
        (loss, (acc, decisions, cards)), grads = jax.value_and_grad(loss_fn, has_aux=True)(
            state.params, pos, key)
        updates, opt_state = tx.update(grads, state.opt_state, state.params)
        params = optax.apply_updates(state.params, updates)
        new = TrainState(params, opt_state, state.key, state.iteration + 1)
        return new, {"loss": loss, "accuracy": acc, "decisions": decisions, "cards": cards}

    @jax.jit
    def evaluate(params, states, actions):
        pos = positions(env, adapter, states, actions)
        logq = log_probs(net.apply(params, pos.features), pos.allowed, pos.capacity)
        ce, cards, right = card_losses(logq, pos)
        base, _, base_right = card_losses(uniform_log_probs(pos), pos)
        return {"ce": ce, "cards": cards, "right": right, "uniform_ce": base,
                "uniform_right": base_right, "valid": pos.valid, "stage": pos.stage,
                "role": pos.role}

    return Trainer(env, adapter, net, jax.jit(init), update, evaluate, net.kinds, net.places)


cached_trainer = corpus_run.cached(make_trainer)


def load_run(run: str):
    """``(trainer, params, corpus)`` of a ``cardjax train inference`` run directory: its config,
    its best network (``best.msgpack``) and its corpus opened for its env.  ``ValueError`` with
    the reason when any of them cannot be read."""
    from cardjax import corpus as corpora

    cfg = Config.from_dict(corpus_run.saved_config(run, "inference"))
    try:
        c, env = corpora.open_with_env(cfg.corpus)
    except corpora.CorpusError as e:
        raise ValueError(f"the run's corpus: {e}") from None
    trainer = cached_trainer(cfg, env)
    like = jax.eval_shape(trainer.init, jax.random.PRNGKey(0)).params
    params = corpus_run.load_best(run, like)
    return trainer, params, c

