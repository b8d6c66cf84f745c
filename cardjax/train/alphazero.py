"""ScrofaZero self-play training for Gongzhu (paper sections 4, 8.6-8.8) as one jitted step.

:func:`make_train` returns ``init(key) -> TrainState`` and ``step(TrainState) -> (TrainState,
metrics)``; ``step`` is compiled once and does a whole iteration on device:

1. **Self-play under perfect information** (8.7): ``num_envs`` fresh deals are played to the end
   (52 moves, in lockstep).  Before every move the seat to act runs MCTS
   (:func:`cardjax.search.mcts.batched_search`) on the TRUE state, with the network's value as the
   leaf evaluation and ``b + k * (legal moves)`` simulations (paper: b = 0, k = 2 in training).
   It plays the search's move (the most visited child).
2. **Targets** from the search at every position: the policy target is
   ``softmax(target_beta * child_values)`` over the root's legal children (their mean values for
   the mover's team, in points), the value target is the root's mean value for the mover's team
   (``value_target="root"``, the paper's choice; ``"outcome"`` uses the game's final margin for
   the mover's team, as AlphaZero does, and ``"mix"`` their mean).
   With ``target_beta`` equal to IEC's beta (0.015, paper 8.12), the net's logits are
   ``target_beta * q`` up to a constant, so ``q = logits / target_beta`` is the action value in
   points that IEC's correction factor ``exp(-beta * (q_max - q_a))`` needs (paper 5.4).
3. **Replay** (8.8): the positions of this batch of games and of the previous ``history``
   batches (2 in the paper) form the training set; empty slots (the first iterations) weigh 0.
4. **Update**: ``epochs`` passes over that set in shuffled minibatches of ``minibatch``
   positions (0 = one full batch per pass), loss ``KL(p_search || p_net) + value_weight *
   |v_search - v_net|`` (:func:`cardjax.train.losses.alphazero_loss`), Adam(1e-3, 0.3, 0.999).

Everything a run needs to continue exactly -- params, optimizer state, RNG key, the replay
buffer, the iteration -- is in :class:`TrainState`, so a checkpoint of it resumes bit for bit.

Data parallel: pass a ``jax.sharding.Mesh`` with one axis ``"data"``; the games (and the replay
buffer's game axis) are split over its devices, params and optimizer state are replicated, and
XLA inserts the gradient all-reduce.  ``num_envs`` must be a multiple of the device count.
"""

from __future__ import annotations

import dataclasses
import math
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import optax
from flax import struct
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

from cardjax import programs, registry
from cardjax.games.gongzhu.env import NUM_CARDS, ORACLE_SIZE
from cardjax.nets import policy_value
from cardjax.nets.policy_value import PolicyValueNet, oracle_value_fn
from cardjax.search import mcts
from cardjax.train.losses import alphazero_loss, make_optimizer
from cardjax.train import sharding
from cardjax.dict_config import DictConfig
from cardjax.train.sharding import data_mesh  # noqa: F401  (re-exported for scripts)

Array = jax.Array
GAME = "gongzhu"  # the one game this trainer plays (its network reads Gongzhu's observation)
MOVES = NUM_CARDS  # a Gongzhu game is 52 plays (no exposure phase in training)
VALUE_TARGETS = ("root", "outcome", "mix")


@dataclasses.dataclass(frozen=True)
class Config(DictConfig):
    """Everything that defines a training run (saved with every checkpoint).  ``game`` names the
    one game the trainer plays, so that runs and their players say what they play (a run saved
    before the field existed reads it as its default)."""

    game: str = GAME
    num_envs: int = 64  # games of self-play per iteration
    width: int = 256  # network width / residual blocks (paper: 9-11M params; this is ~0.65M)
    depth: int = 4
    b: int = 0  # simulations per move = b + k * legal moves (paper 8.6: 0 + 2 x legal)
    k: int = 2
    c: float = 30.0  # UCB exploration constant, in points
    target_beta: float = 0.015  # policy target softmax(target_beta * child values)
    value_target: str = "root"  # "root" (the search's, paper), "outcome" (the game's), "mix"
    value_weight: float = 0.01  # lambda of the loss
    mask_how: str = "paper"  # softmax(logits * mask), paper 8.8
    lr: float = 1e-3
    b1: float = 0.3
    b2: float = 0.999
    history: int = 2  # previous batches of games reviewed with each new one (paper 8.8)
    epochs: int = 3
    minibatch: int = 1024  # positions per gradient step; 0 = the whole replay set

    def __post_init__(self):
        if self.game != GAME:
            raise ValueError(f"ScrofaZero trains {GAME}, not {self.game!r}")
        for name in ("num_envs", "width", "depth", "epochs"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("b", "k", "history", "minibatch"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if self.b + self.k < 1:
            raise ValueError("b + k must be at least 1 (every move needs a search)")
        if self.value_target not in VALUE_TARGETS:
            raise ValueError(f"value_target must be one of {VALUE_TARGETS}, "
                             f"got {self.value_target!r}")

    @property
    def max_simulations(self) -> int:
        return self.b + self.k * 13  # at most 13 legal moves

    @property
    def positions(self) -> int:
        """Positions produced by one iteration of self-play."""
        return self.num_envs * MOVES

    @property
    def updates_per_epoch(self) -> int:
        total = (self.history + 1) * self.positions
        return 1 if self.minibatch == 0 else max(1, math.ceil(total / self.minibatch))



@struct.dataclass
class Positions:
    """Training positions; leading axes are free (``[moves, games]`` in the buffer)."""

    obs: Array  # bool[..., 434] observe_oracle of the seat to act
    mask: Array  # bool[..., 52] legal moves
    policy: Array  # float32[..., 52] search policy target
    value: Array  # float32[...] search value target, points for the mover's team


@struct.dataclass
class TrainState:
    params: Any
    opt_state: Any
    key: Array
    buffer: Positions  # leading axes [history + 1, MOVES, num_envs]; slot 0 is the newest
    filled: Array  # bool[history + 1]: which buffer slots hold data
    iteration: Array  # int32: iterations done


def make_net(cfg: Config) -> PolicyValueNet:
    return policy_value.from_config(cfg.to_dict(), NUM_CARDS)


def search_targets(out: mcts.SearchOutput, mover_team: Array, beta: float):
    """Policy and value targets of one search (one root; vmap for a batch).

    Policy: ``softmax(beta * child_values)`` over the visited legal children (the others get 0).
    Value: the root's mean backed-up value for the mover's team.
    """
    visited = jnp.isfinite(out.child_values)
    logits = jnp.where(visited, beta * out.child_values, -jnp.inf)
    any_visited = jnp.any(visited)
    policy = jax.nn.softmax(jnp.where(any_visited, logits, 0.0))
    return policy, out.root_value[mover_team]


def state_shardings(mesh: Mesh, state: TrainState):
    """Shardings of a :class:`TrainState`: buffer split on its game axis, the rest replicated."""
    return sharding.train_state_shardings(mesh, state, buffer_axis=2)


_TRAINS = programs.keep({})


def cached_train(cfg: Config, mesh: Mesh | None = None):
    """:func:`make_train` memoized on ``(cfg, mesh devices)`` (the game's default env): the same
    jitted step, so a second run in the process (a resumed one, a test's) neither traces nor
    lowers it again."""
    key = (cfg, sharding.mesh_key(mesh))
    if key not in _TRAINS:
        _TRAINS[key] = make_train(cfg, mesh)
    return _TRAINS[key]


def make_train(cfg: Config, mesh: Mesh | None = None, env=None):
    """``(init, step)`` for ScrofaZero training; ``step`` is jitted (see module docstring)."""
    env = env or registry.make(cfg.game)
    if env.name != GAME or env.num_actions != NUM_CARDS:
        raise ValueError("ScrofaZero training needs the plain Gongzhu env (no exposure phase)")
    if mesh is not None and cfg.num_envs % mesh.devices.size:
        raise ValueError(f"num_envs={cfg.num_envs} must be a multiple of the "
                         f"{mesh.devices.size} devices")
    net = make_net(cfg)
    tx = make_optimizer(cfg.lr, cfg.b1, cfg.b2)
    teams = jnp.asarray(env.teams, jnp.int32)
    slots = cfg.history + 1

    def init(key) -> TrainState:
        k_net, key = jax.random.split(key)
        params = net.init(k_net, jnp.zeros((1, ORACLE_SIZE)))
        shape = (slots, MOVES, cfg.num_envs)
        buffer = Positions(
            obs=jnp.zeros(shape + (ORACLE_SIZE,), bool),
            mask=jnp.zeros(shape + (NUM_CARDS,), bool),
            policy=jnp.zeros(shape + (NUM_CARDS,), jnp.float32),
            value=jnp.zeros(shape, jnp.float32),
        )
        state = TrainState(params=params, opt_state=tx.init(params), key=key, buffer=buffer,
                           filled=jnp.zeros(slots, bool), iteration=jnp.int32(0))
        if mesh is not None:
            state = jax.device_put(state, state_shardings(mesh, state))
        return state

    def self_play(params, key):
        """Positions [MOVES, num_envs] and the games' final team-0 margins [num_envs]."""
        k_deal, k_play = jax.random.split(key)
        states = jax.vmap(env.init)(jax.random.split(k_deal, cfg.num_envs))
        states = sharding.constrain(states, mesh, 0)
        value_fn = oracle_value_fn(env, net.apply, params)

        def move(states, k):
            mask = states.legal_action_mask
            budget = mcts.simulations(mask, cfg.b, cfg.k, cfg.max_simulations)
            out = mcts.batched_search(env, value_fn, states, jax.random.split(k, cfg.num_envs),
                                      max_simulations=cfg.max_simulations,
                                      num_simulations=budget, c=cfg.c)
            mover_team = teams[states.current_player]
            policy, value = jax.vmap(partial(search_targets, beta=cfg.target_beta))(
                out, mover_team)
            obs = jax.vmap(env.observe_oracle)(states, states.current_player) > 0.5
            nxt = jax.vmap(env.step)(states, out.action)
            return sharding.constrain(nxt, mesh, 0), (Positions(obs, mask, policy, value), mover_team)

        final, (positions, mover_team) = jax.lax.scan(
            move, states, jax.random.split(k_play, MOVES))
        margin = final.scores @ jnp.array([1.0, -1.0, 1.0, -1.0])  # team 0's final margin
        outcome = jnp.where(mover_team == 0, 1.0, -1.0) * margin[None, :]
        value = {"root": positions.value, "outcome": outcome,
                 "mix": 0.5 * (positions.value + outcome)}[cfg.value_target]
        positions = positions.replace(value=value)
        return sharding.constrain(positions, mesh, 1), margin

    def loss_fn(params, batch: Positions, weights):
        return alphazero_loss(params, net.apply, batch.obs.astype(jnp.float32), batch.mask,
                              batch.policy, batch.value, cfg.value_weight, cfg.mask_how, weights)

    def update(params, opt_state, batch: Positions, weights):
        """One Adam step on one minibatch; returns the new params, state and the metrics."""
        (_, metrics), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, batch, weights)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, metrics

    def learn(params, opt_state, buffer: Positions, filled, key):
        flat = jax.tree_util.tree_map(lambda x: x.reshape((-1,) + x.shape[3:]), buffer)
        weights = jnp.repeat(filled.astype(jnp.float32), MOVES * cfg.num_envs)
        n = weights.shape[0]
        per_epoch = cfg.updates_per_epoch
        size = n if cfg.minibatch == 0 else cfg.minibatch

        def epoch(carry, k):
            # a permutation, padded by wrapping so every minibatch is full
            order = jax.random.permutation(k, n)
            order = jnp.resize(order, (per_epoch * size,)).reshape(per_epoch, size)

            def sgd(carry, idx):
                params, opt_state = carry
                batch = jax.tree_util.tree_map(lambda x: x[idx], flat)
                params, opt_state, m = update(params, opt_state, batch, weights[idx])
                return (params, opt_state), m

            return jax.lax.scan(sgd, carry, order)

        (params, opt_state), metrics = jax.lax.scan(
            epoch, (params, opt_state), jax.random.split(key, cfg.epochs))
        return params, opt_state, jax.tree_util.tree_map(jnp.mean, metrics)

    def step(state: TrainState):
        key, k_play, k_learn = jax.random.split(state.key, 3)
        positions, margins = self_play(state.params, k_play)
        buffer = jax.tree_util.tree_map(
            lambda old, new: jnp.concatenate([new[None], old[:-1]]), state.buffer, positions)
        filled = jnp.concatenate([jnp.ones(1, bool), state.filled[:-1]])
        params, opt_state, metrics = learn(state.params, state.opt_state, buffer, filled, k_learn)
        metrics = dict(metrics)
        metrics["value_target_abs"] = jnp.mean(jnp.abs(positions.value))
        metrics["selfplay_margin"] = jnp.mean(jnp.abs(margins))
        new = TrainState(params=params, opt_state=opt_state, key=key, buffer=buffer,
                         filled=filled, iteration=state.iteration + 1)
        return new, metrics

    if mesh is None:
        # No buffer donation: an asynchronous checkpoint may still be reading the old state.
        jit_step = programs.jit_training(step)
    else:
        def shard(s):
            return state_shardings(mesh, s)
        abstract = jax.eval_shape(init, jax.random.PRNGKey(0))
        shardings = shard(abstract)
        jit_step = programs.jit_training(step, in_shardings=(shardings,),
                                         out_shardings=(shardings, NamedSharding(mesh, P())))
    train = Train(init=jax.jit(init) if mesh is None else init, step=jit_step, net=net, env=env,
                  config=cfg, update=jax.jit(update),
                  self_play=jax.jit(self_play), loss=jax.jit(loss_fn))
    return train


@dataclasses.dataclass(frozen=True)
class Train:
    """What :func:`make_train` builds: ``init(key)``, the jitted ``step(state)``, and its parts
    (``self_play(params, key)``, ``update(params, opt_state, batch, weights)``,
    ``loss(params, batch, weights)``, all jitted) for tests and tools."""

    init: Any
    step: Any
    net: PolicyValueNet
    env: Any
    config: Config
    update: Any
    self_play: Any
    loss: Any
