"""Batched Monte-Carlo tree search with per-team values (ScrofaZero, section 8.6).

Search for any cardjax game with teams: UCB selection ``v_j + c * sqrt(ln N / n_j)`` (``c`` in
game points, 30 in the paper), leaf evaluation by a value function (no random rollouts), values
kept per team and backed up so that every node's choice is made for the team to act there.

Batch semantics
---------------
:func:`search` is written for ONE root state (no batch axis).  For a batch, ``jax.vmap`` it over
``root_state``, ``key`` and ``num_simulations`` (``max_simulations`` and ``c`` stay static /
shared); :func:`batched_search` does exactly that.  Each root keeps its own tree; a root whose
``num_simulations`` is smaller than ``max_simulations`` stops changing after its own budget (the
``fori_loop`` runs ``max_simulations`` times, masked per root), so a vmapped search equals the
per-root searches.

Tree layout (``N = max_simulations + 1`` nodes, ``A = env.num_actions``, ``T`` teams)
----------------------------------------------------------------------------------
* ``parent[N]`` (-1 for the root and unused nodes), ``action[N]`` action from the parent (-1);
* ``children[N, A]`` node index of each child, -1 = not expanded;
* ``visits[N]``; ``value_sum[N, T]`` sum of the backed-up returns per team;
* ``reward[N, T]`` the team rewards of the step INTO the node (0 at the root);
* ``states`` the env states of the nodes (the state pytree with a leading axis ``N``);
* ``num_nodes`` nodes in use.  Node 0 is the root; simulation ``s`` adds at most one node.

Values and signs
----------------
A team's reward is the mean of its seats' rewards (for Gongzhu every seat gets its team's margin,
so this is the margin in game points; the teams' values are negatives of each other).
``value_fn(state) -> float[T]`` returns the expected future reward per team from a
non-terminal state (close over network parameters with ``functools.partial``; ``zero_value``
is a valid stand-in).  A simulation's leaf value is ``0`` at a terminal node and
``value_fn(leaf)`` otherwise; going up, each node on the path adds
``g <- reward[node] + g`` to its ``value_sum`` (all teams at once), so ``value_sum[j] / visits[j]``
is the mean return of the move into ``j`` from its parent's state, per team.  At a node whose
``current_player`` is in team ``t`` selection maximises the team-``t`` column: the values are
never negated, each node simply reads its mover's column.

Selection, at every node and only among that node's LEGAL actions (``legal_action_mask``): an
unexpanded legal child first (ties broken at random with the search key), otherwise the max of
``q_j[t] + c * sqrt(ln N / n_j)``.  The new child is made with ``env.step``.  A simulation that
reaches a terminal node stops there and backs up its rewards again (nothing is added).

Output (:class:`SearchOutput`): ``action`` is the most visited legal root child (ties broken by
the higher value); ``child_values`` are the root children's mean values for the root mover's
team (``-inf`` for illegal or unvisited children) -- the paper's training target is a policy built
from these; ``child_team_values`` has every team's column (NaN where unvisited).
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
from flax import struct

Array = jax.Array


@struct.dataclass
class Tree:
    parent: Array  # int32[N]
    action: Array  # int32[N]
    children: Array  # int32[N, A]
    visits: Array  # int32[N]
    value_sum: Array  # float32[N, T]
    reward: Array  # float32[N, T]
    states: Any  # env state pytree, leading axis N
    num_nodes: Array  # int32[]


@struct.dataclass
class SearchOutput:
    action: Array  # int32[]: most visited legal root child
    child_values: Array  # float32[A]: mean value for the root mover's team, -inf if unvisited
    child_team_values: Array  # float32[A, T]: mean value per team, NaN if unvisited
    child_visits: Array  # int32[A]
    root_value: Array  # float32[T]: mean backed-up return at the root per team
    tree: Tree


def team_matrix(env) -> Array:
    """float[P, T]: ``rewards @ M`` is each team's reward (the mean over its seats)."""
    teams = jnp.asarray(env.teams, jnp.int32)
    onehot = jax.nn.one_hot(teams, env.num_teams, dtype=jnp.float32)
    return onehot / jnp.sum(onehot, axis=0, keepdims=True)


def zero_value(env) -> Callable:
    """A value function that returns 0 for every team (pure search on terminal rewards)."""
    t = env.num_teams
    return lambda state: jnp.zeros(t, jnp.float32)


def simulations(legal_mask: Array, b, k, max_simulations: int) -> Array:
    """``min(b + k * (number of legal moves), max_simulations)`` (works on batches: last axis)."""
    n = jnp.sum(jnp.asarray(legal_mask).astype(jnp.int32), axis=-1)
    return jnp.minimum(b + k * n, max_simulations).astype(jnp.int32)


def _index(tree, i):
    return jax.tree_util.tree_map(lambda x: x[i], tree)


def _init_tree(env, root_state, max_simulations: int) -> Tree:
    n = max_simulations + 1
    a = env.num_actions
    t = env.num_teams
    states = jax.tree_util.tree_map(
        lambda x: jnp.zeros((n,) + jnp.shape(x), jnp.asarray(x).dtype).at[0].set(x), root_state
    )
    return Tree(
        parent=jnp.full(n, -1, jnp.int32),
        action=jnp.full(n, -1, jnp.int32),
        children=jnp.full((n, a), -1, jnp.int32),
        visits=jnp.zeros(n, jnp.int32),
        value_sum=jnp.zeros((n, t), jnp.float32),
        reward=jnp.zeros((n, t), jnp.float32),
        states=states,
        num_nodes=jnp.int32(1),
    )


def _select(tree: Tree, teams: Array, c: float, key: Array):
    """Walk down from the root. Returns ``(node, action, expand)``: expand ``action`` at
    ``node`` when ``expand``, else ``node`` is terminal."""
    num_actions = tree.children.shape[1]

    def cond(carry):
        return ~carry[2]

    def body(carry):
        node, _, _, _, depth = carry
        terminal = tree.states.terminated[node]
        legal = _index(tree.states, node).legal_action_mask  # index first: it may be unpacked
        kids = tree.children[node]
        unexpanded = legal & (kids < 0)
        any_new = jnp.any(unexpanded)
        noise = jax.random.uniform(jax.random.fold_in(key, depth), (num_actions,))
        a_new = jnp.argmax(jnp.where(unexpanded, noise, -1.0))
        team = teams[tree.states.current_player[node]]
        safe = jnp.maximum(kids, 0)
        n_j = jnp.maximum(tree.visits[safe], 1).astype(jnp.float32)
        q = tree.value_sum[safe, team] / n_j
        n_parent = jnp.maximum(tree.visits[node], 1).astype(jnp.float32)
        ucb = q + c * jnp.sqrt(jnp.log(n_parent) / n_j)
        ucb = jnp.where(legal & (kids >= 0), ucb, -jnp.inf)
        a_ucb = jnp.argmax(ucb)
        done = terminal | any_new
        a = jnp.where(any_new, a_new, a_ucb).astype(jnp.int32)
        nxt = jnp.where(done, node, kids[a])
        return nxt, a, done, ~terminal & any_new, depth + 1

    init = (jnp.int32(0), jnp.int32(-1), jnp.bool_(False), jnp.bool_(False), jnp.int32(0))
    node, a, _, expand, _ = jax.lax.while_loop(cond, body, init)
    return node, a, expand


def _simulate(env, value_fn, c, tree: Tree, key, active) -> Tree:
    n_max = tree.visits.shape[0]
    teams = jnp.asarray(env.teams, jnp.int32)
    node, a, expand = _select(tree, teams, c, key)
    expand = expand & active

    parent_state = _index(tree.states, node)
    child = env.step(parent_state, a)
    child_reward = child.rewards.astype(jnp.float32) @ team_matrix(env)
    child_value = jnp.where(
        child.terminated, 0.0, jnp.asarray(value_fn(child), jnp.float32)
    )
    new = tree.num_nodes
    w = jnp.where(expand, new, n_max)  # out of range -> dropped write
    tree = tree.replace(
        parent=tree.parent.at[w].set(node, mode="drop"),
        action=tree.action.at[w].set(a, mode="drop"),
        children=tree.children.at[jnp.where(expand, node, n_max), a].set(new, mode="drop"),
        reward=tree.reward.at[w].set(child_reward, mode="drop"),
        states=jax.tree_util.tree_map(
            lambda xs, x: xs.at[w].set(x, mode="drop"), tree.states, child
        ),
        num_nodes=tree.num_nodes + expand.astype(jnp.int32),
    )
    leaf = jnp.where(expand, new, node)
    g0 = jnp.where(expand, child_value, jnp.zeros_like(child_value))

    def cond(carry):
        return carry[0] >= 0

    def body(carry):
        n, g, visits, value_sum = carry
        g = g + tree.reward[n]
        return tree.parent[n], g, visits.at[n].add(1), value_sum.at[n].add(g)

    start = jnp.where(active, leaf, -1)
    _, _, visits, value_sum = jax.lax.while_loop(
        cond, body, (start, g0, tree.visits, tree.value_sum)
    )
    return tree.replace(visits=visits, value_sum=value_sum)


def search(
    env,
    value_fn: Callable,
    root_state,
    key: Array,
    *,
    max_simulations: int,
    num_simulations=None,
    c: float = 30.0,
) -> SearchOutput:
    """MCTS from ONE ``root_state`` (vmap it, or use :func:`batched_search`, for a batch).

    ``max_simulations`` is static (the tree's size is ``max_simulations + 1``);
    ``num_simulations`` (int array, ``<= max_simulations``, default ``max_simulations``) is this
    root's budget, e.g. ``simulations(root_state.legal_action_mask, b, k, max_simulations)``.
    """
    max_simulations = int(max_simulations)
    if num_simulations is None:
        num_simulations = max_simulations
    num_simulations = jnp.minimum(jnp.asarray(num_simulations, jnp.int32), max_simulations)
    tree = _init_tree(env, root_state, max_simulations)

    def body(i, tree):
        return _simulate(env, value_fn, c, tree, jax.random.fold_in(key, i), i < num_simulations)

    tree = jax.lax.fori_loop(0, max_simulations, body, tree)
    return _output(env, tree)


def _output(env, tree: Tree) -> SearchOutput:
    teams = jnp.asarray(env.teams, jnp.int32)
    root = _index(tree.states, 0)
    kids = tree.children[0]
    has = (kids >= 0) & root.legal_action_mask
    safe = jnp.maximum(kids, 0)
    visits = jnp.where(has, tree.visits[safe], 0)
    team_values = tree.value_sum[safe] / jnp.maximum(visits, 1)[:, None].astype(jnp.float32)
    team_values = jnp.where(has[:, None], team_values, jnp.nan)
    mover_team = teams[root.current_player]
    values = jnp.where(has, team_values[:, mover_team], -jnp.inf)
    most = has & (visits == jnp.max(jnp.where(has, visits, -1)))
    action = jnp.argmax(jnp.where(most, values, -jnp.inf))
    # no child at all (terminal root or zero simulations): first legal action
    action = jnp.where(jnp.any(has), action, jnp.argmax(root.legal_action_mask)).astype(jnp.int32)
    root_value = tree.value_sum[0] / jnp.maximum(tree.visits[0], 1).astype(jnp.float32)
    return SearchOutput(
        action=action,
        child_values=values,
        child_team_values=team_values,
        child_visits=visits,
        root_value=root_value,
        tree=tree,
    )


def batched_search(env, value_fn, root_states, keys, *, max_simulations: int,
                   num_simulations=None, c: float = 30.0) -> SearchOutput:
    """``jax.vmap`` of :func:`search` over a batch of roots (leading axis), with one key and one
    ``num_simulations`` per root (default: ``max_simulations`` for all)."""
    batch = keys.shape[0]
    if num_simulations is None:
        num_simulations = jnp.full(batch, max_simulations, jnp.int32)

    def one(state, key, n):
        return search(env, value_fn, state, key, max_simulations=max_simulations,
                      num_simulations=n, c=c)

    return jax.vmap(one)(root_states, keys, jnp.asarray(num_simulations, jnp.int32))
