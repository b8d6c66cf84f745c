"""Growing a network into a wider and deeper one (cardjax.nets.growth): the grown network
computes the player's function, its copied units part at the first gradient step, and sizes
that cannot grow so are refused in one line."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from cardjax.nets import growth, policy_value
from cardjax.nets.dmc import q_net

SMALL_Q = {"lstm": 8, "width": 16, "depth": 2, "head_width": 8, "head_depth": 2}
BIG_Q = {"lstm": 8, "width": 48, "depth": 4, "head_width": 16, "head_depth": 3}
HISTORY = (3, 5)  # steps, features a step
FEATURES, ACTIONS = 12 + HISTORY[0] * HISTORY[1], 6


def qnet(sizes):
    return q_net.QNet(history_steps=HISTORY[0], history_size=HISTORY[1], **sizes)


def q_inputs(seed=0, states=4, candidates=5):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(states, FEATURES)).astype(np.float32),
            rng.integers(0, 2, (states, candidates, ACTIONS)).astype(np.float32))


def roles(init, n=3):
    """``n`` networks stacked on a leading axis, as a DMC player keeps one per role."""
    trees = [init(k) for k in range(n)]
    return jax.tree_util.tree_map(lambda *x: np.stack(x), *trees)


@pytest.fixture(scope="module")
def grown_q():
    obs, act = q_inputs()
    small = roles(lambda k: jax.device_get(qnet(SMALL_Q).init(jax.random.PRNGKey(k), obs, act)))
    big = q_net.grow(small, None, SMALL_Q, BIG_Q, np.random.default_rng(0))
    return small, big


def test_grown_q_net_scores_every_candidate_as_the_player(grown_q):
    small, big = grown_q
    shapes = jax.eval_shape(qnet(BIG_Q).init, jax.random.PRNGKey(0), *q_inputs())
    assert jax.tree_util.tree_structure(shapes) == jax.tree_util.tree_structure(
        jax.tree_util.tree_map(lambda x: x[0], big))
    for role in range(3):
        for seed in range(3):
            obs, act = q_inputs(seed)
            q0 = qnet(SMALL_Q).apply(jax.tree_util.tree_map(lambda x: x[role], small), obs, act)
            q1 = qnet(BIG_Q).apply(jax.tree_util.tree_map(lambda x: x[role], big), obs, act)
            assert float(jnp.abs(q0).mean()) > 1e-3  # not a trivially zero network
            np.testing.assert_allclose(np.asarray(q1), np.asarray(q0), rtol=1e-5, atol=1e-5)


def test_the_copies_part_at_the_first_step(grown_q):
    big = jax.tree_util.tree_map(lambda x: x[0], grown_q[1])
    obs, act = q_inputs(7)

    def loss(p):
        return jnp.mean((qnet(BIG_Q).apply(p, obs, act) - 1.0) ** 2)

    grads = jax.grad(loss)(big)["params"]
    # trunk_0's output columns are three copies of 16 units: same weights, different gradients
    kernel, g = big["params"]["trunk_0"]["kernel"], np.asarray(grads["trunk_0"]["kernel"])
    np.testing.assert_array_equal(kernel[:, :16], kernel[:, 16:32])
    assert np.abs(g[:, :16] - g[:, 16:32]).max() > 1e-6
    # the shares of a split weight sum to it exactly, and differ
    shares = np.asarray(big["params"]["trunk_1"]["kernel"])
    assert not np.allclose(shares[:16], shares[16:32])


def test_grown_policy_value_net_is_the_player():
    small_net, big_net = (policy_value.PolicyValueNet(width=16, depth=1),
                          policy_value.PolicyValueNet(width=64, depth=3))
    x = np.random.default_rng(3).normal(size=(6, 20)).astype(np.float32)
    small = jax.device_get(small_net.init(jax.random.PRNGKey(1), x))
    fresh = jax.device_get(big_net.init(jax.random.PRNGKey(2), x))
    big = policy_value.grow(small, fresh, {"width": 16, "depth": 1}, {"width": 64, "depth": 3},
                            np.random.default_rng(0))
    (l0, v0), (l1, v1) = small_net.apply(small, x), big_net.apply(big, x)
    np.testing.assert_allclose(np.asarray(l1), np.asarray(l0), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(v1), np.asarray(v0), rtol=1e-4, atol=1e-3)
    # a new block starts as the identity and keeps its first layer's fresh weights
    np.testing.assert_array_equal(big["params"]["block_2"]["Dense_1"]["kernel"], 0)
    np.testing.assert_array_equal(big["params"]["block_2"]["Dense_0"]["kernel"],
                                  fresh["params"]["block_2"]["Dense_0"]["kernel"])


@pytest.mark.parametrize("change, words", [
    ({"width": 40}, "width 40 is not a multiple of the player's 16"),
    ({"head_width": 4}, "head_width 4 is not a multiple of the player's 8"),
    ({"depth": 1}, "depth 1 is smaller than the player's 2"),
    ({"lstm": 16}, "lstm 16 differs from the player's 8"),
])
def test_sizes_that_cannot_grow_are_one_line(change, words):
    with pytest.raises(ValueError) as e:
        q_net.check_grow(SMALL_Q, {**SMALL_Q, **change})
    assert str(e.value) == words
    with pytest.raises(ValueError, match="depth 0"):
        q_net.check_grow({**SMALL_Q, "depth": 0}, {**SMALL_Q, "depth": 1})
    with pytest.raises(ValueError, match="not a multiple"):
        policy_value.check_grow({"width": 16, "depth": 1}, {"width": 24, "depth": 1})


def test_split_shares_sum_to_the_weight():
    kernel = np.random.default_rng(0).normal(size=(2, 5, 3)).astype(np.float32)
    parts = growth.split_in(kernel, 4, np.random.default_rng(1))
    assert parts.shape == (2, 20, 3)
    np.testing.assert_allclose(parts.reshape(2, 4, 5, 3).sum(axis=1), kernel, rtol=1e-6,
                               atol=1e-6)
