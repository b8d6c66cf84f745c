"""Seeded random playouts of Dou Dizhu (with and without bidding) and the rule player's games give
exactly the games they gave before the compact legal-move representation: the digests below were
computed with the full 27,472-entry boolean mask stored in every state."""

from __future__ import annotations

import jax
import pytest

import cardjax
from conftest import sha16
import cardjax.agents

GAMES, STEPS = 16, 170


def digest(env, seed: int, agent=None) -> str:
    """sha256 of every action, current player, reward and hand along ``STEPS`` vmapped steps."""
    act = (jax.vmap(lambda k, s: env.random_action(k, s)) if agent is None
           else jax.vmap(lambda k, s: agent.act(None, k, s)))

    @jax.jit
    def run(key):
        state = jax.vmap(env.init)(jax.random.split(key, GAMES))

        def one(state, k):
            a = act(jax.random.split(k, GAMES), state)
            nxt = jax.vmap(env.step)(state, a)
            return nxt, (a, state.current_player, nxt.rewards, nxt._hands, nxt.terminated)

        return jax.lax.scan(one, state, jax.random.split(jax.random.key(seed + 1), STEPS))[1]

    return sha16(run(jax.random.key(seed)))


PINNED = {
    ("random", False): "5db35ee924cc34c7",
    ("random", True): "965dda9131a6f96d",
    ("rule", False): "68657553f3e5a3a5",
    ("rule", True): "285df82af816b2bc",
}


@pytest.mark.parametrize("player, bidding", list(PINNED))
def test_seeded_games_unchanged(player, bidding):
    env = cardjax.make("doudizhu", bidding=bidding)
    agent = None if player == "random" else cardjax.agents.get(env, "rule")
    assert digest(env, 7, agent) == PINNED[(player, bidding)]


def test_the_gpus_gate_plays_the_same_games(monkeypatch):
    """Both branches computed for every game and selected (``CARDJAX_GATE=select``, what a GPU
    runs by default) give the pinned games too."""
    env = cardjax.make("doudizhu")
    keys = jax.random.split(jax.random.key(0), 4)
    states = jax.vmap(env.init)(keys)

    def loops():  # the CPU's gathered rows run in a while loop; selecting has none
        return str(jax.make_jaxpr(jax.vmap(env.random_action))(keys, states)).count("while[")

    assert loops() == 1
    monkeypatch.setenv("CARDJAX_GATE", "select")
    env = cardjax.make("doudizhu")  # its programs traced afresh under the switch
    assert loops() == 0
    assert digest(env, 7) == PINNED[("random", False)]
