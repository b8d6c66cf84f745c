"""Baseline players as pure functions ``act(params, key, state) -> action`` (one game; vmap for a batch).

A baseline reads only what its seat may know (its own hand through the state's hidden fields,
and public fields); players that need the other hands sample them with ``env.sample_hidden``.
"""

from __future__ import annotations

from cardjax.core import Agent


# the players of every game: name -> "module:factory" (a factory takes the env and returns an
# Agent); each game's own players are on its card (cardjax.spec.GameSpec.players), and the
# pretrained players shipped for it are found by the game their description names
EVERY_GAME = {
    "random": "cardjax.agents.random:make",
    "cheat_uct": "cardjax.agents.search:make_cheat_uct",
    "det_uct": "cardjax.agents.search:make_det_uct",
    "ismcts": "cardjax.agents.search:make_ismcts",
    "pimc": "cardjax.agents.pimc:make",
}


def _factories(game: str) -> dict:
    """name -> factory (or its ``"module:factory"``) of every player of ``game``."""
    from cardjax import registry
    from cardjax.agents import pretrained

    found = dict(EVERY_GAME)
    found.update(registry.spec(game).players)
    found.update({name: pretrained.factory(name) for name in pretrained.names(game)})
    return found


def baselines(game: str) -> list[str]:
    """Names of the baseline players available for ``game``."""
    return sorted(_factories(game))


# the loaders of trained players: an artifact's kind -> "module:function" taking
# (env, artifact, name=None, **options) and returning the card player
KINDS = {
    "dmc": "cardjax.agents.dmc:from_artifact",
    "scrofazero": "cardjax.agents.scrofazero:from_artifact",
    "deeprocket": "cardjax.agents.deeprocket:from_artifact",
    "search": "cardjax.agents.search:from_artifact",
}


def from_artifact(env, art, name: str | None = None, **options) -> Agent:
    """The player of a read artifact (:mod:`cardjax.artifact`) for ``env``, made whole for its
    options (:func:`complete`); ``options``: its kind's play settings."""
    from cardjax.spec import resolve

    if art.kind not in KINDS:
        raise ValueError(f"{art.directory or 'the artifact'}: a {art.kind} network is not a "
                         f"card player (players: {', '.join(KINDS)})")
    if art.game is not None and art.game != env.name:
        raise ValueError(f"{art.directory or 'the player'} plays {art.game}, not {env.name}")
    player = resolve(KINDS[art.kind])(env, art, name=name or art.meta.get("name"), **options)
    return compiled(complete(env, player, art.meta))


def load(env, spec: str, **options) -> Agent:
    """The player a command-line word names: a baseline, with its settings after a colon
    (``"ismcts:iterations=300"``), or a trained player: a directory holding an artifact
    (``player.json``, :mod:`cardjax.artifact`) or a training run directory (its player at the
    newest checkpoint; ``iteration=N`` for another), with its settings after a colon
    (``"runs/x:advice_bonus=0.3"``); ``options`` go to its loader too."""
    import os

    name, _, _ = spec.partition(":")
    if not os.path.isdir(spec) and os.path.isdir(name) and name not in baselines(env.name):
        # a directory with settings
        spec, settings = parse_spec(spec)
        options = {**options, **settings}
    if os.path.isdir(spec) or (os.path.sep in name and name not in baselines(env.name)):
        if not os.path.isdir(spec):
            raise ValueError(f"{spec!r} is neither a baseline of {env.name} "
                             f"({', '.join(baselines(env.name))}) nor a directory")
        from cardjax import artifact
        from cardjax.agents import pretrained

        iteration = options.pop("iteration", None)
        if artifact.is_artifact(spec):
            art = artifact.read(spec)
        elif pretrained.legacy_name(spec) is not None:  # an export from before artifacts
            art = pretrained.read_legacy(spec, pretrained.legacy_name(spec))
        else:
            art = artifact.from_run(spec, iteration)
        return from_artifact(env, art, **options)
    name, settings = parse_spec(spec)
    from cardjax.agents import pretrained

    if name in pretrained.names(env.name):  # a shipped player takes the options a directory does
        settings = {**options, **settings}
    return get(env, name, **settings)


def _network(path: str, setting: str, kinds: tuple, does: str, who: str):
    """The artifact of a trained player named by a search's ``setting`` (:func:`artifact.load`:
    an artifact, a run directory or a shipped player's name); refused unless its kind is one of
    ``kinds``."""
    from cardjax import artifact

    art = artifact.load(path)
    if art.kind not in kinds:
        raise ValueError(f"{setting}: {path} holds a network of the {art.kind} trainer, which "
                         f"{does} ({who} does)")
    return art


def load_value(env, path: str):
    """``(value_fn(params, state) -> float[2], params)``: the leaf value of a trained network (a
    DMC player: its best Q; a ScrofaZero player: its value head; a state value network: its
    value of the whole position), for the search players; ``path``: an artifact, a run directory
    or a shipped player's name (``doudizhu-pretrained``)."""
    from cardjax.spec import resolve

    art = _network(path, "value", ("dmc", "scrofazero", "state_value"), "values no position",
                   "a DMC or ScrofaZero player or a state value network")
    return resolve(f"cardjax.agents.{art.kind}:value_from_artifact")(env, art), art.params


def load_ranking(env, path: str):
    """``(rank_fn(params, state, c) -> (moves, valid), params)``: the ``c`` legal moves a trained
    DMC player values most, a search's candidates (:func:`cardjax.agents.dmc.ranking_from_params`);
    ``path`` as :func:`load_value`'s."""
    from cardjax.agents import dmc

    art = _network(path, "rank", ("dmc",), "ranks no moves", "a DMC player")
    return dmc.ranking_from_artifact(env, art), art.params


_GOT: dict | None = None  # (env, name, settings) -> the player (cardjax.programs.keep)


def _got() -> dict:
    global _GOT
    if _GOT is None:
        from cardjax import programs

        _GOT = programs.keep({})
    return _GOT


def get(env, name: str, **options) -> Agent:
    """The player called ``name`` for ``env``'s game (e.g. ``get(env, "greed")``), with its
    settings as keyword options where it has any (``get(env, "ismcts", iterations=2000)``).

    The same player for the same env and settings is built once per process: its ``act`` is the
    same function, so the programs compiled for it (a match, a move) serve every caller."""
    got, key = _got(), (env, name, tuple(sorted(options.items())))
    try:
        if key in got:
            return got[key]
    except TypeError:  # a setting that cannot be a key (a loaded player): built each time
        key = None
    agent = _build(env, name, options)
    if key is not None:
        got[key] = agent
    return agent


def _build(env, name: str, options: dict) -> Agent:
    factories = _factories(env.name)
    if name not in factories:
        raise ValueError(
            f"unknown agent {name!r} for {env.name}; baselines: {', '.join(sorted(factories))}"
        )
    from cardjax.spec import resolve

    make = resolve(factories[name])
    import inspect

    params = inspect.signature(make).parameters
    if options and len(params) == 1:
        raise ValueError(f"{name!r} takes no settings; got {', '.join(sorted(options))}")
    unknown = sorted(set(options) - set(params))
    if unknown and not any(p.kind is p.VAR_KEYWORD for p in params.values()):
        raise ValueError(f"{name!r} has no setting {', '.join(map(repr, unknown))}")
    for setting, kind in getattr(make, "loaded_settings", {}).items():
        if isinstance(options.get(setting), str):  # a word naming a player or a network
            options[setting] = load_setting(env, options[setting], kind)
    return compiled(make(env, **options))


def load_setting(env, word: str, kind: str):
    """What a player's setting names, loaded: a player (``kind="player"``, :func:`load`) or a
    trained network of ``kind`` from an artifact or a run (``cardjax.agents.<kind>``'s
    ``from_artifact``, e.g. a bid value network for the bidder)."""
    from cardjax import artifact
    from cardjax.spec import resolve

    if kind == "player":
        return load(env, word)
    try:
        art = artifact.load(word, kind)
    except ValueError as e:
        raise ValueError(f"{e} (a {kind} network)") from None
    return resolve(f"cardjax.agents.{kind}:from_artifact")(env, art)


def compiled(player: Agent) -> Agent:
    """``player`` with its ``act`` under ``jax.jit``: called on one state in a Python loop, an
    eager ``act`` dispatches every operation on its own (a second a move, and new compiled code
    at every call); jitted, it compiles once per state shape, at the level of a program a person
    waits for (:func:`cardjax.programs.waiting_options`).  Under an outer ``jit`` or ``vmap``
    (the arena) it is plainly jitted, so it is inlined there (JAX takes compiler options on the
    outermost ``jit`` alone: :func:`cardjax.programs.jit_outermost`)."""
    from cardjax import programs

    if getattr(player.act, "_cardjax_compiled", False):
        return player
    act = programs.jit_outermost(player.act, programs.waiting_options())
    act._cardjax_compiled = True  # loaded twice (a player word inside a player): jitted once
    return player._replace(act=act)


def complete(env, player: Agent, meta: dict | None = None) -> Agent:
    """A trained card player made whole for ``env``'s options by its game's card
    (:attr:`cardjax.spec.GameSpec.complete_player`; Dou Dizhu: bids at a table with an auction)."""
    from cardjax import registry
    from cardjax.spec import resolve

    hook = resolve(registry.spec(env.name).complete_player)
    return player if hook is None else hook(env, player, meta or {})


SEARCH = ("cheat_uct", "det_uct", "ismcts", "pimc")  # the search players (not a playout policy)


def parse_spec(spec: str) -> tuple[str, dict]:
    """``"ismcts:iterations=2000,k=0.7"`` -> ``("ismcts", {"iterations": 2000, "k": 0.7})``:
    a player's name and settings as one command-line word (values: int, float, or text)."""
    name, _, rest = spec.partition(":")
    options = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key or not value:
            raise ValueError(f"bad setting {item!r} in {spec!r}: write NAME:KEY=VALUE,KEY=VALUE")
        for cast in (int, float):
            try:
                value = cast(value)
                break
            except ValueError:
                pass
        options[key.strip()] = value
    return name, options
