"""What DMC (its trainer and its players) knows of a game: the :class:`Game` an adapter builds,
and the registry.

The trainer never names a game.  Each game that DMC can train has one adapter module,
``cardjax/nets/dmc/adapters/<game>.py`` (the game's ``cardjax.make`` name), holding an
:class:`Adapter` called ``ADAPTER``; :func:`get` finds it by that name, so adding a game to DMC is
writing that one file.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from typing import Any, Callable, NamedTuple



class Game(NamedTuple):
    """A game as the trainer sees it (built by an adapter for one env and config).

    ``features(state) -> bool[F] | uint8[F]``: the acting seat's view, as stored in the buffer;
    ``role(state) -> int32``: which network acts; ``action_features``: the ``[rows, G]`` table,
    NumPy or an :class:`~cardjax.nets.dmc.action_table.ActionTable` (rows computed, not stored)
    (the actions DMC chooses among are its rows, unless ``action_rows``); ``history``:
    ``(steps, size)``: the last ``steps * size`` features are a sequence for the LSTM (``(0, 0)``:
    none); ``outcome(final, totals) -> dict``: self-play stats (means over the batch) from the
    finished states and each game's rewards ``totals`` float[B, num_players].

    Optional: ``lockstep`` (the role acting at step t is ``t % num_roles`` in every running game;
    False: roles are read per game and stored per decision); ``feature_scale`` (the network reads
    ``features / feature_scale``: uint8 features hold exact multiples of 1/scale);
    ``step_rewards(prev, next) -> float32[num_players]`` (the reward vector of a step; None: the
    env's ``next.rewards``); ``oracle(state) -> uint8[F_o]`` (hidden information appended to the
    features under oracle guiding, zeros when playing); ``tick(prev, next) -> bool`` (the step
    ends a discount period, a trick, for ``discount="trick"``); ``final_reward(final) ->
    float32[num_players]`` and ``pre_round`` (roles): under ``discount="trick"`` the decisions of
    the ``pre_round`` roles learn the final reward alone, undiscounted; ``action_rows(state) ->
    int32[num_actions]``: each action's row of ``action_features`` in this state (None: action
    ``a`` is row ``a``); ``view``: ``env`` is a view of the env a player plays (:attr:`plain_env`)
    whose actions are moves built over several of that env's steps (the trainer plays the view,
    a trained player the env); the view has the env's ``init``, ``step``, ``legal_words``,
    ``num_players``, ``num_actions`` and ``decision_state(state)`` (the state in which the move
    being built was chosen), ``env_action(state, action)`` (the env action that goes on building
    it) and ``lift(act)`` (a player of the env as a player of the view); ``advice(state) ->
    bool[num_actions]``: the move a reference player would make (``Config.advice_bonus`` adds
    to its Q when choosing); ``advised_from``: where the rows of ``action_rows`` say it too, the
    first row of the advised moves' copy of ``action_features`` (so that the reference player,
    already asked for the rows, need not be asked again); ``counterfactual(state) -> (reward
    float32[num_actions], exact bool[num_actions])``: each action's step reward where it is
    known before acting from what the seat sees (the counterfactual targets; the exact rewards
    extension adds it when choosing);
    ``rollout(state) -> (reward, valid)`` of the same shapes: estimates of further actions'
    rewards, for the counterfactual targets only (they may read hidden cards: never used to
    choose), where ``counterfactual`` knows none; ``rollout_ends(state) -> (reward, valid, cards
    int32[R], ends)``: ``rollout`` with the R actions played out and the state each leaves (a
    batch of R states) when the estimate is made, which the ``after_rollouts`` targets value;
    ``kind(state) -> int32``: the kind of decision,
    an index into the adapter's ``decision_kinds`` (lambda-returns for some kinds only).
    """

    env: Any
    role_names: tuple
    features: Callable
    role: Callable
    action_features: Any  # np.ndarray or ActionTable
    history: tuple
    outcome: Callable
    lockstep: bool = True
    feature_scale: float = 1.0
    step_rewards: Callable | None = None
    oracle: Callable | None = None
    tick: Callable | None = None
    final_reward: Callable | None = None
    pre_round: tuple = ()
    action_rows: Callable | None = None
    counterfactual: Callable | None = None
    trainable: bool = True  # False: a game built to play in an env its config was not trained for
    view: bool = False
    advice: Callable | None = None
    advised_from: int | None = None
    rollout: Callable | None = None
    kind: Callable | None = None
    rollout_ends: Callable | None = None

    @property
    def plain_env(self):
        """The env a trained player plays: ``env``, or the env that ``env`` is a view of."""
        return self.env.env if self.view else self.env

    @property
    def num_roles(self) -> int:
        return len(self.role_names)

    @property
    def num_actions(self) -> int:
        """The actions DMC chooses among: ``0 .. num_actions - 1``."""
        if self.action_rows is None:
            return self.action_features.shape[0]
        return self.env.num_actions


@dataclasses.dataclass(frozen=True)
class Adapter:
    """One game's translation for DMC.

    ``game``: the ``cardjax.make`` name; ``role_names``: one network per role; ``rewards``: the
    env's reward kinds (the first is the default); ``defaults``: the :class:`Config` fields and
    options a new run of the game takes where they differ from the trainer's; ``options``: a
    frozen dataclass of the adapter's own options (saved with the run beside the trainer's
    fields; its field defaults are what a run saved before an option existed meant) or None;
    ``make_game(cfg, env=None) -> Game``: the game for a config (``env``: an env to use instead
    of the one the config describes); ``ticks`` / ``oracle``: the game marks trick ends (so
    ``discount="trick"`` and ``target="trick"`` apply) / has an oracle view (oracle guiding);
    ``unused``: trainer fields that mean nothing for this game (their flags are not offered);
    ``counterfactuals``: its games give exact step rewards of alternative actions
    (``Game.counterfactual``, so ``counterfactual`` applies); ``advises(options) -> bool``: its
    games under these options name a reference player's move (``Game.advice``, so
    ``advice_bonus`` applies; None: never);
    ``roles(options) -> tuple``: the role names under these options, where an option changes them
    (None: ``role_names``); ``player``: the name its trained players go by (the command that
    trains them); ``decision_kinds``: the names of its kinds of decision (``Game.kind``), which
    ``lam_kinds`` chooses among.
    """

    game: str
    role_names: tuple
    rewards: tuple
    make_game: Callable
    defaults: dict = dataclasses.field(default_factory=dict)
    options: type | None = None
    ticks: bool = False
    oracle: bool = False
    counterfactuals: bool = False
    advises: Callable | None = None
    unused: tuple = ()
    roles: Callable | None = None
    player: str = "dmc"
    decision_kinds: tuple = ()

    def role_names_for(self, options) -> tuple:
        return self.role_names if self.roles is None else self.roles(options)

    def option_names(self) -> tuple:
        if self.options is None:
            return ()
        return tuple(f.name for f in dataclasses.fields(self.options))


_REGISTERED: dict[str, Adapter] = {}


def register(adapter: Adapter) -> Adapter:
    """Add the adapter of a game defined outside the package (``cardjax.registry.register``);
    the adapters in ``adapters/`` are found by their module's name."""
    _REGISTERED[adapter.game] = adapter
    return adapter


def unregister(game: str) -> None:
    """Forget an adapter added with :func:`register`."""
    _REGISTERED.pop(game, None)


def available() -> tuple:
    """The games that have a DMC adapter."""
    from cardjax.nets.dmc import adapters

    found = {m.name for m in pkgutil.iter_modules(adapters.__path__)} | set(_REGISTERED)
    return tuple(sorted(found))


def get(game: str) -> Adapter:
    """The adapter of ``game`` (``ValueError`` naming the available ones if it has none)."""
    if game in _REGISTERED:
        return _REGISTERED[game]
    if game not in available():
        raise ValueError(f"no DMC adapter for game {game!r}; available: {', '.join(available())}")
    return importlib.import_module(f"cardjax.nets.dmc.adapters.{game}").ADAPTER


def make_game(cfg, env=None) -> Game:
    """The :class:`Game` of a config, through its game's adapter (``env``: an env to use instead
    of the one the config describes)."""
    return get(cfg.game).make_game(cfg, env)
