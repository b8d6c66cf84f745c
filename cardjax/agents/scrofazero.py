"""A trained ScrofaZero player: an artifact (:mod:`cardjax.artifact`) or a training run
(``experiments/scrofazero.py --out DIR``), loaded through ``cardjax.agents.load``.

:func:`from_artifact` rebuilds the policy/value network from the artifact's config
(:func:`cardjax.nets.policy_value.from_config`, no trainer) and returns an
:class:`~cardjax.core.Agent` that plays under hidden information (:func:`make_agent`): the
generic :func:`cardjax.search.hidden_info.decide` with ScrofaZero's Gongzhu plug-ins from
:mod:`cardjax.games.gongzhu.worlds` -- sampled worlds (stratified or uniform), optional IEC
weights -- and MCTS with ``b + k x legal`` simulations in each world (paper: b = 10, k = 2).
"""

from __future__ import annotations

from typing import Callable

from cardjax.core import Agent
from cardjax.games.gongzhu import worlds as szw
from cardjax.games.gongzhu.env import NUM_CARDS
from cardjax.search import hidden_info

GAME = "gongzhu"  # what a ScrofaZero network plays (runs saved before configs named it)
PLAY_DEFAULTS = dict(sampling="stratified", iec=True, worlds=9, b=10, k=2, c=30.0,
                     beta=szw.DEFAULT_BETA, inference=None)


def make_agent(env, apply_fn: Callable, params, *, target_beta: float, name: str = "scrofazero",
               sampling: str = "stratified", iec: bool = True, worlds: int = 9, b: int = 10,
               k: int = 2, max_simulations: int | None = None, c: float = 30.0,
               beta: float = szw.DEFAULT_BETA, key_cards=szw.KEY_CARDS,
               skip_discards: bool = True, inference: str | None = None):
    """The Gongzhu hidden-information player of a policy/value net: ``hidden_info.make_agent``
    with the worlds of ``sampling`` (``szw.world_sampler``) and, with ``iec``, IEC weights.
    With ``inference`` (a card-location network: an ``experiments/inference.py`` run directory
    or its artifact) the worlds are drawn in proportion to that network instead
    (``szw.network_sampler``).

    ``apply_fn(params, obs) -> (logits[52], value)`` (e.g. ``PolicyValueNet(...).apply``):
    the MCTS leaf value is :func:`~cardjax.nets.policy_value.oracle_value_fn` and IEC's action
    values are ``q = logits / target_beta`` (the trainer fits the policy to
    ``softmax(target_beta * child_values)``, so the logits are values in points times
    ``target_beta``, up to a constant that cancels in ``q_max - q_a``).  ``target_beta``
    (required) is the inverse temperature the policy was trained with.
    """
    from cardjax.nets.policy_value import oracle_value_fn

    if inference is not None:
        from cardjax.agents.world_sources import load_log_q

        sample = szw.network_sampler(*load_log_q(env, str(inference)))
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


def _net(config: dict):
    from cardjax.nets.policy_value import from_config

    return from_config(config, NUM_CARDS)


def load_params(path: str, iteration: int | None = None):
    """``(params, config)`` of an artifact directory or of a run at ``iteration`` (default: its
    newest checkpoint), read without the trainer (:func:`cardjax.artifact.from_run`); ``config``
    is the network's config, a dict.  ``ValueError`` with the reason."""
    from cardjax import artifact

    art = artifact.load(path, "scrofazero", iteration)
    return art.params, art.meta["network"]


_ACTS: dict = {}  # (env, network, play settings) -> act: one function, one compiled match


def agent_from_params(env, params, config: dict, name: str = "scrofazero", **options):
    """The hidden-information player of a network of ``config`` (a run's config as a dict:
    ``width``, ``depth``, ``target_beta``); ``options`` override :data:`PLAY_DEFAULTS`
    (``inference="none"`` turns off a card-location network the artifact names).

    Players of the same network shape and play settings share one ``act``, jitted as
    ``cardjax.agents.load`` returns it (it takes the params as an argument): a match compiled
    for one (an evaluation during training) serves the others (the run loaded after it, a
    pretrained network of that shape), as the arena keeps its compiled matches per ``act``."""
    unknown = set(options) - set(PLAY_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown play options {sorted(unknown)}; known: {sorted(PLAY_DEFAULTS)}")
    opts = {**PLAY_DEFAULTS, **options}
    if str(opts["inference"]).lower() == "none":  # a word's inference=none: the sampled worlds
        opts["inference"] = None
    key = (repr(env), config["width"], config["depth"], float(config["target_beta"]),
           tuple(sorted(opts.items())))
    from cardjax import artifact

    if opts["inference"] is not None and not artifact.shipped(str(opts["inference"])):
        key = None  # its worlds come from a run's network, read from disk each time
    if key is None or key not in _ACTS:
        agent = make_agent(env, _net(config).apply, params, target_beta=config["target_beta"],
                           name=name, **opts)
        if key is None:
            return agent
        from cardjax.agents import compiled

        _ACTS[key] = compiled(agent).act
    return Agent(name, _ACTS[key], params)


def from_artifact(env, art, name: str | None = None, **options):
    """The player of a ScrofaZero artifact (``cardjax.agents.KINDS``): its description's play
    settings (``play``), then ``options``, over :data:`PLAY_DEFAULTS`."""
    _check_game(env, art.game)
    play = {k: v for k, v in (art.meta.get("play") or {}).items() if k in PLAY_DEFAULTS}
    return agent_from_params(env, art.params, art.meta["network"], name=name or "scrofazero",
                             **{**play, **options})


def value_from_artifact(env, art):
    """The network's value as a search's leaf value: ``value_fn(params, state) -> float[2]``
    (points for the team to act, the negative for the other); the params are ``art.params``."""
    from cardjax.nets.policy_value import oracle_value_fn

    _check_game(env, art.game)
    net = _net(art.meta["network"])
    return lambda params, state: oracle_value_fn(env, net.apply, params)(state)


def _check_game(env, game: str | None = None) -> None:
    game = game or GAME
    if env.name != game:
        raise ValueError(f"a ScrofaZero network plays {game}, not {env.name}")
