"""Trained players shipped in the package, loaded by name like the baselines.

    cardjax.agents.get(env, "scrofazero-pretrained")  # Gongzhu
    cardjax.agents.get(env, "doudizhu-pretrained")    # Dou Dizhu (it bids too, with bidding=True)
    cardjax.agents.get(env, "tractor-pretrained")     # Tractor

Each is an artifact (:mod:`cardjax.artifact`) in ``cardjax/agents/pretrained/NAME/``:
``player.json`` (the trainer, the config that rebuilds its network, the command that trained it,
the device, its parent, and, Dou Dizhu, the bid module it uses at a table with an auction) and
``params.msgpack``.  A game's pretrained players are the ones whose description names that game
and whose kind plays cards (``cardjax.agents.KINDS``); the networks shipped beside them for a
search to use (a state value, a card-location network) are :func:`networks`.  A shipped search
player is an artifact of kind ``search``: its settings, naming those networks, and no
parameters of its own (:func:`export_search`).  ``cardjax export`` writes either.
"""

from __future__ import annotations

import json
import os

from cardjax import artifact
from cardjax.core import Agent

DIRECTORY = artifact.SHIPPED
_NAMES: dict[str, tuple[tuple[str, str], ...]] = {}


def _shipped(directory: str) -> tuple:
    """``(name, game, kind)`` of every artifact in ``directory`` (read once)."""
    if directory not in _NAMES:
        found = []
        for name in sorted(os.listdir(directory)) if os.path.isdir(directory) else []:
            if artifact.is_artifact(os.path.join(directory, name)):
                meta = info(name, directory)
                found.append((name, meta.get("game"), meta.get("kind")))
        _NAMES[directory] = tuple(found)
    return _NAMES[directory]


def names(game: str, directory: str = DIRECTORY) -> tuple[str, ...]:
    """The pretrained players shipped for ``game``: the artifacts that play its cards."""
    from cardjax.agents import KINDS

    return tuple(name for name, of, kind in _shipped(directory) if of == game and kind in KINDS)


def networks(game: str, directory: str = DIRECTORY) -> tuple[str, ...]:
    """The networks shipped for ``game`` that are not players (a shipped search player's state
    value and card-location network), each loadable by name where a setting takes a network."""
    from cardjax.agents import KINDS

    return tuple(name for name, of, kind in _shipped(directory)
                 if of == game and kind not in KINDS)


def path(name: str, directory: str = DIRECTORY) -> str:
    """The artifact directory of the player ``name``."""
    return os.path.join(directory, name)


def info(name: str, directory: str = DIRECTORY) -> dict:
    """The description saved with a pretrained player (kind, network, lineage, ...)."""
    if not artifact.is_artifact(path(name, directory)):
        raise ValueError(f"no pretrained player {name!r} in {directory}")
    return artifact.read_meta(path(name, directory))


def local_paths(play: dict) -> dict:
    """The play settings that name a directory on this machine (``inference=runs/inf``): a
    shipped player holding one would not load anywhere else, so :func:`export` refuses it."""
    return {k: v for k, v in play.items() if isinstance(v, str) and os.path.isdir(v)}


def check_portable(play: dict) -> None:
    """Raise ``ValueError`` (one line: the setting and how to export it) where ``play`` names a
    directory on this machine."""
    local = local_paths(play)
    if local:
        k, v = sorted(local.items())[0]
        raise ValueError(f"the play setting {k}={v} names a directory on this machine; export it "
                         f"(cardjax export --run {v} --name NAME) and set {k}=NAME")


def export(source, name: str, command: str | None = None, device: str | None = None,
           bids: dict | None = None, directory: str = DIRECTORY, half: bool = False) -> dict:
    """Write the player of ``source`` (a read :class:`~cardjax.artifact.Artifact`, an artifact
    directory, or a training run directory: its newest checkpoint) as the pretrained player
    ``name`` (or the network ``name``, where it is one a search uses); returns its description.
    ``command`` / ``device``: what trained it (default: the source's lineage); ``bids``: the bid
    module's settings at a Dou Dizhu table with an auction (``{"strength": -4}``; default: the
    rule player's bids); ``half``: store the parameters at float16 (half the file); a source
    stored at float16 stays so (writing it at float32 would double the file, not its precision)."""
    if isinstance(source, artifact.Artifact):
        art = source
    else:
        art = artifact.read(source) if artifact.is_artifact(source) else artifact.from_run(source)
    lineage = dict(art.meta.get("lineage") or {})
    # the player a run started --from, else (as before) the exported run's player or directory
    parent = lineage.get("parent") or art.meta.get("name") or lineage.get("run")
    lineage.update(command=command or lineage.get("command"),
                   device=device or lineage.get("device"), parent=parent)
    if not lineage.get("date"):
        lineage["date"] = artifact.lineage(command="", device="").get("date")
    play = dict(art.meta.get("play") or {})
    if bids is not None:
        play["bids"] = bids
    check_portable(play)
    meta = dict(art.meta, name=name, lineage=lineage, play=play)
    _NAMES.pop(directory, None)
    half = half or art.meta.get("precision") == "float16"
    return artifact.write(path(name, directory), meta, art.params, half=half)


def export_search(name: str, game: str, word: str, command: str, device: str,
                  directory: str = DIRECTORY) -> dict:
    """Write the search player ``word`` (``"pimc:worlds=8,value=doudizhu-value"``: a search
    player of ``cardjax.agents.SEARCH`` and its settings, its networks named as shipped
    networks or players) as the pretrained player ``name`` of ``game``, played in the env it
    loads in now (its options recorded: at a table with others it refuses to play);
    ``command`` / ``device``: where its strength was measured."""
    import cardjax
    from cardjax import agents

    player, settings = agents.parse_spec(word)
    if player not in agents.SEARCH:
        raise ValueError(f"{word!r}: not a search player ({', '.join(agents.SEARCH)})")
    env_options = _networks_env(game, settings)
    agents.get(cardjax.make(game, **env_options), player, **settings)  # it loads, or says why
    meta = artifact.describe("search", game, network={"player": player}, env=env_options,
                             play=settings, name=name,
                             lineage=artifact.lineage(command=command, device=device))
    _NAMES.pop(directory, None)
    return artifact.write(path(name, directory), meta, {})


def _networks_env(game: str, settings: dict) -> dict:
    """The env options the networks a search's ``settings`` name were trained in (one set)."""
    found = {}
    for setting, word in settings.items():
        if isinstance(word, str) and word != "oracle" and (
                os.path.isdir(word) or artifact.shipped(word)):
            art = artifact.load(word)
            if art.game != game:
                raise ValueError(f"{setting}={word}: a network of {art.game}, not {game}")
            found[setting] = dict(art.meta.get("env") or {})
    options = {repr(sorted(o.items())) for o in found.values() if o}
    if len(options) > 1:
        raise ValueError(f"the networks were trained in different envs: {found}")
    return next((o for o in found.values() if o), {})


def load(env, name: str, directory: str = DIRECTORY, **options) -> Agent:
    """The pretrained player ``name`` for ``env`` (``options``: its kind's play settings, e.g.
    ScrofaZero's ``worlds``)."""
    from cardjax import agents

    if not artifact.is_artifact(path(name, directory)):
        raise ValueError(f"no pretrained player {name!r} in {directory}")
    return agents.from_artifact(env, artifact.read(path(name, directory)), name=name, **options)


def factory(name: str):
    """The factory of the shipped player ``name`` (``agents.get(env, "tractor-pretrained")``)."""

    def make(env, **options) -> Agent:
        return load(env, name, **options)

    return make


def legacy_name(directory: str) -> str | None:
    """The name of the one player an older ``export_player.py --directory`` wrote to
    ``directory`` (``NAME.json`` beside ``NAME.msgpack``), or None where there is none."""
    if not os.path.isdir(directory):
        return None
    found = sorted(f[:-5] for f in os.listdir(directory) if f.endswith(".json")
                   and os.path.isfile(os.path.join(directory, f[:-5] + ".msgpack")))
    if len(found) > 1:
        raise ValueError(f"{directory} holds several exported players ({', '.join(found)}); "
                         "name one: a directory holding one of them")
    return found[0] if found else None


def read_legacy(directory: str, name: str) -> artifact.Artifact:
    """An older export (``NAME.json`` + ``NAME.msgpack``) read as an artifact."""
    import jax
    import numpy as np
    from flax import serialization

    from cardjax import registry

    meta_path = os.path.join(directory, name + ".json")
    try:
        with open(meta_path) as f:
            old = json.load(f)
        kind, config = old["trainer"], old["config"]
        game = old["game"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{meta_path}: not an exported player ({e})") from None
    registry.check_version(old.get("rules", game), f"the player {name!r}")
    with open(os.path.join(directory, name + ".msgpack"), "rb") as f:
        params = serialization.msgpack_restore(f.read())
    lineage = {k: old.get(k) for k in ("command", "device", "date")}
    meta = artifact.describe(kind, game, network=config, name=name, lineage=lineage,
                             play={"bids": old["bids"]} if old.get("bids") else {})
    return artifact.Artifact(meta, jax.tree_util.tree_map(np.asarray, params), directory)
