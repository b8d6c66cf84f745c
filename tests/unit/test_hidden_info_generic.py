"""The generic hidden-information player (cardjax.search.hidden_info) on the games other than
Gongzhu (tests/unit/test_hidden_info.py has ScrofaZero's Gongzhu worlds).

Mini Dou Di Zhu, Dou Dizhu and Tractor, uniform worlds through ``env.sample_hidden``, a value
function of zeros and a tiny budget: the decision is legal, a position with one legal action
plays it, the worlds agree with what the seat sees, and with ``sample_hidden`` replaced by the
identity (every world is the true state) the decision is MCTS's on the true state.  Small
compiles (a few seconds each).
"""

from __future__ import annotations

import functools

import jax
import numpy as np
import pytest

import cardjax
from cardjax.search import hidden_info as hi
from cardjax.search import mcts
from conftest import get_compiled, to_numpy, tree_index

W = 3
B, K, MAX_SIMS = 4, 1, 12
GAMES = ("mini_doudizhu", "doudizhu", "tractor")


@functools.lru_cache(maxsize=None)
def _game(name):
    """``(compiled, positions, decide)`` of a game: ``positions = (many, single)`` are
    non-terminal positions of random games with several legal actions (an early one and the last
    one of each game, where a search sees the game's end) and with exactly one;
    ``decide(key, state)`` is jitted with uniform worlds and a zero value."""
    c = get_compiled(name)
    _, states, _ = to_numpy(c.batch_rollout(jax.random.split(jax.random.PRNGKey(3), 8)))
    n_legal = np.asarray(c.legal_action_mask(states)).sum(-1)  # under jit (Dou Dizhu's is built)
    many, single = [], []
    for g in range(4):
        live = np.flatnonzero(~states.terminated[g])
        several = [t for t in live if n_legal[g, t] > 1]
        many += [tree_index(states, (g, t)) for t in (several[0], several[-1])]
        single += [tree_index(states, (g, t)) for t in live if n_legal[g, t] == 1][:1]
    assert single, name
    decide = jax.jit(functools.partial(hi.decide, c.env, mcts.zero_value(c.env), worlds=W, b=B,
                                       k=K, max_simulations=MAX_SIMS))
    return c, (many, single[:2]), decide


@pytest.mark.parametrize("name", GAMES)
def test_uniform_worlds_legal_decision(name):
    """Legal moves; the only legal move when there is one; every world agrees with what the seat
    sees (the same observation) and the unseen cards are re-dealt."""
    c, (many, single), decide = _game(name)
    moved = 0
    for i, s in enumerate(many + single):
        a, info = to_numpy(decide(jax.random.PRNGKey(i), s))
        legal = np.asarray(c.legal_action_mask(s))
        assert legal[int(a)], (i, int(a))
        if legal.sum() == 1:
            assert int(a) == int(np.argmax(legal))
        np.testing.assert_allclose(info["weights"], 1.0 / W, rtol=1e-6)
        assert info["valid"].all() and np.all(info["log_weight"] == 0)
        assert int(info["num_simulations"]) == min(B + K * int(legal.sum()), MAX_SIMS)
        assert np.all(np.isneginf(info["values"][~legal]))
        seat = int(s.current_player)
        seen = np.asarray(c.observe(s, seat))
        for w in range(W):
            world = tree_index(info["states"], w)
            np.testing.assert_array_equal(np.asarray(c.observe(world, seat)), seen)
            for f in s.__dataclass_fields__:
                if not f.startswith("_"):
                    np.testing.assert_array_equal(getattr(world, f), getattr(s, f), err_msg=f)
            moved += any(not np.array_equal(getattr(world, f), getattr(s, f))
                         for f in s.__dataclass_fields__ if f.startswith("_"))
    assert moved >= W * len(many) // 2


# the code is game-agnostic: two games, without Tractor's long search compile
@pytest.mark.parametrize("name", GAMES[:2])
def test_identity_worlds_are_mcts_on_the_true_state(name):
    """``sample_hidden`` = the identity: one world, the true state; decide's values are the root
    child values of ``mcts.search`` on the true state with decide's search key, and the move is
    the best of them."""
    _, (many, single), _ = _game(name)
    env = cardjax.make(name)  # a fresh object: the shared compiled env stays intact
    env.sample_hidden = lambda key, state, seat: state
    decide = jax.jit(functools.partial(hi.decide, env, mcts.zero_value(env), worlds=1, b=B, k=K,
                                       max_simulations=MAX_SIMS))

    @jax.jit
    def search(key, state):
        n = mcts.simulations(state.legal_action_mask, B, K, MAX_SIMS)
        key = jax.random.split(jax.random.split(key)[1], 1)[0]  # decide's key for world 0
        return mcts.search(env, mcts.zero_value(env), state, key, max_simulations=MAX_SIMS,
                           num_simulations=n)

    nonzero = 0
    for i, s in enumerate(many + single):
        key = jax.random.PRNGKey(10 + i)
        a, info = to_numpy(decide(key, s))
        out = to_numpy(search(key, s))
        for f in s.__dataclass_fields__:
            if isinstance(getattr(s, f), int):  # a static field (Dou Dizhu's num_actions)
                continue
            np.testing.assert_array_equal(getattr(info["states"], f)[0], getattr(s, f))
        legal = np.asarray(get_compiled(name).legal_action_mask(s))
        np.testing.assert_array_equal(info["child_values"][0], out.child_values)
        np.testing.assert_array_equal(info["child_visits"][0], out.child_visits)
        np.testing.assert_allclose(info["values"], out.child_values, rtol=1e-6)
        want = np.argmax(out.child_values) if legal.sum() > 1 else np.argmax(legal)
        assert int(a) == int(want)
        nonzero += np.any(np.abs(out.child_values[legal]) > 0)
    assert nonzero >= 1  # some search saw a reward, so the values are not all ties


def test_make_agent_plays_decide():
    """The generic agent (default value: zeros, default sampler: uniform) plays ``decide``."""
    c, (many, _), decide = _game("mini_doudizhu")
    agent = hi.make_agent(c.env, worlds=W, b=B, k=K, max_simulations=MAX_SIMS)
    assert agent.name == "hidden_info"
    act = jax.jit(agent.act)
    for i, s in enumerate(many[:3]):
        key = jax.random.PRNGKey(20 + i)
        assert int(act(None, key, s)) == int(decide(key, s)[0])
