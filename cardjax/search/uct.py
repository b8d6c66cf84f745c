"""UCT under hidden information for any cardjax game: cheating UCT, determinized UCT and
information-set UCT (SO-ISMCTS), after Whitehouse, Powley and Cowling (CIG 2011).

One engine, three ways of choosing the world an iteration is played in (:data:`WORLDS`):

* ``"true"`` -- **cheating UCT**: every iteration plays in the real state (hidden cards known);
* ``"tree"`` -- **determinized UCT**: each tree draws one world with ``env.sample_hidden(key,
  state, seat)`` and keeps it for all its iterations;
* ``"iteration"`` -- **information-set UCT**: a fresh world every iteration.  A node is then an
  information set of the root player (the actions from the root; every action is public in the
  games here, except where a game's docs say otherwise), and an iteration may only walk the
  children whose action is legal in its world.

``trees`` independent trees are searched (root parallelisation) and the root visits are summed
over them; the most visited action is played (ties: the lowest action id).

One iteration, in the world ``D`` (the paper's figure 2):

1. *selection*: at a node whose children cover every action legal in ``D``, go to the legal
   child maximising ``q + k * sqrt(ln n / v)`` (ties: the lowest action id): ``q`` the child's mean return for the team to
   move, ``v`` its visits, and ``n`` the parent's visits (cheating / determinized UCT) or the
   child's *availability* -- the iterations whose world allowed it while the walk stood at the
   parent (``availability=True``, information-set UCT);
2. *expansion*: at the first node with a legal action that has no child, add the child of a
   uniformly random such action;
3. *simulation*: from there to the end of the game, every seat played by the playout policy
   (uniformly random by default; any agent's ``act`` with its params), or ``value_fn(state) ->
   float[T]`` (team values) at the new node instead;
4. *backpropagation*: every node on the path adds the iteration's return: the rewards of every
   seat from the root to the end of the game, as a win (``utility="win"``: 1 if the seat's total
   is positive, 0 if negative, 1/2 if zero -- the paper's measure) or as points (``"score"``).

Returns are kept per seat; a node's ``q`` is the mean over the seats on its mover's team, so
2-, 3- and 4-player games with partners (and Dou Dizhu's landlord against two peasants) all work.

Arrays: a tree of ``N = iterations + 1`` nodes stores ``parent``, ``action`` (from the parent),
``visits``, ``avail`` and ``value_sum[N, P]``, and for games of few actions a child table
``children[N, num_actions]``; with many actions (Dou Dizhu's 27,472) a node's children are found
by comparing ``parent`` over all nodes instead.  Every
loop is a ``lax`` loop with a static bound, so a search is one ``jit``-able, ``vmap``-able
function of ``(state, key)``: :func:`search` for one root; ``vmap`` it for many.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
from flax import struct

from cardjax import legal_words
from cardjax.gate import gated

Array = jax.Array

WORLDS = ("true", "tree", "iteration")
UTILITIES = ("win", "score")


class Config(NamedTuple):
    """The settings of a search (all static).  :func:`cheat_uct`, :func:`det_uct` and
    :func:`ismcts` give the paper's three players."""

    worlds: str = "iteration"
    trees: int = 1
    iterations: int = 1000
    k: float = 1.0
    availability: bool = True
    utility: str = "win"

    def check(self) -> "Config":
        if self.worlds not in WORLDS:
            raise ValueError(f"worlds must be one of {', '.join(WORLDS)}; got {self.worlds!r}")
        if self.utility not in UTILITIES:
            raise ValueError(f"utility must be one of {', '.join(UTILITIES)}; got {self.utility!r}")
        for name in ("trees", "iterations"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ValueError(f"{name} must be a positive integer; got {v!r}")
        if not self.k >= 0:
            raise ValueError(f"the exploration constant k must be >= 0; got {self.k!r}")
        return self


def cheat_uct(trees: int = 40, iterations: int = 250, k: float = 1.0, utility="win") -> Config:
    """UCT on the true state, ``trees`` trees of ``iterations`` each (the paper: 40 x 250)."""
    return Config("true", trees, iterations, k, False, utility).check()


def det_uct(trees: int = 40, iterations: int = 250, k: float = 1.0, utility="win") -> Config:
    """UCT on ``trees`` sampled worlds, one per tree (the paper: 40 x 250)."""
    return Config("tree", trees, iterations, k, False, utility).check()


def ismcts(iterations: int = 10_000, k: float = 1.0, utility="win", trees: int = 1) -> Config:
    """Information-set UCT: one tree, a fresh world per iteration (the paper: 10,000, k = 1)."""
    return Config("iteration", trees, iterations, k, True, utility).check()


@struct.dataclass
class Tree:
    parent: Array  # int32[N], -1 for the root and unused nodes
    action: Array  # int32[N], the action from the parent (-1: none)
    visits: Array  # int32[N]
    avail: Array  # int32[N], iterations in which the node's action was legal at its parent
    value_sum: Array  # float32[N, P], summed returns per seat
    num_nodes: Array  # int32[]
    children: Array | None = None  # int32[N, A] child per action (-1: none), small games only


class Result(NamedTuple):
    action: Array  # int32[]: the most visited root action over all trees
    visits: Array  # int32[A]: root visits per action, summed over the trees
    values: Array  # float32[A]: mean return of each root action for the mover's team (NaN: none)
    trees: Tree  # the trees, stacked on a leading axis ``trees``


# Games with at most this many actions keep a child table; larger ones (Dou Dizhu) find a node's
# children by comparing ``parent`` over the tree, which costs a pass over the nodes per level.
TABLE_ACTIONS = 256


def _empty_tree(n: int, p: int, a: int) -> Tree:
    return Tree(parent=jnp.full(n, -1, jnp.int32), action=jnp.full(n, -1, jnp.int32),
                visits=jnp.zeros(n, jnp.int32), avail=jnp.zeros(n, jnp.int32),
                value_sum=jnp.zeros((n, p), jnp.float32), num_nodes=jnp.int32(1),
                children=jnp.full((n, a), -1, jnp.int32) if a <= TABLE_ACTIONS else None)


def _candidates(tree: Tree, node):
    """The possible children of ``node``: ``(node ids, exists, their actions)``, each [M]."""
    if tree.children is not None:
        ids = tree.children[node]
        return jnp.maximum(ids, 0), ids >= 0, jnp.arange(ids.shape[0], dtype=jnp.int32)
    ids = jnp.arange(tree.parent.shape[0], dtype=jnp.int32)
    return ids, tree.parent == node, jnp.maximum(tree.action, 0)


def team_share(env, state) -> Array:
    """float[P, P]: row ``p`` averages the seats on ``p``'s team (``returns @ M.T`` per seat)."""
    teams = env.seat_teams(state)
    same = (teams[:, None] == teams[None, :]).astype(jnp.float32)
    return same / jnp.sum(same, axis=1, keepdims=True)


def _without(words: Array, actions: Array, drop: Array) -> Array:
    """``words`` less the ``actions`` where ``drop`` (distinct actions among the dropped)."""
    bit = jnp.left_shift(jnp.uint32(1), (actions % legal_words.BITS).astype(jnp.uint32))
    cleared = jnp.zeros_like(words).at[actions // legal_words.BITS].add(
        jnp.where(drop, bit, jnp.uint32(0)))
    return words & ~cleared


def _walk(env, cfg: Config, tree: Tree, world, key):
    """Selection and expansion in ``world``: ``(tree, leaf state, path, depth, path rewards)``.
    ``path[:depth]`` are the nodes from the root to the leaf (the root included).

    Under ``vmap`` a loop whose end differs between games rewrites its whole carry at every
    step, so the tree is only read inside the loop: the availability counts go to a record of
    each level's legal children (with a child table; reading the table again after the loop
    would make XLA copy it every iteration) or ride in the loop (without one, where a pass over
    the nodes is paid at every level anyway), and the new node is added after it."""
    n_nodes = tree.parent.shape[0]
    table = tree.children is not None
    max_depth = env.max_steps + 1
    path = jnp.zeros(max_depth, jnp.int32)  # path[0] = 0, the root
    if table:  # the children legal at each level walked through (n_nodes: none)
        record = jnp.full((max_depth, env.num_actions), n_nodes, jnp.int32)
    else:
        record = tree.avail

    def body(c):
        s, node, path, depth, ret, record, _, _, _ = c
        words = env.legal_words(s)
        ids, exists, acts = _candidates(tree, node)
        here = exists & legal_words.contains(words, acts)  # the children legal in this world
        if table:
            record = record.at[depth - 1].set(jnp.where(here, ids, n_nodes))
            avail = tree.avail[ids] + here  # this iteration counts
        else:
            record = record.at[ids].add(here.astype(jnp.int32))
            avail = record[ids]
        have = jnp.sum(here, dtype=jnp.int32)
        expand = (have < legal_words.count(words)) & (tree.num_nodes < n_nodes)
        new_action = legal_words.sample(jax.random.fold_in(key, depth),
                                        _without(words, acts, here))
        share = team_share(env, s)[s.current_player]
        visits = jnp.maximum(tree.visits[ids], 1).astype(jnp.float32)
        q = tree.value_sum[ids] @ share / visits
        base = avail if cfg.availability else tree.visits[node]
        ucb = q + cfg.k * jnp.sqrt(jnp.log(jnp.maximum(base, 1).astype(jnp.float32)) / visits)
        ucb = jnp.where(here, ucb, -jnp.inf)
        best = jnp.argmin(jnp.where(ucb >= jnp.max(ucb), acts, env.num_actions))  # ties: lowest action
        stuck = ~expand & (have == 0)  # a full tree with no child legal here: simulate from here
        child = jnp.where(expand, tree.num_nodes, ids[best])
        a = jnp.where(expand, new_action, acts[best])
        nxt = env.step(s, a)
        moved = ~stuck
        s = jax.tree_util.tree_map(lambda x, y: jnp.where(moved, x, y), nxt, s)
        ret = ret + jnp.where(moved, nxt.rewards, 0.0)
        path = path.at[jnp.where(moved, depth, max_depth)].set(child, mode="drop")
        depth = depth + moved
        return (s, jnp.where(moved, child, node), path, depth, ret, record, a, expand,
                expand | stuck | s.terminated)

    ret = jnp.zeros(env.num_players, jnp.float32)
    init = (world, jnp.int32(0), path, jnp.int32(1), ret, record, jnp.int32(0), jnp.bool_(False),
            world.terminated)
    s, _, path, depth, ret, record, a, expand, _ = jax.lax.while_loop(lambda c: ~c[-1], body, init)

    if table:  # the children legal at each level moved on from (the new node not among them)
        walked = (jnp.arange(max_depth) < depth - 1)[:, None]
        avail = tree.avail.at[jnp.where(walked, record, n_nodes)].add(1, mode="drop")
    else:
        avail = record
    new = jnp.where(expand, tree.num_nodes, n_nodes)  # writes to slot n_nodes are dropped
    parent = path[jnp.maximum(depth - 2, 0)]
    tree = tree.replace(parent=tree.parent.at[new].set(parent, mode="drop"),
                        action=tree.action.at[new].set(a, mode="drop"),
                        avail=avail.at[new].add(1, mode="drop"),
                        num_nodes=tree.num_nodes + expand)
    if table:
        row = jnp.where(expand, parent, n_nodes)
        tree = tree.replace(children=tree.children.at[row, a].set(tree.num_nodes - 1, mode="drop"))
    return tree, s, path, depth, ret


def _playout(env, policy: Callable | None, policy_params, s, key):
    """Rewards per seat from ``s`` to the end of the game, every seat played by ``policy``."""

    def body(c):
        s, ret, i = c
        k = jax.random.fold_in(key, i)
        a = env.random_action(k, s) if policy is None else policy(policy_params, k, s)
        s = env.step(s, a)
        return s, ret + s.rewards, i + 1

    ret = jnp.zeros(env.num_players, jnp.float32)
    _, ret, _ = jax.lax.while_loop(lambda c: ~c[0].terminated, body, (s, ret, jnp.int32(0)))
    return ret


def rest_of_game(env, s, key, policy: Callable | None = None, policy_params=None,
                 value_fn: Callable | None = None) -> Array:
    """float[P]: what each seat gets from ``s`` on: a playout by ``policy`` (uniformly random by
    default) or, with ``value_fn(state) -> float[T]``, the network's team values (0 at the end)."""
    if value_fn is None:
        return _playout(env, policy, policy_params, s, key)
    return jnp.where(s.terminated, 0.0, jnp.asarray(value_fn(s))[env.seat_teams(s)])


def searched_rest(env, s, key, *, iterations: int, k: float, policy: Callable | None = None,
                  policy_params=None, value_fn: Callable | None = None) -> Array:
    """float[P]: what each seat gets from ``s`` on, found by searching ``s`` as it is (one tree of
    cheating UCT on points, ``iterations`` long, its simulations :func:`rest_of_game`'s): the
    mean returns under the root's most visited move; 0 at the end.  PIMC's evaluator that
    searches each world (:mod:`cardjax.search.pimc`): where the best answer to a move is one of
    many, the search finds it and a playout mostly does not."""
    cfg = Config("true", 1, iterations, k, False, "score").check()
    tree = search_tree(env, cfg, s, key, policy=policy, policy_params=policy_params,
                       value_fn=value_fn)
    at_root = (tree.parent == 0) & (jnp.arange(tree.parent.shape[0]) > 0)
    best = jnp.argmax(jnp.where(at_root, tree.visits, -1))
    rest = tree.value_sum[best] / jnp.maximum(tree.visits[best], 1).astype(jnp.float32)
    return jnp.where(s.terminated, 0.0, rest)


def _utility(cfg: Config, ret: Array) -> Array:
    if cfg.utility == "win":
        return jnp.where(ret > 0, 1.0, jnp.where(ret < 0, 0.0, 0.5)).astype(jnp.float32)
    return ret


def search_tree(env, cfg: Config, state, key, *, policy: Callable | None = None,
                policy_params=None, value_fn: Callable | None = None,
                sample_worlds: Callable | None = None) -> Tree:
    """One tree of ``cfg.iterations`` iterations from ``state`` (for its current player).

    ``policy(params, key, state) -> action`` plays the simulations (default uniformly random);
    ``value_fn(state) -> float[T]`` (team values, e.g. ``mcts.zero_value`` or a trained network
    closed over its params) replaces them at the new node when given.  ``sample_worlds(key,
    state, seat, n) -> n worlds`` draws the determinizations instead of ``env.sample_hidden``
    (e.g. in proportion to a card-location network's predictions): the tree's one world, or all
    its iterations' worlds at once (``worlds="iteration"``)."""
    seat = state.current_player
    n = cfg.iterations + 1
    k_world, k_iter = jax.random.split(key)
    if sample_worlds is not None and cfg.worlds != "true":
        drawn = sample_worlds(k_world, state, seat,
                              cfg.iterations if cfg.worlds == "iteration" else 1)
        fixed = jax.tree_util.tree_map(lambda x: x[0], drawn)

        def world_at(i, k_d):
            if cfg.worlds == "iteration":
                return jax.tree_util.tree_map(lambda x: x[i], drawn)
            return fixed
    else:
        fixed = state if cfg.worlds == "true" else env.sample_hidden(k_world, state, seat)

        def world_at(i, k_d):
            return env.sample_hidden(k_d, state, seat) if cfg.worlds == "iteration" else fixed

    def iteration(i, tree):
        k_d, k_walk, k_play = jax.random.split(jax.random.fold_in(k_iter, i), 3)
        world = world_at(i, k_d)
        tree, leaf, path, depth, ret = _walk(env, cfg, tree, world, k_walk)
        ret = ret + rest_of_game(env, leaf, k_play, policy, policy_params, value_fn)
        on_path = jnp.arange(path.shape[0]) < depth
        where = jnp.where(on_path, path, n)  # off the path: dropped
        return tree.replace(
            visits=tree.visits.at[where].add(1, mode="drop"),
            value_sum=tree.value_sum.at[where].add(_utility(cfg, ret), mode="drop"))

    return jax.lax.fori_loop(0, cfg.iterations, iteration, _empty_tree(n, env.num_players, env.num_actions))


def _concrete(x):
    """``x`` as a NumPy value outside ``jit``; ``None`` while tracing."""
    return None if isinstance(x, jax.core.Tracer) else x


def search(env, cfg: Config, state, key, *, seat=None, policy: Callable | None = None,
           policy_params=None, value_fn: Callable | None = None,
           sample_worlds: Callable | None = None) -> Result:
    """Search ``cfg.trees`` trees from ``state`` (one game) and sum their root visits
    (``sample_worlds``: :func:`search_tree`'s).

    Raises ``ValueError`` (when the arguments are concrete, i.e. outside ``jit``) for a finished
    game or a ``seat`` that is not to move.  Under ``jit`` nothing is checked: the search is for
    ``state.current_player`` and a finished game gives action 0 with no visits."""
    cfg = cfg.check()
    done = _concrete(state.terminated)
    if done is not None and bool(done):
        raise ValueError("cannot search from a finished game (state.terminated is True)")
    mover = _concrete(state.current_player)
    if seat is not None and mover is not None and int(seat) != int(mover):
        raise ValueError(f"seat {int(seat)} is not to move; seat {int(mover)} is")
    keys = jax.random.split(key, cfg.trees)
    trees = jax.vmap(lambda k: search_tree(env, cfg, state, k, policy=policy,
                                           policy_params=policy_params, value_fn=value_fn,
                                           sample_worlds=sample_worlds))(keys)
    a = env.num_actions
    at_root = (trees.parent == 0) & (jnp.arange(trees.parent.shape[1]) > 0)
    slot = jnp.where(at_root, trees.action, a)
    visits = jnp.zeros(a, jnp.int32).at[slot].add(trees.visits, mode="drop")
    share = team_share(env, state)[state.current_player]
    summed = jnp.zeros(a, jnp.float32).at[slot].add(trees.value_sum @ share, mode="drop")
    values = jnp.where(visits > 0, summed / jnp.maximum(visits, 1), jnp.nan)
    return Result(jnp.argmax(visits).astype(jnp.int32), visits, values, trees)


def make_act(env, cfg: Config, *, policy: Callable | None = None,
             value_fn: Callable | None = None, sample_worlds: Callable | None = None) -> Callable:
    """``act(params, key, state) -> action`` playing :func:`search` (an agent's ``act``).
    ``params`` go to the playout ``policy(params, key, state)`` or to ``value_fn(params,
    state)``, so one compiled ``act`` serves new weights.  With ``sample_worlds(key, state, seat,
    n, params) -> n worlds`` (:func:`cardjax.inference.worlds.sampler`) the determinizations are
    its, and ``params`` is the pair ``(sampler's params, the policy's or value's)``."""
    cfg = cfg.check()
    if policy is not None and value_fn is not None:
        raise ValueError("give a playout policy or a value function at the leaves, not both")
    if sample_worlds is not None and cfg.worlds == "true":
        raise ValueError("cheating UCT searches the true state: it draws no worlds")

    def run(params, key, state):
        draw = None
        if sample_worlds is not None:
            world_params, params = params
            draw = lambda k, s, seat, n: sample_worlds(k, s, seat, n, world_params)  # noqa: E731
        vf = None if value_fn is None else (lambda s: value_fn(params, s))
        return search(env, cfg, state, key, policy=policy, policy_params=params,
                      value_fn=vf, sample_worlds=draw).action

    return only_choices(env, run)


def only_choices(env, run: Callable) -> Callable:
    """``act(params, key, state)``: ``run``'s action where the state has a choice, else its one
    legal action without searching (the same action: a search of one child picks it).  Under
    ``vmap`` on CPU the searches run on the games with a choice alone (:func:`cardjax.gate.gated`):
    Tractor's declaration turns and Dou Dizhu's forced passes cost nothing."""

    def one_action(params, key, state):
        return legal_words.first(env.legal_words(state)).astype(jnp.int32)

    def act(params, key, state):
        choice = legal_words.count(env.legal_words(state)) > 1
        return gated(choice & ~state.terminated, run, one_action, params, key, state)

    return act
