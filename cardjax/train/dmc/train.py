"""``make_train``: self-play, targets and learner, with the config's extensions, wired into one
jitted DMC iteration."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import jax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

from cardjax import programs
from cardjax.nets.dmc.adapter import Game, make_game
from cardjax.nets.dmc.q_net import QNet, make_net
from cardjax.train import sharding
from cardjax.train.dmc import extension
from cardjax.train.dmc.config import Config
from cardjax.train.dmc.learner import make_learner, make_optimizer
from cardjax.train.dmc.self_play import make_self_play
from cardjax.train.dmc.state import TrainState, init_state, state_shardings


@dataclasses.dataclass(frozen=True)
class Train:
    """What :func:`make_train` builds: ``init(key)``, the jitted ``step(state) -> (state,
    metrics)``, and its jitted parts for tests and tools: ``self_play(params, key, iteration=0)
    -> (Decisions [steps, num_envs], stats)``, and the learner's ``update``, ``loss`` and
    ``learn`` (:class:`cardjax.train.dmc.learner.Learner`)."""

    init: Any
    step: Any
    net: QNet
    game: Game
    env: Any
    config: Config
    self_play: Any
    update: Any
    loss: Any
    learn: Any = None


def make_train(cfg: Config, mesh: Mesh | None = None, env=None, prior=None) -> Train:
    """``Train`` for DMC on ``cfg.game`` (``env``: an env to use instead of the config's); the
    games, and the replay buffer's game axis, are split over ``mesh``'s ``data`` axis.
    ``prior``: the player ``cfg.init_from`` names (an :class:`~cardjax.core.Agent` of the plain
    env, :attr:`Game.plain_env`), resolved by the caller: a trainer loads no players."""
    if not isinstance(cfg, Config):  # a config as a trained network reads it
        cfg = Config.from_dict(cfg.to_dict())
    game = make_game(cfg, env)
    if not game.trainable:
        raise ValueError(f"this {cfg.game} config cannot train in {game.env!r} (the env has rules "
                         "the config was not made for: play it, or train a config made for them)")
    if mesh is not None and cfg.num_envs % mesh.devices.size:
        raise ValueError(f"num_envs={cfg.num_envs} must be a multiple of the "
                         f"{mesh.devices.size} devices")
    if prior is not None and not cfg.init_from:
        raise ValueError("a prior player needs init_from (the word that names it, saved with the "
                         "run) and prior_iterations")
    net = make_net(cfg, game)
    hooks = extension.build(cfg.composition, cfg, game, prior=prior, net=net)
    tx = make_optimizer(cfg)
    self_play = make_self_play(cfg, game, net, mesh, hooks)
    learner = make_learner(cfg, game, net, tx, hooks)
    fields = extension.merged(hooks, "fields")

    def init(key) -> TrainState:
        return init_state(cfg, game, net, tx, key, mesh, fields)

    def step(state: TrainState):
        key, k_play, k_learn = jax.random.split(state.key, 3)
        decisions, stats = self_play(state.params, k_play, state.iteration)
        if state.buffer is None:
            data, buffer = jax.tree_util.tree_map(lambda x: x[None], decisions), None
        else:
            data = jax.tree_util.tree_map(lambda new, old: jnp.concatenate([new[None], old]),
                                          decisions, state.buffer)
            buffer = jax.tree_util.tree_map(lambda x: x[:-1], data)
        params, opt_state, metrics = learner.learn(state.params, state.opt_state, data, k_learn)
        frames = jnp.sum(decisions.weight)
        metrics = dict(metrics, **stats, frames=frames,
                       overflow_rate=stats["overflow"] / jnp.maximum(stats["decisions"], 1),
                       target_abs=jnp.sum(decisions.weight * jnp.abs(decisions.target))
                       / jnp.maximum(frames, 1.0))
        new = TrainState(params=params, opt_state=opt_state, key=key, buffer=buffer,
                         iteration=state.iteration + 1)
        return new, metrics

    if mesh is None:
        jit_step = programs.jit_training(step)
    else:
        shardings = state_shardings(mesh, jax.eval_shape(init, jax.random.PRNGKey(0)))
        jit_step = programs.jit_training(step, in_shardings=(shardings,),
                                         out_shardings=(shardings, NamedSharding(mesh, P())))
    # init jitted: run eagerly it compiles each of its operations on its own (seconds)
    return Train(init=jax.jit(init) if mesh is None else init, step=jit_step, net=net, game=game,
                 env=game.env, config=cfg,
                 self_play=jax.jit(self_play), update=jax.jit(learner.update),
                 loss=jax.jit(learner.loss), learn=jax.jit(learner.learn))


_TRAINS: dict = {}


def cached_train(cfg: Config, mesh: Mesh | None = None,
                 load_player: Callable | None = None) -> Train:
    """:func:`make_train` memoized on ``(cfg, mesh devices)`` (with the game's default env): the
    same jitted step, so the runner's compile cache serves a second run in the same process.
    ``load_player(env, word) -> Agent`` resolves ``cfg.init_from`` into the prior on a miss; the
    key holds the word (in ``cfg``) and the loader, not the loaded player, so a second run with
    the same prior finds the first one's step."""
    if cfg.init_from and load_player is None:
        raise ValueError(f"init_from {cfg.init_from!r} needs load_player to resolve it "
                         "(cardjax.agents.load)")
    loader = load_player if cfg.init_from else None
    key = (cfg, sharding.mesh_key(mesh), loader)
    if key not in _TRAINS:
        prior = None if loader is None else loader(make_game(cfg).plain_env, cfg.init_from)
        _TRAINS[key] = make_train(cfg, mesh, prior=prior)
    return _TRAINS[key]
