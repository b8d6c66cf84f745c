"""The pretrained players shipped in the package (cardjax.agents.pretrained): each loads by name
and plays a whole game of its env with only legal moves (Dou Dizhu: with its auction too)."""

from __future__ import annotations

import os

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
    assert meta["game"] == game and meta["lineage"]["command"] and meta["lineage"]["device"]
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


def test_the_arenas_play_options_reach_a_shipped_player_named_on_the_command_line(monkeypatch):
    """``cardjax arena --a scrofazero-pretrained --worlds 27`` plays with 27 worlds, as a player
    directory does; the word's own settings win, and a DMC player ignores them."""
    from cardjax.agents import scrofazero

    seen = {}
    monkeypatch.setattr(scrofazero, "agent_from_params",
                        lambda env, params, network, **kw: seen.update(kw) or "player")
    monkeypatch.setattr(agents, "compiled", lambda player: player)
    env = cardjax.make("gongzhu")
    arena_options = dict(worlds=27, sampling="uniform", iec=False, b=30)
    agents.load(env, "scrofazero-pretrained:b=40", **arena_options)
    assert {k: seen[k] for k in arena_options} == dict(arena_options, b=40)
    dmc = agents.load(cardjax.make("doudizhu"), "doudizhu-pretrained", **arena_options)
    assert dmc.name == "doudizhu-pretrained"


def test_the_shipped_files_are_small():
    total = sum(os.path.getsize(os.path.join(pretrained.path(n), f))
                for g in cardjax.GAMES for n in pretrained.names(g)
                for f in os.listdir(pretrained.path(n)))
    assert total < 8 * 2 ** 20


def _maps() -> int:
    with open("/proc/self/maps") as f:
        return sum(1 for _ in f)


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="needs /proc (Linux)")
@pytest.mark.parametrize("game, name", [("gongzhu", "greed"), ("doudizhu", "doudizhu-pretrained")])
def test_playing_one_state_at_a_time_compiles_once(game, name):
    """The obvious loop -- ``a = me.act(me.params, key, state)`` on one state, no jit of one's
    own -- compiles the player once: the process's memory maps stay flat from game to game
    (eager, every call added new compiled code: thousands of maps a game)."""
    env = cardjax.make(game)
    me = agents.get(env, name)
    step = jax.jit(env.step)
    counts = []
    for g in range(3):
        key = jax.random.PRNGKey(g)
        state = env.init(key)
        while not bool(state.terminated):
            key, k = jax.random.split(key)
            state = step(state, me.act(me.params, k, state))
        counts.append(_maps())
    assert counts[2] - counts[1] < 50, counts
