"""Move grouping for search (Whitehouse, Powley and Cowling, section III.A, after Childs et
al.): a move with kickers is chosen in two consecutive decisions, its main group first (say
``333`` with a solo) and then the kickers (the ``4``), so a tree node offers ``n + m`` children
instead of ``n * m``.

:class:`Grouped` wraps a game whose ``env.move_groups()`` names the groups (Dou Dizhu's moves
with kickers) into a game the search engine (:mod:`cardjax.search.uct`) walks unchanged:

* actions ``0 .. A-1`` are the game's moves, ``A + g`` chooses group ``g``;
* with no group chosen, the legal actions are the legal moves outside every group and the groups
  with a legal move; after choosing ``g`` (the state's ``pending``), the legal moves of ``g``;
* choosing a group changes nothing in the game: same player to move, no reward;
* ``random_action`` (the playouts) draws uniformly among the game's legal moves, as in the
  ungrouped game: grouping shapes the tree, not the simulations.

:func:`make_act` searches the grouped game and answers with a move of the real game: the root
action most visited and, for a group, its kickers most visited below it.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from cardjax import legal_words
from cardjax.search import uct

Array = jax.Array


@struct.dataclass
class GroupedState:
    inner: Any  # the game's state
    pending: Array  # int32: the group chosen, its kickers still to choose (-1: none)
    rewards: Array  # float32[P]: the last action's rewards (zero after choosing a group)

    @property
    def current_player(self):
        return self.inner.current_player

    @property
    def terminated(self):
        return self.inner.terminated


class Grouped:
    """``env`` with its grouped moves chosen in two steps (the methods the search uses)."""

    def __init__(self, env, groups=None):
        groups = env.move_groups() if groups is None else groups
        if groups is None:
            raise ValueError(f"{env.name} has no moves to group (env.move_groups() is None)")
        groups = np.asarray(groups)
        if groups.shape != (env.num_actions,) or not np.issubdtype(groups.dtype, np.integer):
            raise ValueError(f"groups must be int[{env.num_actions}] (one per action), "
                             f"got {groups.dtype}{list(groups.shape)}")
        used = np.unique(groups[groups >= 0])
        if groups.min() < -1 or not np.array_equal(used, np.arange(used.size)):
            raise ValueError("groups must be -1 or ids 0 .. G-1, each used")
        self.env = env
        self.name = env.name
        self.num_players = env.num_players
        self.teams = env.teams
        self.num_groups = int(used.size)
        a = env.num_actions
        self.num_actions = a + self.num_groups
        self.max_steps = 2 * env.max_steps  # at most one group choice before every move
        inner_words = jax.eval_shape(lambda k: env.legal_words(env.init(k)),
                                     jax.random.key(0)).shape[-1]
        self._inner_words = inner_words
        self._words = max(inner_words, legal_words.num_words(self.num_actions))

        def packed(mask):  # NumPy (the wrapper may be built while jit traces)
            bits = np.packbits(np.pad(mask, (0, inner_words * 32 - a)), bitorder="little")
            return bits.view("<u4").astype(np.uint32)

        self._alone = packed(groups < 0)  # moves chosen in one step
        self._members = np.stack([packed(groups == g) for g in range(self.num_groups)])
        # (word, bits, group): every word's part of every group, to test a group for a legal move
        # with a few hundred word operations instead of one pass over the table per group
        word, group = np.nonzero(self._members.T)  # sorted by word
        self._piece_word = word.astype(np.int32)
        self._piece_bits = self._members[group, word]
        self._piece_group = group.astype(np.int32)
        gid = a + np.arange(self.num_groups)
        self._group_word = (gid // 32).astype(np.int32)
        self._group_bit = np.left_shift(np.uint32(1), (gid % 32).astype(np.uint32))

    # --- states ---------------------------------------------------------------------------
    def wrap(self, state) -> GroupedState:
        """A game state with no group chosen."""
        return GroupedState(state, jnp.int32(-1), jnp.zeros_like(state.rewards))

    def _pad(self, words):
        return jnp.pad(words, (0, self._words - self._inner_words))

    def _chosen(self, state: GroupedState, inner):
        return inner & jnp.asarray(self._members)[jnp.maximum(state.pending, 0)]

    def legal_words(self, state: GroupedState) -> Array:
        inner = self.env.legal_words(state.inner)
        some = (inner[self._piece_word] & self._piece_bits) != 0
        open_groups = jnp.zeros(self.num_groups, jnp.int32).at[self._piece_group].max(some)
        top = self._pad(inner & self._alone).at[self._group_word].add(
            jnp.where(open_groups > 0, self._group_bit, jnp.uint32(0)))
        return jnp.where(state.pending >= 0, self._pad(self._chosen(state, inner)), top)

    def step(self, state: GroupedState, action, key=None) -> GroupedState:
        action = jnp.asarray(action, jnp.int32)
        a = self.env.num_actions
        group = action >= a
        played = self.env.step(state.inner, jnp.minimum(action, a - 1), key)
        inner = jax.tree_util.tree_map(lambda x, y: jnp.where(group, x, y), state.inner, played)
        return GroupedState(inner, jnp.where(group, action - a, -1),
                            jnp.where(group, 0.0, played.rewards))

    def random_action(self, key, state: GroupedState) -> Array:
        """A uniformly random legal move of the game (kickers of the chosen group, if any)."""
        inner = self.env.legal_words(state.inner)
        return jnp.where(state.pending >= 0, legal_words.sample(key, self._chosen(state, inner)),
                         self.env.random_action(key, state.inner))

    def sample_hidden(self, key, state: GroupedState, seat) -> GroupedState:
        return state.replace(inner=self.env.sample_hidden(key, state.inner, seat))

    def seat_teams(self, state: GroupedState) -> Array:
        return self.env.seat_teams(state.inner)

    # --- players of the game as players of the grouped game --------------------------------
    def lift_policy(self, policy: Callable | None) -> Callable | None:
        """A playout policy of the game for grouped states: after a group is chosen, a uniformly
        random move of that group."""
        if policy is None:
            return None

        def act(params, key, state):
            inner = self.env.legal_words(state.inner)
            kick = legal_words.sample(key, self._chosen(state, inner))
            return jnp.where(state.pending >= 0, kick, policy(params, key, state.inner))

        return act

    def lift_value(self, value_fn: Callable | None) -> Callable | None:
        return None if value_fn is None else (lambda state: value_fn(state.inner))

    def move(self, state, result: uct.Result) -> Array:
        """The game move a search of the grouped game chose from the game state ``state``: the
        most visited root action, or for a group its most visited kickers below it (a group no
        iteration went below: its first legal move)."""
        a = self.env.num_actions
        trees = result.trees
        parent = trees.parent
        up = jnp.take_along_axis(parent, jnp.maximum(parent, 0), axis=1)
        via = jnp.take_along_axis(trees.action, jnp.maximum(parent, 0), axis=1)
        below = (parent > 0) & (up == 0) & (via == result.action)
        slot = jnp.where(below, trees.action, a)
        visits = jnp.zeros(a, jnp.int32).at[slot].add(trees.visits, mode="drop")
        group = jnp.clip(result.action - a, 0, self.num_groups - 1)
        first = legal_words.first(self.env.legal_words(state) & jnp.asarray(self._members)[group])
        kick = jnp.where(jnp.max(visits) > 0, jnp.argmax(visits).astype(jnp.int32), first)
        return jnp.where(result.action >= a, kick, result.action)


def search(env, cfg: uct.Config, state, key, *, groups=None, policy: Callable | None = None,
           policy_params=None, value_fn: Callable | None = None) -> tuple[Array, uct.Result]:
    """:func:`uct.search` with ``env``'s moves grouped: ``(game move, result)``; the result's
    actions are those of :class:`Grouped` (``A + g`` for group ``g``)."""
    grouped = Grouped(env, groups)
    result = uct.search(grouped, cfg, grouped.wrap(state), key,
                        policy=grouped.lift_policy(policy), policy_params=policy_params,
                        value_fn=grouped.lift_value(value_fn))
    return grouped.move(state, result), result


def _grouped_worlds(sample_worlds, params, key, state, seat, n: int):
    """``n`` worlds of the env drawn by ``sample_worlds``, each in the grouped ``state``."""
    worlds = sample_worlds(key, state.inner, seat, n, params)
    return jax.vmap(lambda w: state.replace(inner=w))(worlds)


def make_act(env, cfg: uct.Config, *, policy: Callable | None = None,
             value_fn: Callable | None = None, sample_worlds: Callable | None = None) -> Callable:
    """:func:`uct.make_act` with ``env``'s moves grouped (``value_fn(params, state)``;
    ``sample_worlds`` draws worlds of ``env``, and ``params`` is then a pair as there)."""
    cfg = cfg.check()
    if policy is not None and value_fn is not None:
        raise ValueError("give a playout policy or a value function at the leaves, not both")
    grouped = Grouped(env)
    lifted = grouped.lift_policy(policy)

    def run(params, key, state):
        draw = None
        if sample_worlds is not None:
            world_params, params = params
            draw = partial(_grouped_worlds, sample_worlds, world_params)
        vf = None if value_fn is None else (lambda s: value_fn(params, s.inner))
        result = uct.search(grouped, cfg, grouped.wrap(state), key, policy=lifted,
                            policy_params=params, value_fn=vf, sample_worlds=draw)
        return grouped.move(state, result)

    return uct.only_choices(env, run)
