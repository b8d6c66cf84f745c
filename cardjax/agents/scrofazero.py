"""A trained ScrofaZero player loaded from a training run (``experiments/scrofazero.py --out DIR``).

``load(env, path, **options)`` restores the newest (or a chosen) checkpoint's network and
returns an :class:`~cardjax.core.Agent` that plays under hidden information (:func:`make_agent`):
the generic :func:`cardjax.search.hidden_info.decide` with ScrofaZero's Gongzhu plug-ins from
:mod:`cardjax.games.gongzhu.worlds` -- sampled worlds (stratified or uniform), optional IEC
weights -- and MCTS with ``b + k x legal`` simulations in each world (paper: b = 10, k = 2).
"""

from __future__ import annotations

from typing import Callable

import jax

from cardjax.games.gongzhu import worlds as szw
from cardjax.search import hidden_info
from cardjax.train import alphazero
from cardjax.train.checkpoint import Checkpoints, find_run

PLAY_DEFAULTS = dict(sampling="stratified", iec=True, worlds=9, b=10, k=2, c=30.0,
                     beta=szw.DEFAULT_BETA, inference=None)


def make_agent(env, apply_fn: Callable, params, *, target_beta: float, name: str = "scrofazero",
               sampling: str = "stratified", iec: bool = True, worlds: int = 9, b: int = 10,
               k: int = 2, max_simulations: int | None = None, c: float = 30.0,
               beta: float = szw.DEFAULT_BETA, key_cards=szw.KEY_CARDS,
               skip_discards: bool = True, inference: str | None = None):
    """The Gongzhu hidden-information player of a policy/value net: ``hidden_info.make_agent``
    with the worlds of ``sampling`` (``szw.world_sampler``) and, with ``iec``, IEC weights.
    With ``inference`` (an ``experiments/inference.py`` run directory) the worlds are drawn in
    proportion to that card-location network instead (``szw.network_sampler``).

    ``apply_fn(params, obs) -> (logits[52], value)`` (e.g. ``PolicyValueNet(...).apply``):
    the MCTS leaf value is :func:`~cardjax.nets.policy_value.oracle_value_fn` and IEC's action
    values are ``q = logits / target_beta`` (the trainer fits the policy to
    ``softmax(target_beta * child_values)``, so the logits are values in points times
    ``target_beta``, up to a constant that cancels in ``q_max - q_a``).  ``target_beta``
    (required) is the inverse temperature the policy was trained with.
    """
    from cardjax.nets.policy_value import oracle_value_fn

    if inference is not None:
        from cardjax.train import inference as inf

        sample = szw.network_sampler(*inf.load_log_q(str(inference), env))
    else:
        sample = szw.world_sampler(sampling, key_cards)
    if not target_beta > 0:
        raise ValueError(f"target_beta must be > 0, got {target_beta!r}")

    def value_fn(params, state):
        return oracle_value_fn(env, apply_fn, params)(state)

    def log_weight(params, ws, seat):
        def q_fn(obs):
            return apply_fn(params, obs)[0] / target_beta
        return szw.iec_log_weight_fn(env, q_fn, beta, skip_discards)(ws, seat)

    return hidden_info.make_agent(env, value_fn, params, name=name, worlds=worlds,
                                  sample_worlds=sample, log_weight=log_weight if iec else None,
                                  b=b, k=k, max_simulations=max_simulations, c=c)


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
    return make_agent(env, net.apply, params, target_beta=cfg.target_beta, name=name, **opts)


def _check_game(env) -> None:
    if env.name != alphazero.GAME:
        raise ValueError(f"a ScrofaZero checkpoint plays {alphazero.GAME}, not {env.name}")


def value_from_params(env, cfg: alphazero.Config):
    """The network's value as a search's leaf value: ``value_fn(params, state) -> float[2]``
    (points for the team to act, the negative for the other)."""
    from cardjax.nets.policy_value import oracle_value_fn

    _check_game(env)
    net = alphazero.make_net(cfg)
    return lambda params, state: oracle_value_fn(env, net.apply, params)(state)


def load(env, path: str, iteration: int | None = None, name: str | None = None, **options):
    """The ScrofaZero player of the run at ``path`` (a run directory or its ``checkpoints``)."""
    _check_game(env)
    params, cfg = load_params(path, iteration)
    return agent_from_params(env, params, cfg, name=name or "scrofazero", **options)
