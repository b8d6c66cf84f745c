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


def load(env, spec: str, **options) -> Agent:
    """The player a command-line word names: a baseline, with its settings after a colon
    (``"ismcts:iterations=300"``), or a trained player from a training run directory (a path,
    with its loader's settings after a colon where it has any: ``"runs/x:advice_bonus=0.3"``;
    ``options`` go to its loader too), or a directory a player was exported to
    (``scripts/export_player.py --directory``)."""
    import os

    name, _, _ = spec.partition(":")
    if not os.path.isdir(spec) and os.path.isdir(name) and name not in baselines(env.name):
        # a run directory with settings
        spec, settings = parse_spec(spec)
        options = {**options, **settings}
    if os.path.isdir(spec) or (os.path.sep in name and name not in baselines(env.name)):
        if not os.path.isdir(spec):
            raise ValueError(f"{spec!r} is neither a baseline of {env.name} "
                             f"({', '.join(baselines(env.name))}) nor a run directory")
        from cardjax.agents import deeprocket, dmc, pretrained, scrofazero

        exported = pretrained.exported_name(spec)
        if exported is not None:  # written by scripts/export_player.py --directory
            return pretrained.load(env, exported, directory=spec, **options)
        if dmc.is_run(spec):  # a run of cardjax.train.dmc (its config says so)
            return complete(env, dmc.load(env, spec, **options), {"config": dmc.saved_config(spec)})
        if deeprocket.is_run(spec):
            return complete(env, deeprocket.load(env, spec, **options))
        return scrofazero.load(env, spec, **options)
    name, settings = parse_spec(spec)
    return get(env, name, **settings)


def load_value(env, path: str):
    """``(value_fn(params, state) -> float[2], params)``: the leaf value of a trained run (a DMC
    run: its best Q; a ScrofaZero run: its value head), for the search players."""
    import os

    if not os.path.isdir(path):
        raise ValueError(f"value: {path!r} is not a run directory")
    from cardjax.agents import dmc, scrofazero

    if dmc.is_run(path):
        params, cfg = dmc.load_params(path)
        return dmc.value_from_params(env, params, cfg), params
    params, cfg = scrofazero.load_params(path)
    return scrofazero.value_from_params(env, cfg), params


def get(env, name: str, **options) -> Agent:
    """The player called ``name`` for ``env``'s game (e.g. ``get(env, "greed")``), with its
    settings as keyword options where it has any (``get(env, "ismcts", iterations=2000)``)."""
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
    return make(env, **options)


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
