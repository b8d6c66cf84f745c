"""The search players of :mod:`cardjax.search.uct` as agents, for every game.

``cheat_uct`` (sees every hand: an upper bound, not a fair player), ``det_uct`` and ``ismcts``;
their settings are keyword options of :func:`cardjax.agents.get` (``iterations``, ``trees``,
``k``, ``utility``, ``playout``, ``group_moves``), e.g. ``get(env, "ismcts", iterations=2000,
playout="rule")``.  ``playout`` names a baseline that plays the simulations (default ``random``);
``group_moves=True`` chooses a move with kickers in two tree levels, main cards then kickers
(:mod:`cardjax.search.move_groups`; Dou Dizhu).  ``playout`` may also be a training run directory
(its greedy player plays the simulations), and ``value=RUN_DIR`` evaluates the new node with a
trained network instead of a playout (a DMC run: its best Q; a ScrofaZero run: its value).
``inference=RUN`` draws the determinizations of ``det_uct`` and ``ismcts`` in proportion to a
card-location network's predictions (``"oracle"``: the true state; as PIMC's,
:mod:`cardjax.agents.world_sources`).  Defaults follow
the paper for the Dou Dizhu family (wins, ``k = 1``, 40 x 250 and 10,000 iterations, reduced
where a game is slow); a game's card may set others (``GameSpec.search``: Gongzhu and Tractor
search on points / levels).
"""

from __future__ import annotations

from cardjax.cli import boolean
from cardjax.core import Agent
from cardjax.agents import world_sources
from cardjax.search import move_groups, uct

_PAPER = dict(utility="win", k=1.0)  # the utility searched and its exploration constant


def defaults(env) -> dict:
    """The search settings of ``env``'s game: its card's (``GameSpec.search``) or the paper's."""
    from cardjax import registry

    return dict(registry.spec(env.name).search or _PAPER)


def _flag(value, name: str) -> bool:
    if isinstance(value, str):
        try:
            return boolean(value)
        except Exception:
            raise ValueError(f"{name} must be true or false, got {value!r}") from None
    if value not in (True, False, 0, 1):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return bool(value)


def _config(env, kind: str, options: dict) -> tuple[uct.Config, str, str | None, bool, str | None]:
    opts = defaults(env)
    opts.update(options)
    playout = opts.pop("playout", "random")
    value = opts.pop("value", None)
    inference = opts.pop("inference", None)
    grouped = _flag(opts.pop("group_moves", False), "group_moves")
    known = {"iterations", "trees", "k", "utility"}
    unknown = set(opts) - known
    if unknown:
        raise ValueError(f"unknown setting(s) {', '.join(sorted(unknown))} for {kind}; "
                         f"settings: {', '.join(sorted(known | {'playout', 'group_moves', 'value', 'inference'}))}")
    if grouped and env.move_groups() is None:
        raise ValueError(f"group_moves: {env.name} has no moves with kickers to group")
    if inference is not None and kind == "cheat_uct":
        raise ValueError("inference: cheat_uct searches the true state, it draws no worlds")
    if kind == "ismcts":
        return uct.ismcts(**opts), playout, value, grouped, inference
    return getattr(uct, kind)(**opts), playout, value, grouped, inference


def evaluator(env, playout: str = "random", value=None):
    """``(policy, params, value_fn)`` of a search's ``playout`` (a baseline or a run directory
    that plays the simulations; ``random``: none) or ``value`` (a run directory whose network
    values positions: ``value_fn(params, state) -> float[T]``); not both."""
    from cardjax import agents

    if value is not None and playout != "random":
        raise ValueError("give a playout player or a value (a run directory), not both")
    if value is not None:
        value_fn, params = agents.load_value(env, str(value))
        return None, params, value_fn
    if playout == "random":
        return None, None, None
    if playout in agents.SEARCH:
        raise ValueError(f"playout must be a baseline or a run, not a search player ({playout!r})")
    base = agents.load(env, playout)
    return base.act, base.params, None


def _make(kind: str, env, **options) -> Agent:
    cfg, playout, value, grouped, inference = _config(env, kind, options)
    policy, params, value_fn = evaluator(env, playout, value)
    make_act = move_groups.make_act if grouped else uct.make_act
    if inference is None:  # the determinizations of env.sample_hidden
        return Agent(kind, make_act(env, cfg, policy=policy, value_fn=value_fn), params)
    sample_worlds, world_params, tag = world_sources.sampler(env, inference)
    act = make_act(env, cfg, policy=policy, value_fn=value_fn, sample_worlds=sample_worlds)
    return Agent(kind + tag, act, (world_params, params))


def make_cheat_uct(env, **options) -> Agent:
    return _make("cheat_uct", env, **options)


def make_det_uct(env, **options) -> Agent:
    return _make("det_uct", env, **options)


def make_ismcts(env, **options) -> Agent:
    return _make("ismcts", env, **options)


def from_artifact(env, art, name: str | None = None, **options) -> Agent:
    """The search player of an artifact of kind ``search`` (a shipped one:
    :func:`cardjax.agents.pretrained.export_search`): the player and settings its description
    records, in the env its networks were trained in.  ``options``: settings of that player that
    override its own; the arena's options for trained players (``worlds``, ``sampling``,
    ``iec``, ``b``: ScrofaZero's) are ignored, so that the player plays as it was measured."""
    from cardjax import agents, registry
    from cardjax.agents.dmc import ARENA_OPTIONS

    name = name or art.meta.get("name") or "search"
    player = (art.meta.get("network") or {}).get("player")
    if player not in agents.SEARCH:
        raise ValueError(f"{art.directory or name}: {player!r} is not a search player "
                         f"({', '.join(agents.SEARCH)})")
    if art.meta.get("env"):
        trained = registry.make(art.game, **art.meta["env"])
        if repr(trained) != repr(env):
            raise ValueError(f"{name} plays {trained!r} (its networks were trained there), "
                             f"not {env!r}")
    settings = {**(art.meta.get("play") or {}),
                **{k: v for k, v in options.items() if k not in ARENA_OPTIONS}}
    return agents.get(env, player, **settings)._replace(name=name)
