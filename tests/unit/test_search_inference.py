"""Determinized UCT and ISMCTS with their worlds drawn by a sampler (``inference=`` of the search
players): the true state as every world makes determinized UCT cheating UCT, tree for tree; a
card-location network's worlds keep the seat's view and give a legal search player."""

import jax
import numpy as np
import pytest

import cardjax
from cardjax import agents, artifact
from cardjax.agents import world_sources
from cardjax.search import uct


def _mid_game(env, plies: int, seed: int = 4):
    s = env.init(jax.random.PRNGKey(seed))
    for _ in range(plies):
        s = env.step(s, int(np.flatnonzero(np.asarray(s.legal_action_mask))[0]))
    return s


def test_det_uct_on_true_worlds_is_cheating_uct():
    """Every tree's world the true state (``inference="oracle"``): the same trees, visit for
    visit, as cheating UCT from the same key."""
    env = cardjax.make("mini_doudizhu")
    s = _mid_game(env, 3)
    key = jax.random.PRNGKey(7)
    oracle, _, tag = world_sources.sampler(env, "oracle")
    assert tag == "+oracle"
    cheat = jax.jit(lambda s, k: uct.search(env, uct.cheat_uct(3, 40), s, k).visits)(s, key)
    det = jax.jit(lambda s, k: uct.search(
        env, uct.det_uct(3, 40), s, k,
        sample_worlds=lambda k, st, seat, n: oracle(k, st, seat, n)).visits)(s, key)
    np.testing.assert_array_equal(np.asarray(det), np.asarray(cheat))
    assert int(np.sum(np.asarray(det))) == 3 * 40
    with pytest.raises(ValueError, match="draws no worlds"):
        agents.get(env, "cheat_uct", inference="oracle")


@pytest.fixture(scope="module")
def gongzhu_network(tmp_path_factory):
    """An (untrained) card-location network of Gongzhu as an artifact."""
    from cardjax.train.inference import Config, make_trainer

    env = cardjax.make("gongzhu")
    cfg = Config(width=16, depth=1)
    params = make_trainer(cfg, env).init(jax.random.PRNGKey(0)).params
    out = str(tmp_path_factory.mktemp("net") / "player")
    artifact.write(out, artifact.describe("inference", "gongzhu", network=cfg.to_dict(),
                                          env={}), params)
    return env, out


def test_ismcts_draws_its_worlds_from_a_network(gongzhu_network):
    """ISMCTS with ``inference=NETWORK``: the sampler's worlds keep the seat's view (drawn once
    for all the iterations), and the player searches them to a legal move."""
    env, net = gongzhu_network
    s = _mid_game(env, 9)
    seat = int(s.current_player)
    sample, params, tag = world_sources.sampler(env, net)
    worlds = jax.jit(lambda k, s: sample(k, s, seat, 5, params))(jax.random.PRNGKey(2), s)
    for w in range(5):
        world = jax.tree_util.tree_map(lambda x: x[w], worlds)
        np.testing.assert_array_equal(np.asarray(env.observe(world, seat)),
                                      np.asarray(env.observe(s, seat)))
    me = agents.get(env, "ismcts", iterations=30, inference=net)
    assert me.name == "ismcts" + tag == "ismcts+inference"
    a = int(jax.jit(me.act)(me.params, jax.random.PRNGKey(3), s))
    assert bool(s.legal_action_mask[a])
