"""A plain single-root Python implementation of :mod:`cardjax.search.uct`: the reference the
batched search is tested against (tests/unit/test_uct.py, test_move_groups.py) and timed beside
(cardjax bench search).  The tree is Python lists walked one node at a time, the env is
called one step at a time.  It draws its
random numbers exactly as the batched search does, so on the same key both build the same trees.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from cardjax import legal_words


class _Node:
    def __init__(self, parent, action, p):
        self.parent, self.action = parent, action
        self.visits, self.avail = 0, 0
        self.value = np.zeros(p, np.float32)
        self.children = []  # node ids in creation order


def env_fns(env):
    return dict(step=jax.jit(env.step), hidden=jax.jit(env.sample_hidden),
                words=jax.jit(env.legal_words), rand=jax.jit(env.random_action),
                teams=jax.jit(env.seat_teams))


def search(env, cfg, state, key, fns=None):
    """``(visits per root action int[A], [trees as lists of _Node])``."""
    f = fns or env_fns(env)
    a_n, p_n = env.num_actions, env.num_players
    seat = state.current_player
    visits = np.zeros(a_n, np.int64)
    all_trees = []
    for tree_key in jax.random.split(key, cfg.trees):
        k_world, k_iter = jax.random.split(tree_key)
        fixed = state if cfg.worlds == "true" else f["hidden"](k_world, state, seat)
        nodes = [_Node(-1, -1, p_n)]
        for i in range(cfg.iterations):
            k_d, k_walk, k_play = jax.random.split(jax.random.fold_in(k_iter, i), 3)
            s = f["hidden"](k_d, state, seat) if cfg.worlds == "iteration" else fixed
            node, path, depth = 0, [0], 1
            ret = np.zeros(p_n, np.float32)
            while not bool(s.terminated):
                words = f["words"](s)
                legal = set(np.flatnonzero(np.asarray(legal_words.unpack(words, a_n))).tolist())
                here = [c for c in nodes[node].children if nodes[c].action in legal]
                for c in here:
                    nodes[c].avail += 1
                if len(here) < len(legal) and len(nodes) < cfg.iterations + 1:
                    free = np.asarray(words).copy()
                    for c in here:
                        a = nodes[c].action
                        free[a // 32] &= ~np.uint32(1 << (a % 32))
                    a = int(legal_words.sample(jax.random.fold_in(k_walk, depth), jnp.asarray(free)))
                    nodes.append(_Node(node, a, p_n))
                    nodes[-1].avail = 1
                    nodes[node].children.append(len(nodes) - 1)
                    child = len(nodes) - 1
                elif not here:
                    break
                else:
                    teams = np.asarray(f["teams"](s))
                    mine = (teams == teams[int(s.current_player)]).astype(np.float32)
                    share = mine / mine.sum()
                    best, best_u = None, -np.inf
                    for c in sorted(here, key=lambda c: nodes[c].action):  # ties: lowest action
                        n = nodes[c]
                        q = np.float32(np.dot(n.value, share)) / np.float32(n.visits)
                        base = n.avail if cfg.availability else nodes[node].visits
                        u = q + np.float32(cfg.k) * np.sqrt(
                            np.float32(math.log(max(base, 1))) / np.float32(n.visits))
                        if u > best_u:
                            best, best_u = c, u
                    child = best
                s = f["step"](s, nodes[child].action)
                ret += np.asarray(s.rewards)
                path.append(child)
                depth += 1
                node = child
                if len(nodes[child].children) == 0 and nodes[child].visits == 0:
                    break  # the node just added: simulate from it
            j = 0
            while not bool(s.terminated):
                s = f["step"](s, f["rand"](jax.random.fold_in(k_play, j), s))
                ret += np.asarray(s.rewards)
                j += 1
            if cfg.utility == "win":
                ret = np.where(ret > 0, 1.0, np.where(ret < 0, 0.0, 0.5)).astype(np.float32)
            for n in path:
                nodes[n].visits += 1
                nodes[n].value += ret
        for c in nodes[0].children:
            visits[nodes[c].action] += nodes[c].visits
        all_trees.append(nodes)
    return visits, all_trees
