"""The DeepRocket trainer (Jiang et al., "DeepRocket: a supervised policy for Dou Dizhu"): a
policy network over move categories and a kicker network that completes the chosen category,
both trained by supervised learning on the decisions of recorded games.

One jitted step takes ``batch_games`` corpus games, replays them (every position and the move
the recorded player made from it), draws ``batch`` of their decisions and ``kicker_batch`` of
their kicker choices at random, and takes one Adam step on the sum of the two cross-entropies.
Both softmaxes are over the legal choices only (the categories with a legal move; the kickers
that still complete a legal move).  The networks and what they read are
:mod:`cardjax.nets.deeprocket` (a trained player needs them, not this trainer).
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from cardjax import programs
from cardjax.corpus import replay
from cardjax.corpus.batches import draw
from cardjax.dict_config import DictConfig
from cardjax.nets.deeprocket.play import (
    NEG, Nets, choose, init_params, kicker_inputs, make_nets, policy_inputs,
)
from cardjax.train import corpus_run
from cardjax.train.corpus_run import TrainState


@dataclasses.dataclass(frozen=True)
class Config(DictConfig):
    """Everything that defines a run (saved with every checkpoint).  CPU-sized defaults; the
    paper's policy network is ``depth=10, width=512`` with batches of 256 decisions."""

    algorithm: str = "deeprocket"
    game: str = "doudizhu"
    corpus: str = ""  # the corpus directory (its manifest names the game and options)
    batch_games: int = 16  # games replayed per step; the batches are drawn from their decisions
    batch: int = 256  # decisions per step (policy network)
    kicker_batch: int = 64  # kicker choices per step (kicker network)
    width: int = 64
    depth: int = 4
    fc: int = 256
    kicker_width: int = 64
    kicker_depth: int = 5
    kicker_fc: int = 128
    lr: float = 1e-3
    lr_decay: float = 1.0  # multiplied in every decay_steps steps
    decay_steps: int = 10000


# ------------------------------------------------------------------ decisions of recorded games
def game_positions(nets: Nets, states, actions):
    """Every position of the games (initial ``states``, ``actions`` int[B, T], -1 after the last),
    flattened to [N = T x B]: ``(states, actions int32[N], decides bool[N])`` -- ``decides``
    where a recorded move was played (a bid is not a move)."""
    env, ad = nets.env, nets.adapter
    _, _, ((st, act), live) = replay(env, states, actions, lambda s, a: (s, a))
    flat = lambda x: x.reshape((-1,) + x.shape[2:])
    st = jax.tree_util.tree_map(flat, st)
    decides = flat(live) & jax.vmap(lambda s: ad.is_move(env, s))(st)
    return st, flat(act), decides


def _take(tree, idx):
    return jax.tree_util.tree_map(lambda x: x[idx], tree)


def masked_log_softmax(logits, mask):
    return jax.nn.log_softmax(jnp.where(mask, logits, NEG), axis=-1)


def _ce_and_right(logits, mask, target):
    logp = masked_log_softmax(logits, mask)
    ce = -jnp.take_along_axis(logp, target[..., None], -1)[..., 0]
    return ce, jnp.argmax(logp, -1) == target


# ------------------------------------------------------------------ trainer
class Trainer(NamedTuple):
    nets: Nets
    init: Any  # key -> TrainState
    update: Any  # (state, states, actions) -> (state, metrics), jitted
    positions: Any  # (states, actions) -> (flat states, actions, decides), jitted
    score: Any  # (params, states, actions) -> per-decision results, jitted (a chunk)


def make_trainer(cfg: Config, env) -> Trainer:
    nets = make_nets(cfg.to_dict(), env)
    ad = nets.adapter
    schedule = optax.exponential_decay(cfg.lr, cfg.decay_steps, cfg.lr_decay, staircase=True)
    tx = optax.adam(schedule)
    K = ad.max_kickers

    def init(key):
        k_net, k_state = jax.random.split(key)
        params = init_params(nets, k_net)
        return TrainState(params, tx.init(params), k_state, jnp.int32(0))

    def loss_fn(params, pol, kick):
        planes, extras, mask, category, _, chosen = pol
        logits = nets.policy.apply(params["policy"], planes, extras)
        ce, right = _ce_and_right(logits, mask, category)
        w = chosen.astype(jnp.float32)
        n = jnp.maximum(jnp.sum(w), 1.0)
        kplanes, kmask, ktarget, kvalid = kick
        kce, kright = _ce_and_right(nets.kicker.apply(params["kicker"], kplanes), kmask, ktarget)
        kw = kvalid.astype(jnp.float32)
        kn = jnp.maximum(jnp.sum(kw), 1.0)
        policy_loss, kicker_loss = jnp.sum(w * ce) / n, jnp.sum(kw * kce) / kn
        return policy_loss + kicker_loss, {
            "loss": policy_loss + kicker_loss, "policy_loss": policy_loss,
            "kicker_loss": kicker_loss,
            "policy_accuracy": jnp.sum(w * right) / n, "kicker_accuracy": jnp.sum(kw * kright) / kn,
            "decisions": jnp.sum(w), "kickers": jnp.sum(kw)}

    def batch_of(key, st, act, decides):
        k_pol, k_kick = jax.random.split(key)
        idx, chosen = draw(k_pol, decides, cfg.batch)
        pol = jax.vmap(lambda s, a: policy_inputs(nets, s, a))(_take(st, idx), act[idx])
        has = jax.vmap(lambda a: ad.num_kickers(ad.category(a)))(act)  # kickers per decision
        slots = decides[:, None] & (jnp.arange(K)[None, :] < has[:, None])  # [N, K]
        kidx, kchosen = draw(k_kick, slots.reshape(-1), cfg.kicker_batch)
        pos, j = kidx // K, kidx % K
        kick = jax.vmap(lambda s, a, j: kicker_inputs(nets, s, a, j))(_take(st, pos), act[pos], j)
        return pol + (chosen,), kick[:3] + (kick[3] & kchosen,)

    @jax.jit
    def update(state, states, actions):
        st, act, decides = game_positions(nets, states, actions)
        key = jax.random.fold_in(state.key, state.iteration)
        pol, kick = batch_of(key, st, act, decides)
        (_, metrics), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params, pol, kick)
        updates, opt_state = tx.update(grads, state.opt_state, state.params)
        params = optax.apply_updates(state.params, updates)
        return TrainState(params, opt_state, state.key, state.iteration + 1), metrics

    @jax.jit
    def positions(states, actions):
        return game_positions(nets, states, actions)

    @programs.jit_playing
    def score(params, st, act):
        """Every decision of a chunk (flat states, their actions): the policy's and the kicker
        network's cross-entropy and top-1 hit (kickers teacher-forced), and whether the whole
        move chosen by the combined player (category, then its kickers one by one) is the
        recorded one."""

        def one(s, a):
            planes, extras, mask, category, role = policy_inputs(nets, s, a)
            ce, right = _ce_and_right(
                nets.policy.apply(params["policy"], planes[None], extras[None])[0], mask, category)
            kick = jax.vmap(lambda j: kicker_inputs(nets, s, a, j))(jnp.arange(K))
            kce, kright = _ce_and_right(nets.kicker.apply(params["kicker"], kick[0]), kick[1],
                                        kick[2])
            move = choose(nets, params, s)
            return {"ce": ce, "right": right, "legal": jnp.sum(mask), "role": role,
                    "kicker_ce": kce, "kicker_right": kright, "kicker_valid": kick[3],
                    "move_right": move == a}

        return jax.vmap(one)(st, act)

    return Trainer(nets, jax.jit(init), update, positions, score)


cached_trainer = corpus_run.cached(make_trainer)
