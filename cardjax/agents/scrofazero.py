"""A trained ScrofaZero player loaded from a training run (``experiments/scrofazero.py --out DIR``).

``load(env, path, **options)`` restores the newest (or a chosen) checkpoint's network and
returns an :class:`~cardjax.core.Agent` that plays under hidden information with
:func:`cardjax.search.hidden_info.decide`: sampled worlds (stratified or uniform), optional IEC
weights, MCTS with ``b + k x legal`` simulations in each world (paper: b = 10, k = 2).
"""

from __future__ import annotations

import jax

from cardjax.search import hidden_info
from cardjax.train import alphazero
from cardjax.train.checkpoint import Checkpoints, find_run

PLAY_DEFAULTS = dict(sampling="stratified", iec=True, worlds=9, b=10, k=2, c=30.0,
                     beta=hidden_info.DEFAULT_BETA)


def load_params(path: str, iteration: int | None = None):
    """``(params, config)`` of a run's checkpoint (default: the newest)."""
    ckpt = Checkpoints(find_run(path))
    cfg = alphazero.Config.from_dict(ckpt.config(iteration))
    train = alphazero.make_train(cfg)
    abstract = jax.eval_shape(train.init, jax.random.PRNGKey(0))
    state = ckpt.restore(abstract, iteration)
    ckpt.close()
    return state.params, cfg


def agent_from_params(env, params, cfg: alphazero.Config, name: str = "scrofazero", **options):
    """The hidden-information player of a network (``options`` override :data:`PLAY_DEFAULTS`)."""
    unknown = set(options) - set(PLAY_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown play options {sorted(unknown)}; known: {sorted(PLAY_DEFAULTS)}")
    opts = {**PLAY_DEFAULTS, **options}
    net = alphazero.make_net(cfg)
    return hidden_info.make_agent(env, net.apply, params, target_beta=cfg.target_beta,
                                  name=name, **opts)


def load(env, path: str, iteration: int | None = None, name: str | None = None, **options):
    """The ScrofaZero player of the run at ``path`` (a run directory or its ``checkpoints``)."""
    if env.name != "gongzhu":
        raise ValueError(f"a ScrofaZero checkpoint plays Gongzhu, not {env.name}")
    params, cfg = load_params(path, iteration)
    return agent_from_params(env, params, cfg, name=name or "scrofazero", **options)
