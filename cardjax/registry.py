"""The games cardjax knows: every package under ``cardjax/games/`` with a ``spec.py``, plus any
game registered at run time (:func:`register`, e.g. a game of your own or a test's).

    cardjax.registry.names()            # ('gongzhu', 'doudizhu', 'mini_doudizhu', 'tractor')
    cardjax.registry.spec("tractor")    # its GameSpec (cardjax.spec)
    cardjax.registry.register(SPEC)     # a game defined outside the package
"""

from __future__ import annotations

import importlib
import pkgutil
import threading

from cardjax.spec import GameSpec

_SPECS: dict[str, GameSpec] = {}
_LOCK = threading.Lock()
_FOUND = False


def _discover() -> None:
    global _FOUND
    if _FOUND:
        return
    with _LOCK:
        if _FOUND:
            return
        import cardjax.games as package

        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
            if not info.ispkg:
                continue
            try:
                module = importlib.import_module(f"{package.__name__}.{info.name}.spec")
            except ModuleNotFoundError as e:
                if e.name == f"{package.__name__}.{info.name}.spec":
                    continue  # a package without a card is not a game
                raise
            spec = module.SPEC
            if spec.name != info.name:
                raise ValueError(f"cardjax/games/{info.name}/spec.py names its game "
                                 f"{spec.name!r}: a game's name is its package's")
            _SPECS.setdefault(spec.name, spec)
        _FOUND = True


def register(spec: GameSpec, replace: bool = False) -> GameSpec:
    """Add a game defined outside ``cardjax/games/``; ``cardjax.make(spec.name)``, the players,
    the arena, the trainers' registries and the web table then know it."""
    if not isinstance(spec, GameSpec):
        raise TypeError(f"register takes a cardjax.spec.GameSpec, got {type(spec).__name__}")
    _discover()
    with _LOCK:
        if spec.name in _SPECS and not replace and _SPECS[spec.name] is not spec:
            raise ValueError(f"a game called {spec.name!r} is registered already")
        _SPECS[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    """Forget a game added with :func:`register` (tests)."""
    _discover()
    with _LOCK:
        _SPECS.pop(name, None)


def names() -> tuple[str, ...]:
    """The registered games' names, in their cards' order."""
    _discover()
    return tuple(sorted(_SPECS, key=lambda n: (_SPECS[n].order, n)))


def spec(name: str) -> GameSpec:
    """The card of game ``name``; a clear error for an unknown one."""
    _discover()
    try:
        return _SPECS[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; available: {', '.join(names())}") from None


def make(name: str, checked: bool = False, **options):
    """The env of game ``name`` with its rule options, e.g. ``make("gongzhu", exposure=True)``.

    ``checked=True`` returns the eager twin that raises on illegal actions
    (:func:`cardjax.core.checked`).  ``cardjax.make`` is this function.
    """
    env = spec(name).make(**options)
    if checked:
        from cardjax.core import checked as eager_twin

        env = eager_twin(env)
    return env


def specs() -> tuple[GameSpec, ...]:
    return tuple(spec(n) for n in names())


class RulesMismatch(ValueError):
    """A run, corpus or player recorded with other rules than the installed ones."""


def parse_versioned(word: str) -> tuple[str, str | None]:
    """``"tractor@1"`` -> ``("tractor", "1")``; ``"tractor"`` -> ``("tractor", None)``."""
    name, sep, version = str(word).partition("@")
    return name, (version if sep else None)


def check_version(word: str, what: str) -> str:
    """The game of a recorded ``game@version`` (or a bare name, from before versions), refused
    in one line where the installed rules' version differs."""
    name, version = parse_versioned(word)
    current = spec(name).version
    if version is not None and version != current:
        raise RulesMismatch(f"{what} was made with {name}@{version}; this cardjax has {name}@{current} "
                         f"(install a cardjax whose {name} is version {version})")
    return name


def rules(name: str) -> str:
    """``"name@version"`` of the installed rules of game ``name``: what runs, corpora and
    exported players record."""
    return f"{name}@{spec(name).version}"


def record_rules(config: dict) -> dict:
    """``config`` with ``"rules": "game@version"`` where it names a registered game."""
    game = config.get("game")
    if isinstance(game, str) and game in names():
        return {**config, "rules": rules(game)}
    return dict(config)


def checked_rules(config: dict, what: str) -> dict:
    """``config`` without its ``"rules"``, refused in one line where they are not the installed
    rules (:func:`check_version`)."""
    config = dict(config)
    recorded = config.pop("rules", None)
    if recorded is not None:
        check_version(recorded, what)
    return config
