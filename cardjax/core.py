"""The contract every cardjax game meets.

A game is an :class:`Env` whose methods are pure functions of fixed-shape arrays:

* ``init(key)`` deals, ``step(state, action, key=None)`` plays one action;
* the state is a ``flax.struct`` dataclass that extends :class:`State` (the public fields
  ``current_player``, ``rewards``, ``terminated``, ``step_count``) or :class:`MaskedState` (and
  ``legal_action_mask``; a game that builds its mask on demand gives it as a property) with its
  game fields, and hidden fields whose names start with ``_``;
* stepping a terminated state returns it unchanged, with ``rewards`` zero;
* at a terminal state the legal mask is all True (softmaxes over it never see NaN);
* an illegal action inside ``jit`` ends the game and costs the offender's team
  ``illegal_penalty`` (the other team gains it, so the rewards stay zero-sum);
* ``checked(env)`` gives an eager twin whose ``step`` raises ``ValueError`` on an illegal action.

Games implement ``_init``-style constructors and ``_step`` for a legal action; :class:`Env.step`
adds the common policies above, so every game behaves the same way at the edges.
"""

from __future__ import annotations

import math
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from cardjax import gate, legal_words

Array = jax.Array
PRNGKey = jax.Array

@struct.dataclass
class State:
    """The public fields every game's state starts with; a game's state extends it with its own
    (``@struct.dataclass class State(core.MaskedState): ...``)."""

    current_player: Array  # int32: the seat to act
    rewards: Array  # float32[num_players]: what the last step paid each seat
    terminated: Array  # bool: the game is over
    step_count: Array  # int32: actions played


@struct.dataclass
class MaskedState(State):
    """A :class:`State` that carries its legal actions (a game that builds them on demand, from
    fields it keeps anyway, extends :class:`State` and gives ``legal_action_mask`` as a property)."""

    legal_action_mask: Array  # bool[num_actions]


# the contract's public fields (Dou Dizhu gives legal_action_mask as a property)
PUBLIC_FIELDS = tuple(MaskedState.__dataclass_fields__)


def _select(pred, on_true, on_false):
    """Pytree ``where`` with a scalar predicate (cheaper than ``lax.cond`` under ``vmap``)."""
    return jax.tree_util.tree_map(lambda a, b: jnp.where(pred, a, b), on_true, on_false)


class Env:
    """Base class of the games. Subclasses set the attributes below and implement ``_step``."""

    name: str = ""
    # the rules' version: a change that makes recorded games or trained players mean something
    # else (a new rule, a new action or observation layout) raises it; see cardjax.registry
    version: str = "0"
    num_players: int = 0
    num_actions: int = 0
    teams: tuple[int, ...] = ()  # seat -> team id
    max_steps: int = 0  # the most actions a game can take: a bound for scans and buffers
    illegal_penalty: float = 0.0
    options: dict[str, Any] = {}

    # --- to implement -------------------------------------------------------------------
    def init(self, key: PRNGKey):
        raise NotImplementedError

    def _step(self, state, action: Array, key: PRNGKey | None):
        """Play a legal ``action`` in a non-terminal state; return the next state."""
        raise NotImplementedError

    def observe(self, state, seat) -> Array:
        raise NotImplementedError

    def observe_oracle(self, state, seat) -> Array:
        raise NotImplementedError

    def sample_hidden(self, key: PRNGKey, state, seat):
        raise NotImplementedError

    # --- card-location inference (optional): the hidden cards as kinds and places
    hidden_space: tuple[tuple[int, ...], int] | None = None  # (max cards per place, max copies)

    def hidden_cards(self, state, seat) -> "HiddenCards":
        """What ``seat`` does not see, as kinds of cards and the places they may be in (see
        :class:`HiddenCards`); ``sample_hidden``'s constraints exactly."""
        raise NotImplementedError(f"{self.name} does not describe its hidden cards")

    def with_hidden(self, state, seat, counts):
        """``state`` with the cards hidden from ``seat`` placed as ``counts`` (int[K, P], a world
        of :meth:`hidden_cards`): a state ``seat`` cannot tell from ``state``."""
        raise NotImplementedError(f"{self.name} does not describe its hidden cards")

    def render(self, state) -> str:
        raise NotImplementedError

    def action_to_str(self, action: int) -> str:
        return str(int(action))

    # --- the legal actions: games with a large action table store them packed and override these
    def legal_words(self, state) -> Array:
        """uint32[ceil(num_actions / 32)]: the legal actions packed (:mod:`cardjax.legal_words`)."""
        return legal_words.pack(state.legal_action_mask)

    def is_legal(self, state, action) -> Array:
        """bool: ``action`` (an id in ``0 .. num_actions - 1``) is legal in ``state``."""
        return state.legal_action_mask[action]

    def random_action(self, key: PRNGKey, state) -> Array:
        """int32: a uniformly random legal action (the same one as :func:`random_action` on the
        state's mask, whatever the representation): :meth:`pick_action` of one uniform number
        drawn from ``key``."""
        return self.pick_action(jax.random.uniform(key), state)

    def pick_action(self, u: Array, state) -> Array:
        """int32: the legal action a uniform number ``u`` in [0, 1) picks, the
        ``floor(u * count)``-th legal action in id order (:func:`pick_action`).  A batch of
        games can draw its numbers at once (``jax.random.uniform(key, (B,))``) instead of one
        key per game."""
        return pick_action(u, state.legal_action_mask)

    def _all_legal(self, state):
        """``state`` with every action legal (a terminal state's mask)."""
        return state.replace(legal_action_mask=jnp.ones_like(state.legal_action_mask))

    # --- common behaviour ---------------------------------------------------------------
    def step(self, state, action, key: PRNGKey | None = None):
        """One action. Pure and jit/vmap-able; see the module docstring for the edge policies."""
        action = jnp.asarray(action, dtype=jnp.int32)
        in_range = (action >= 0) & (action < self.num_actions)
        safe = jnp.clip(action, 0, self.num_actions - 1)
        legal = in_range & self.is_legal(state, safe)
        played = self._step(state, safe, key)
        punished = self._illegal(state)
        nxt = _select(legal, played, punished)
        finished = state.replace(rewards=jnp.zeros_like(state.rewards))
        return _select(state.terminated, finished, nxt)

    def move_groups(self):
        """NumPy int[num_actions] or None: for the moves a search may choose in two steps (main
        cards, then kickers: the paper's move grouping, :mod:`cardjax.search.move_groups`), the
        id of each move's group, ``0 .. G-1``; -1 for the moves chosen in one.  None: no such
        moves in this game."""
        return None

    def seat_teams(self, state) -> Array:
        """int32[num_players]: the team of every seat in ``state`` (``self.teams`` unless the
        game's teams depend on the state, as Dou Dizhu's landlord does)."""
        del state
        return jnp.asarray(self.teams, dtype=jnp.int32)

    def _illegal(self, state):
        """The game ends; the offender's team loses ``illegal_penalty``, shared so the sum is 0."""
        teams = self.seat_teams(state)
        offender = teams[state.current_player]
        on_team = teams == offender
        n_off = jnp.sum(on_team)
        n_other = self.num_players - n_off
        rewards = jnp.where(
            on_team,
            -self.illegal_penalty,
            self.illegal_penalty * n_off / jnp.maximum(n_other, 1),
        ).astype(jnp.float32)
        return self._all_legal(state.replace(
            rewards=rewards,
            terminated=jnp.bool_(True),
            step_count=state.step_count + 1,
        ))

    @property
    def num_teams(self) -> int:
        """Teams of ``teams`` (sides whose rewards are shared: 2 in every game here)."""
        return len(set(self.teams))

    def team_of(self, seat) -> Array:
        return jnp.asarray(self.teams, dtype=jnp.int32)[seat]

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"cardjax.make({self.name!r}{', ' if opts else ''}{opts})"


class HiddenCards(NamedTuple):
    """The cards a seat does not see (:meth:`Env.hidden_cards`), for card-location inference.

    ``K`` kinds of cards (copies of a kind cannot be told apart), ``P`` places that may hold them
    (the other seats, from the next one on, then a kitty or bottom where the game has one)."""

    copies: Array  # int32[K]: unseen copies of each kind
    allowed: Array  # bool[K, P]: the place may hold the kind (no shown void, ...)
    capacity: Array  # int32[P]: unseen cards each place holds
    truth: Array  # int32[K, P]: where they are in ``state`` (hidden information)
    least: Array | None = None  # int32[K]: copies of each kind that must be in ``group``
    group: Array | None = None  # bool[P]: (Tractor: a seat's old burial, with the takers or kitty)
    described: Array | None = None  # bool: False where the game does not describe the position's
    # hidden cards this way (Tractor while dealing): use ``sample_hidden`` there


class Agent(NamedTuple):
    """A player: ``act(params, key, state) -> int32 action`` for one game (vmap for a batch).

    Baselines have ``params=None``; trained players carry their network's params, so a caller can
    swap them (``agent._replace(params=new)``) without rebuilding ``act``."""

    name: str
    act: Callable
    params: Any = None


def auto_reset(step_fn: Callable, init_fn: Callable) -> Callable:
    """Wrap ``step_fn(state, action)`` into ``step(state, action, key)`` that starts a new game
    with ``init_fn(key)`` when one ends.

    The state returned at the end of a game is the fresh deal, carrying the finished game's
    ``rewards`` and ``terminated=True`` so that a training loop sees the outcome; the next call
    clears them before stepping.
    """

    def step(state, action, key):
        state = _select(
            state.terminated,
            state.replace(
                terminated=jnp.zeros_like(state.terminated),
                rewards=jnp.zeros_like(state.rewards),
            ),
            state,
        )
        state = step_fn(state, action)
        fresh = init_fn(key).replace(terminated=state.terminated, rewards=state.rewards)
        return _select(state.terminated, fresh, state)

    return step


def reset_finished(state, init_fn: Callable, key: PRNGKey):
    """Batch-level twin of ``auto_reset``: replace the finished games of a batched ``state`` by
    fresh deals ``vmap(init_fn)(jax.random.split(key, N))`` (row ``i`` of a finished game gets
    deal ``i``), dealing only where some game has finished, and on CPU only the finished games
    (:func:`cardjax.gate.replace_rows`: a deal costs about as much as several steps).

    Unlike ``auto_reset`` the finished games' outcome is not carried over: read ``rewards`` and
    ``terminated`` before calling this.
    """
    done = state.terminated
    keys = jax.random.split(key, done.shape[0])
    return gate.replace_rows(done, jax.vmap(init_fn), (keys,), state)


LEGAL_SHOWN = 12  # legal actions named in an illegal-action error; the rest are counted


class CheckedEnv:
    """Eager twin of an env: the same functions, but ``step`` validates its arguments and raises
    ``ValueError`` on an illegal action, naming the action and the legal ones."""

    def __init__(self, env: Env):
        self.env = env

    def __getattr__(self, name):
        return getattr(self.env, name)

    def step(self, state, action, key: PRNGKey | None = None):
        env = self.env
        if np.ndim(state.current_player) != 0:
            raise ValueError(
                "checked mode steps one game at a time; got a batched state with shape "
                f"{np.shape(state.current_player)}"
            )
        a = np.asarray(action)
        if a.ndim != 0 or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"action must be one integer, got {action!r}")
        a = int(a)
        if bool(state.terminated):
            return env.step(state, a, key)
        mask = np.asarray(state.legal_action_mask)
        if not 0 <= a < env.num_actions or not mask[a]:
            ids = np.flatnonzero(mask)
            legal = ", ".join(env.action_to_str(i) for i in ids[:LEGAL_SHOWN])
            if ids.size > LEGAL_SHOWN:
                legal += f", ... ({ids.size} legal actions in all)"
            what = env.action_to_str(a) if 0 <= a < env.num_actions else "out of range"
            raise ValueError(
                f"illegal action {a} ({what}) for seat {int(state.current_player)} at step "
                f"{int(state.step_count)}; legal actions: {legal}"
            )
        return env.step(state, a, key)

    def __repr__(self) -> str:
        return f"checked({self.env!r})"


def checked(env: Env) -> CheckedEnv:
    """Eager mode that raises on illegal actions instead of penalising them."""
    return env if isinstance(env, CheckedEnv) else CheckedEnv(env)


def random_action(key: PRNGKey, mask: Array) -> Array:
    """A uniformly random legal action: :func:`pick_action` of one uniform number (rather than a
    Gumbel draw per action: random bits are the main cost of a random playout step)."""
    return pick_action(jax.random.uniform(key), mask)


def pick_action(u: Array, mask: Array) -> Array:
    """The ``floor(u * count)``-th True of ``mask`` (``u`` in [0, 1)).  It is found in two levels
    — which block of about sqrt(n) actions, then where inside it — because a running sum over all
    27,472 Dou Dizhu actions is slow on CPUs."""
    n = mask.shape[-1]
    width = max(1, math.isqrt(n - 1) + 1)  # ceil(sqrt(n))
    blocks = -(-n // width)
    m = jnp.pad(mask.astype(jnp.int32), (0, blocks * width - n)).reshape(blocks, width)
    per_block = jnp.sum(m, axis=1)
    upto = legal_words.running_sum(per_block)
    count = upto[-1]
    k = jnp.floor(jnp.asarray(u, jnp.float32) * count).astype(jnp.int32)
    k = jnp.minimum(k, count - 1)
    block = jnp.sum(upto <= k)  # the first block reaching past k (a sum: cheaper than argmax)
    k_in = k - (upto[block] - per_block[block])
    offset = jnp.sum(legal_words.running_sum(m[block]) <= k_in)
    return (block * width + offset).astype(jnp.int32)
