"""A game's card: everything the rest of cardjax reads about one game, in one place.

Each game package ``cardjax/games/<game>/`` has a ``spec.py`` whose ``SPEC`` is a
:class:`GameSpec`.  The registry (:mod:`cardjax.registry`) finds them; ``cardjax.make``, the
players (:mod:`cardjax.agents`), the arena, the search players, the people's tables and the web
page read the card instead of keeping dicts keyed by a game's name, so a new game is one folder.

The heavy parts are named as ``"module:attribute"`` strings and imported when first used
(:func:`resolve`): reading every card costs no JAX tracing and no game table.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any, Callable


def resolve(ref: str | Callable | None):
    """The object a ``"package.module:attribute"`` string names (imported now); a callable or
    None is returned as it is."""
    if ref is None or not isinstance(ref, str):
        return ref
    module, sep, attribute = ref.partition(":")
    if not sep or not module or not attribute:
        raise ValueError(f"{ref!r} is not 'package.module:attribute'")
    obj = importlib.import_module(module)
    for part in attribute.split("."):
        obj = getattr(obj, part)
    return obj


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """One game's card.

    - ``name``: the ``cardjax.make`` name (the package's name); ``title`` and ``blurb``: how a
      person meets it (the web page's form).
    - ``env``: ``"module:Class"`` of its :class:`cardjax.core.Env`; the class carries the rules'
      ``version`` (:attr:`version`), which runs, corpora and exported players record as
      ``name@version``.
    - ``players``: its own players, ``{name: "module:factory"}`` (``factory(env, **settings) ->
      Agent``); the players of every game (random, the search players) and the pretrained
      players shipped for it are added by :mod:`cardjax.agents`.
    - ``default_opponent``: the strongest baseline, who fills a table's empty seats.
    - ``scheme``: ``"module:function"``, ``function(env) -> cardjax.duplicate.Scheme``: how the
      arena plays a deal in duplicate and the game's match figures.
    - ``search``: the search players' defaults for this game (``utility``, ``k``); empty: the
      paper's (wins, ``k = 1``).
    - ``table``: ``"module:Class"`` of its people's table (:class:`cardjax.table.Table`), or None.
    - ``page_options``: the rule options the web page offers (``name``, ``label``, ``default``,
      optional ``choices``); the API takes any option of the env.
    - ``order``: where the game comes in listings (``cardjax.GAMES``, the web page's form; the
      first is the one the page offers first).
    - ``play_label``: the web page's name of the play phase (``"Tricks"``; ``"Plays"`` for a game
      played in rounds of plays rather than tricks).
    - ``table_seconds``: how long its first people's table took to prepare with nothing cached
      (the web page's estimate until a machine records its own); None: not measured.
    - ``complete_player``: optional ``"module:function"``, ``function(env, agent, meta) ->
      Agent``: a trained card player made whole for the env's options (Dou Dizhu: its bids at a
      table with an auction; ``meta``: the exported player's description, or ``{}``).
    """

    name: str
    title: str
    blurb: str
    env: str
    players: dict[str, str] = dataclasses.field(default_factory=dict)
    default_opponent: str = "random"
    scheme: str | None = None
    search: dict[str, Any] = dataclasses.field(default_factory=dict)
    table: str | None = None
    page_options: tuple[dict, ...] = ()
    complete_player: str | None = None
    order: int = 100
    table_seconds: int | None = None
    play_label: str = "Tricks"

    def env_class(self):
        return resolve(self.env)

    @property
    def version(self) -> str:
        """The rules' version (the env class's ``version``)."""
        return str(self.env_class().version)

    def make(self, **options):
        try:
            return self.env_class()(**options)
        except TypeError as e:  # an unknown option name
            raise ValueError(f"bad options for {self.name!r}: {e}") from None

    def duplicate_scheme(self, env):
        if self.scheme is None:
            raise ValueError(f"{self.name} has no duplicate scheme (its card names none)")
        return resolve(self.scheme)(env)

    def table_class(self):
        if self.table is None:
            raise ValueError(f"{self.name} has no people's table (its card names none)")
        return resolve(self.table)
