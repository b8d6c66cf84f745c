"""The pretrained players shipped in the package (cardjax.agents.pretrained): each loads by name
and plays a whole game of its env with only legal moves (Dou Dizhu: with its auction too)."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import cardjax
from cardjax import agents
from cardjax.agents import pretrained

CASES = [("gongzhu", {}, {"worlds": 2, "b": 2}), ("doudizhu", {}, {}),
         ("doudizhu", {"bidding": True}, {}), ("tractor", {}, {})]


@pytest.mark.parametrize("game, env_options, play", CASES)
def test_a_shipped_player_plays_a_legal_game(game, env_options, play):
    env = cardjax.make(game, **env_options)
    (name,) = pretrained.names(game)
    meta = pretrained.info(name)
    assert meta["game"] == game and meta["command"] and meta["device"]
    assert name in agents.baselines(game)
    me = agents.get(env, name, **play)
    act, step = jax.jit(me.act), jax.jit(env.step)
    key = jax.random.PRNGKey(1)
    state, moves = env.init(key), 0
    while not bool(state.terminated):
        key, k = jax.random.split(key)
        a = int(act(me.params, k, state))
        assert bool(state.legal_action_mask[a]), (game, moves, a)
        state, moves = step(state, a), moves + 1
    assert moves > 10 and np.isfinite(np.asarray(state.rewards)).all()


def test_the_shipped_files_are_small():
    import os

    total = sum(os.path.getsize(p) for g in cardjax.GAMES for n in pretrained.names(g)
                for p in pretrained.paths(n))
    assert total < 8 * 2 ** 20
