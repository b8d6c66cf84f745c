"""Trained players shipped in the package, loaded by name like the baselines.

    cardjax.agents.get(env, "scrofazero-pretrained")  # Gongzhu
    cardjax.agents.get(env, "doudizhu-pretrained")    # Dou Dizhu (it bids too, with bidding=True)
    cardjax.agents.get(env, "tractor-pretrained")     # Tractor

A game's pretrained players are the files here whose description names that game.

Each is two files in ``cardjax/agents/pretrained/``: ``NAME.msgpack``, the networks' parameters,
and ``NAME.json``: the trainer that made them, its config, the command that trained them, the
device, and (Dou Dizhu) the bid module it uses at a table with an auction.  ``scripts/
export_player.py`` writes both from a training run directory (DMC or ScrofaZero).
"""

from __future__ import annotations

import datetime
import json
import os

import jax
import numpy as np
from flax import serialization

from cardjax import registry
from cardjax.core import Agent
from cardjax.train.checkpoint import Checkpoints, find_run

DIRECTORY = os.path.join(os.path.dirname(__file__), "pretrained")
_NAMES: dict[str, tuple[str, ...]] = {}


def names(game: str, directory: str = DIRECTORY) -> tuple[str, ...]:
    """The pretrained players shipped for ``game`` (read once from their descriptions)."""
    if directory not in _NAMES:
        found = []
        for file in sorted(os.listdir(directory)) if os.path.isdir(directory) else []:
            if file.endswith(".json") and os.path.isfile(paths(file[:-5], directory)[1]):
                found.append((file[:-5], info(file[:-5], directory).get("game")))
        _NAMES[directory] = tuple(found)
    return tuple(name for name, of in _NAMES[directory] if of == game)


def paths(name: str, directory: str = DIRECTORY) -> tuple[str, str]:
    """``(NAME.json, NAME.msgpack)`` in ``directory``."""
    return os.path.join(directory, name + ".json"), os.path.join(directory, name + ".msgpack")


def info(name: str, directory: str = DIRECTORY) -> dict:
    """The description saved with a pretrained player (trainer, config, command, device, ...)."""
    meta, _ = paths(name, directory)
    if not os.path.isfile(meta):
        raise ValueError(f"no pretrained player {name!r} in {directory}")
    with open(meta) as f:
        return json.load(f)


def _write(path: str, data: bytes) -> None:
    """Write ``data`` so that a reader never sees half a file."""
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def export(run: str, name: str, command: str, device: str, bids: dict | None = None,
           directory: str = DIRECTORY) -> dict:
    """Write the newest checkpoint of the training run ``run`` as the pretrained player
    ``name``; returns its description.  ``bids``: the bid module's settings at a Dou Dizhu
    table with an auction (``{"strength": -4}``; default: the rule player's bids)."""
    from cardjax.agents import dmc, scrofazero

    ckpt = Checkpoints(find_run(run))
    try:
        config = ckpt.config()
    finally:
        ckpt.close()
    trainer = "dmc" if config.get("algorithm") == "dmc" else "scrofazero"
    params, _ = (dmc if trainer == "dmc" else scrofazero).load_params(run)
    leaves = jax.tree_util.tree_leaves(params)
    from cardjax.train import alphazero

    game = config.get("game", alphazero.GAME)  # ScrofaZero's config names no game: its one
    meta = {"name": name, "trainer": trainer, "game": game, "rules": registry.rules(game),
            "config": config, "command": command, "device": device,
            "date": datetime.date.today().isoformat(),
            "parameters": int(sum(np.size(x) for x in leaves)), "bids": bids}
    os.makedirs(directory, exist_ok=True)
    _NAMES.pop(directory, None)
    meta_path, params_path = paths(name, directory)
    _write(params_path, serialization.msgpack_serialize(jax.device_get(params)))
    _write(meta_path, (json.dumps(meta, indent=1, default=str) + "\n").encode())
    return meta


def exported_name(directory: str) -> str | None:
    """The name of the one player exported to ``directory`` (``scripts/export_player.py
    --directory``: ``NAME.json`` beside ``NAME.msgpack``), or None where it holds no such pair
    (a training run directory, say); several players there are refused by name."""
    if not os.path.isdir(directory):
        return None
    names = sorted(f[:-5] for f in os.listdir(directory)
                   if f.endswith(".json") and os.path.isfile(paths(f[:-5], directory)[1]))
    if len(names) > 1:
        raise ValueError(f"{directory} holds several exported players ({', '.join(names)}); "
                         "name one: a directory holding one of them")
    return names[0] if names else None


def load(env, name: str, directory: str = DIRECTORY, **options) -> Agent:
    """The pretrained player ``name`` for ``env`` (``options``: the trainer's play options, e.g.
    ScrofaZero's ``worlds``)."""
    meta = info(name, directory)
    registry.check_version(meta.get("rules", meta["game"]), f"the player {name!r}")
    if meta["game"] != env.name:
        raise ValueError(f"{name!r} plays {meta['game']}, not {env.name}")
    _, params_path = paths(name, directory)
    with open(params_path, "rb") as f:
        params = jax.tree_util.tree_map(np.asarray, serialization.msgpack_restore(f.read()))
    if meta["trainer"] == "dmc":
        from cardjax.agents import dmc
        from cardjax.train.dmc.config import Config

        unknown = sorted(set(options) - {"k", "advice_bonus"} - dmc.ARENA_OPTIONS)
        if unknown:
            raise ValueError(f"{name!r} has no setting {', '.join(map(repr, unknown))}; a DMC "
                             "player's: k, advice_bonus")
        options = {k: v for k, v in options.items() if k not in dmc.ARENA_OPTIONS}
        player = dmc.agent_from_params(env, params, Config.from_dict(meta["config"]), name=name,
                                       **options)
    elif meta["trainer"] == "scrofazero":
        from cardjax.agents import scrofazero
        from cardjax.train import alphazero

        player = scrofazero.agent_from_params(env, params,
                                              alphazero.Config.from_dict(meta["config"]),
                                              name=name, **options)
    else:
        raise ValueError(f"{name!r}: unknown trainer {meta['trainer']!r}")
    from cardjax import agents

    return agents.complete(env, player, {**meta, "name": name})


def factory(name: str):
    """The factory of the shipped player ``name`` (``agents.get(env, "tractor-pretrained")``)."""

    def make(env, **options) -> Agent:
        return load(env, name, **options)

    return make
