"""A trained DMC player: DouZero for Dou Dizhu (``experiments/douzero.py --out DIR``, named
``douzero``), Gongzhu (``experiments/gongzhu_dmc.py``, ``gongzhu_dmc``) or ShengJi+ for Tractor
(``experiments/shengji.py``, ``shengji``; one network per phase, the role of a state is its
phase, and a run trained with oracle guiding plays with the hidden part zeroed).

:func:`from_artifact` builds it from an artifact (:mod:`cardjax.artifact`: a run's ``player/``,
written at each evaluation, or a shipped player), :func:`load` from a run directory; both return
an :class:`~cardjax.core.Agent` of the Q networks (one per role; Gongzhu has one for every seat)
that plays greedily: the legal actions are compacted into ``k`` slots (default: the run's ``k``;
:func:`cardjax.nets.dmc.acting.compact`), the network of the acting seat's role scores them and
the best one is played -- no exploration.  It needs the model (:mod:`cardjax.nets.dmc`: the
config, the adapters, the network, the acting kernels), never the trainer.  ``act`` is for one
game; under ``vmap`` (the arena) a custom batching rule scores the whole batch at once in the
trainer's candidate pools (:func:`cardjax.nets.dmc.acting.greedy_actions`), the same choices at
a fraction of the cost of scoring every slot of every game.  A position with more than ``k``
legal actions chooses among the first ``k`` (increasing action id); pass a larger ``k`` to widen
it.  A run trained in a view of its env (``Game.view``: Tractor's whole-unit leads) plays the
plain env: the network chooses in the view's ``decision_state`` of each state and the player
plays the view's ``env_action``.
"""

from __future__ import annotations


import jax
import jax.numpy as jnp

from cardjax import artifact
from cardjax.core import Agent
from cardjax.nets.dmc import acting
from cardjax.nets.dmc import adapter
from cardjax.nets.dmc.adapter import make_game
from cardjax.nets.dmc.config import Config
from cardjax.nets.dmc.q_net import make_net

# Options of the search players that scripts/arena.py passes to every loader; a greedy DMC player
# has no use for them.
ARENA_OPTIONS = {"worlds", "sampling", "iec", "b"}


def _config(art: artifact.Artifact) -> Config:
    """The DMC config of an artifact (``ValueError`` for another kind of network)."""
    if art.kind != "dmc":
        raise ValueError(f"{art.directory or 'the artifact'} holds a {art.kind} network, not a "
                         "DMC player")
    return Config.from_dict(art.meta["network"])


def load_params(path: str, iteration: int | None = None):
    """``(params, config)`` of a run (default: its newest checkpoint, or the ``player/`` written
    at it); params have a leading axis of ``config.num_roles``."""
    art = artifact.from_run(path, iteration)
    return art.params, _config(art)


def from_artifact(env, art: artifact.Artifact, name: str | None = None, k: int | None = None,
                  advice_bonus: float | None = None, lookahead: int | None = None,
                  **options) -> Agent:
    """The greedy player of a DMC artifact (``k``: default the artifact's play setting, else the
    run's; ``advice_bonus``: play with this bonus instead of the run's; ``lookahead``: the
    width of a one-move lookahead where every move's step reward is known, default the
    artifact's play setting, else none: :func:`agent_from_params`).

    ``options``: the search players' options (``worlds``, ``sampling``, ``iec``, ``b``, passed
    by ``scripts/arena.py`` to every loader) are accepted and ignored; others are an error.
    """
    unknown = set(options) - ARENA_OPTIONS
    if unknown:
        raise ValueError(f"unknown options {sorted(unknown)} for a DMC player; known: "
                         "k, advice_bonus, lookahead (and a run's iteration)")
    play = art.meta.get("play") or {}
    if k is None:
        k = play.get("k")
    if lookahead is None:
        lookahead = play.get("lookahead", 0)
    return agent_from_params(env, art.params, _config(art), name=name, k=k,
                             advice_bonus=advice_bonus, lookahead=lookahead)


def value_from_artifact(env, art: artifact.Artifact):
    """:func:`value_from_params` of a DMC artifact (its parameters go with it as the params)."""
    return value_from_params(env, art.params, _config(art))


def agent_from_params(env, params, cfg: Config, name: str | None = None,
                      k: int | None = None, advice_bonus: float | None = None,
                      lookahead: int = 0):
    """The greedy player of the networks ``params`` (stacked per role) trained with ``cfg``
    (``advice_bonus``: play with this bonus instead of the run's).

    ``lookahead`` (a width; 0: off): where the step reward of every legal move is known exactly
    (Tractor: the last card of a trick), the ``lookahead`` best moves are played and each is
    scored by its reward and the networks' value of the state it leaves instead of its own Q
    (:func:`cardjax.nets.dmc.acting.lookahead_scores`)."""
    if env.name != cfg.game:
        raise ValueError(f"a {cfg.game} DMC checkpoint cannot play {env.name}")
    if advice_bonus is not None:
        cfg = cfg.replace(advice_bonus=float(advice_bonus))
    game = make_game(cfg, env)
    if cfg.advice_bonus and game.advice is None:
        raise ValueError(f"advice_bonus needs a game that names a reference player's move, which "
                         f"this {cfg.game} network's does not (Tractor: trained with advice true)")
    net = make_net(cfg, game)
    name = name or adapter.get(cfg.game).player
    k = cfg.k if k is None else int(k)
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    width = lookahead if isinstance(lookahead, int) and not isinstance(lookahead, bool) else -1
    if width < 0:
        raise ValueError(f"lookahead must be a whole number of moves >= 0, got {lookahead!r}")
    if width and game.counterfactual is None:
        raise ValueError(f"lookahead needs the step rewards of moves known exactly, which this "
                         f"{cfg.game} network's game does not give")

    view = game.env if game.view else None  # moves built over several env steps
    exact = cfg.exact_scale  # known step rewards added to Q
    bonus = cfg.advice_bonus  # added to the Q of the move the game's advice names

    def looked(params, states):  # the best move of each of a batch, with the lookahead
        idx, valid, q = acting.greedy_scores(net, game, params, states, k, cfg.k_fast, exact,
                                             bonus)
        q = acting.lookahead_scores(net, game, params, states, idx, valid, q, width, cfg.gamma,
                                    k, cfg.k_fast, exact, bonus)
        return jnp.take_along_axis(idx, jnp.argmax(q, axis=1)[:, None], axis=1)[:, 0]

    def one(params, state):
        chosen = state if view is None else view.decision_state(state)
        if width:
            a = looked(params, jax.tree_util.tree_map(lambda x: x[None], chosen))[0]
        else:
            idx, valid, q = acting.q_values(net, game, params, chosen, k, exact, bonus)
            a = idx[jnp.argmax(q)]
        return a if view is None else view.env_action(state, a)

    @jax.custom_batching.custom_vmap
    def choose(params, state):
        return one(params, state)

    @choose.def_vmap
    def _choose_batch(axis_size, in_batched, params, state):
        # The arena vmaps ``act`` over games: score the whole batch at once, in pools
        # (``acting.greedy_actions``), instead of every slot of every game under every network.
        params_batched, state_batched = in_batched
        if any(jax.tree_util.tree_leaves(params_batched)):
            axes = (jax.tree_util.tree_map(lambda b: 0 if b else None, params_batched),
                    jax.tree_util.tree_map(lambda b: 0 if b else None, state_batched))
            return jax.vmap(one, in_axes=axes)(params, state), True
        state = jax.tree_util.tree_map(
            lambda x, b: x if b else jnp.broadcast_to(x, (axis_size,) + jnp.shape(x)),
            state, state_batched)
        chosen = state if view is None else jax.vmap(view.decision_state)(state)
        if width:
            a = looked(params, chosen)
        else:
            a = acting.greedy_actions(net, game, params, chosen, k, cfg.k_fast, exact, bonus)
        return (a if view is None else jax.vmap(view.env_action)(state, a)), True

    def act(params, key, state):
        del key
        return choose(params, state)

    return Agent(name, act, params)


def value_from_params(env, params, cfg: Config, k: int | None = None):
    """A search's leaf value from the Q networks: ``value_fn(params, state) -> float[2]``, the
    best legal action's Q for the team of the seat to act and, for the other team, the value
    that keeps the game zero-sum (Dou Dizhu: a landlord's +2 is -1 for each peasant)."""
    if env.name != cfg.game:
        raise ValueError(f"a {cfg.game} DMC checkpoint cannot value {env.name} positions")
    game = make_game(cfg, env)
    net = make_net(cfg, game)
    k = cfg.k if k is None else int(k)

    def value_fn(params, state):
        chosen = game.env.decision_state(state) if game.view else state
        _, _, q = acting.q_values(net, game, params, chosen, k, cfg.exact_scale,
                                  cfg.advice_bonus)
        return zero_sum_team_values(env, state, jnp.max(q))

    return value_fn


def ranking_from_artifact(env, art: artifact.Artifact):
    """:func:`ranking_from_params` of a read artifact."""
    return ranking_from_params(env, art.params, _config(art))


def ranking_from_params(env, params, cfg: Config):
    """A search's candidate moves from the Q networks: ``rank_fn(params, state, c) -> (moves
    int32[c], valid bool[c])``, the ``c`` legal moves of the best Q for the seat to act (best
    first; ``valid`` False past the legal ones).  Its moves must be the env's actions."""
    if env.name != cfg.game:
        raise ValueError(f"a {cfg.game} DMC checkpoint cannot rank {env.name} moves")
    game = make_game(cfg, env)
    if game.view:
        raise ValueError(f"this {cfg.game} network chooses moves of its own (whole units), not "
                         "the env's actions; it cannot rank a search's candidates")
    net = make_net(cfg, game)

    def rank_fn(params, state, c: int):
        idx, valid, q = acting.q_values(net, game, params, state, cfg.k, cfg.exact_scale,
                                        cfg.advice_bonus)
        top, pos = jax.lax.top_k(q, min(c, q.shape[0]))
        moves, ok = idx[pos].astype(jnp.int32), valid[pos] & jnp.isfinite(top)
        pad = c - moves.shape[0]  # more candidates asked than the network scores
        return jnp.pad(moves, (0, pad)), jnp.pad(ok, (0, pad))

    return rank_fn


def zero_sum_team_values(env, state, v):
    """float[2]: ``v`` (per seat) for the team to act, and per seat of the other team the value
    that makes the seats' sum zero."""
    teams = env.seat_teams(state)
    mover = teams[state.current_player]
    mine = jnp.sum(teams == mover)
    other = -v * mine / jnp.maximum(env.num_players - mine, 1)
    return jnp.where(jnp.arange(2) == mover, v, other).astype(jnp.float32)


def load(env, path: str, iteration: int | None = None, name: str | None = None,
         k: int | None = None, advice_bonus: float | None = None, **options) -> Agent:
    """The greedy DMC player of the run at ``path`` (a run directory or its ``checkpoints``), at
    its newest checkpoint or ``iteration`` (:func:`from_artifact` for the rest)."""
    return from_artifact(env, artifact.from_run(path, iteration), name=name, k=k,
                         advice_bonus=advice_bonus, **options)
