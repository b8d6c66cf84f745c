"""The players at a table: a player word (a baseline with its settings, an artifact or a training
run directory: :func:`cardjax.agents.load`) loaded once per game and option set, its ``act``
jitted once, and shared by every table of the process.  The process keeps the
:data:`KEPT` most recently used players: words that differ only in a setting
(``ismcts:iterations=1`` .. ``20000``) each compile a program, and a server must not keep them
all."""

from __future__ import annotations

import collections
import threading
from typing import Callable, NamedTuple

from cardjax import agents
from cardjax.core import Agent


class Player(NamedTuple):
    """A seat's player: its word, the agent and its jitted ``act``."""

    spec: str
    agent: Agent
    act: Callable  # agents.compiled(agent).act

    def __call__(self, key, state) -> int:
        return int(self.act(self.agent.params, key, state))


KEPT = 32
_PLAYERS: collections.OrderedDict = collections.OrderedDict()  # least recently used first
_LOCK = threading.Lock()


def load_player(env, spec: str, extra: dict | None = None) -> Player:
    """The player ``spec`` names for ``env`` (``extra``: more words, word -> ``factory(env) ->
    Agent``, tried first); ``ValueError`` for a word that names none."""
    key = (type(env), repr(env), spec, id(extra.get(spec)) if extra and spec in extra else None)
    with _LOCK:
        found = _PLAYERS.get(key)
        if found is not None:
            _PLAYERS.move_to_end(key)
    if found is None:  # loaded outside the lock: a slow load does not hold up other tables
        agent = extra[spec](env) if extra and spec in extra else agents.load(env, spec)
        found = Player(spec, agent, agents.compiled(agent).act)
        with _LOCK:
            found = _PLAYERS.setdefault(key, found)
            _PLAYERS.move_to_end(key)
            while len(_PLAYERS) > KEPT:  # tables that hold a dropped player keep their own
                _PLAYERS.popitem(last=False)
    return found


def is_baseline(env, spec: str) -> bool:
    """A baseline without settings (a fast player: the tables do not say it is thinking)."""
    return spec in agents.baselines(env.name)
