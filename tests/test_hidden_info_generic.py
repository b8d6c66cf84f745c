"""The generic hidden-information player (cardjax.search.hidden_info) on a game other than Gongzhu.

Mini Dou Di Zhu, uniform worlds through ``env.sample_hidden``, a value function of zeros and a
tiny budget: the decision is legal, a position with one legal action plays it, the worlds agree
with what the seat saw, and with ``sample_hidden`` replaced by the identity (every world is the
true state) the decision is MCTS's on the true state.  Three small compiles.
"""

from __future__ import annotations

import functools

import jax
import numpy as np
import pytest

import cardjax
from cardjax.search import hidden_info as hi
from cardjax.search import mcts
from conftest import to_numpy, tree_index

W = 3
B, K, MAX_SIMS = 4, 1, 12
PUBLIC = ("current_player", "legal_action_mask", "rewards", "terminated", "step_count",
          "to_beat", "played", "leader", "winner")


@pytest.fixture(scope="module")
def mini(compiled):
    return compiled("mini_doudizhu")


@pytest.fixture(scope="module")
def positions(mini):
    """Non-terminal positions of random games: ``(many, single)``, those with several legal
    actions (an early one and the last one of each game, where a search sees the game's end)
    and those with exactly one."""
    _, states, _ = to_numpy(mini.batch_rollout(jax.random.split(jax.random.PRNGKey(3), 8)))
    n_legal = states.legal_action_mask.sum(-1)
    many, single = [], []
    for g in range(4):
        live = np.flatnonzero(~states.terminated[g])
        several = [t for t in live if n_legal[g, t] > 1]
        many += [tree_index(states, (g, t)) for t in (several[0], several[-1])]
        single += [tree_index(states, (g, t)) for t in live if n_legal[g, t] == 1][:1]
    return many, single[:2]


def _decide(env):
    return jax.jit(functools.partial(hi.decide, env, mcts.zero_value(env), worlds=W, b=B, k=K,
                                     max_simulations=MAX_SIMS))


@pytest.fixture(scope="module")
def decide_uniform(mini):
    return _decide(mini.env)


def test_uniform_worlds_legal_decision(mini, decide_uniform, positions):
    many, single = positions
    moved = 0
    for i, s in enumerate(many + single):
        a, info = to_numpy(decide_uniform(jax.random.PRNGKey(i), s))
        legal = np.asarray(s.legal_action_mask)
        assert legal[int(a)], (i, int(a))
        if legal.sum() == 1:
            assert int(a) == int(np.argmax(legal))
        np.testing.assert_allclose(info["weights"], 1.0 / W, rtol=1e-6)
        assert info["valid"].all() and np.all(info["log_weight"] == 0)
        assert int(info["num_simulations"]) == min(B + K * int(legal.sum()), MAX_SIMS)
        assert np.all(np.isneginf(info["values"][~legal]))
        seat = int(s.current_player)
        for w in range(W):
            world = tree_index(info["states"], w)
            for f in PUBLIC:
                np.testing.assert_array_equal(getattr(world, f), getattr(s, f), err_msg=f)
            np.testing.assert_array_equal(world._hands[seat], s._hands[seat])
        moved += any(not np.array_equal(info["states"]._hands[w], s._hands) for w in range(W))
    assert moved >= len(many) // 2  # the unseen cards were re-dealt


def test_identity_worlds_are_mcts_on_the_true_state(positions):
    """``sample_hidden`` = the identity: one world, the true state; decide's values are the root
    child values of ``mcts.search`` on the true state with decide's search key, and the move is
    the best of them."""
    env = cardjax.make("mini_doudizhu")  # a fresh object: the shared compiled env stays intact
    env.sample_hidden = lambda key, state, seat: state
    decide = jax.jit(functools.partial(hi.decide, env, mcts.zero_value(env), worlds=1, b=B, k=K,
                                       max_simulations=MAX_SIMS))

    @jax.jit
    def search(key, state):
        n = mcts.simulations(state.legal_action_mask, B, K, MAX_SIMS)
        key = jax.random.split(jax.random.split(key)[1], 1)[0]  # decide's key for world 0
        return mcts.search(env, mcts.zero_value(env), state, key, max_simulations=MAX_SIMS,
                           num_simulations=n)

    many, single = positions
    nonzero = 0
    for i, s in enumerate(many + single):
        key = jax.random.PRNGKey(10 + i)
        a, info = to_numpy(decide(key, s))
        out = to_numpy(search(key, s))
        for f in s.__dataclass_fields__:
            np.testing.assert_array_equal(getattr(info["states"], f)[0], getattr(s, f))
        legal = np.asarray(s.legal_action_mask)
        np.testing.assert_array_equal(info["child_values"][0], out.child_values)
        np.testing.assert_array_equal(info["child_visits"][0], out.child_visits)
        np.testing.assert_allclose(info["values"], out.child_values, rtol=1e-6)
        want = np.argmax(out.child_values) if legal.sum() > 1 else np.argmax(legal)
        assert int(a) == int(want)
        nonzero += np.any(np.abs(out.child_values[legal]) > 0)
    assert nonzero >= 1  # some search reached the end of a game


def test_make_agent_plays_decide(mini, decide_uniform, positions):
    """The generic agent (default value: zeros, default sampler: uniform) plays ``decide``."""
    agent = hi.make_agent(mini.env, worlds=W, b=B, k=K, max_simulations=MAX_SIMS)
    assert agent.name == "hidden_info"
    act = jax.jit(agent.act)
    for i, s in enumerate(positions[0][:3]):
        key = jax.random.PRNGKey(20 + i)
        assert int(act(None, key, s)) == int(decide_uniform(key, s)[0])
