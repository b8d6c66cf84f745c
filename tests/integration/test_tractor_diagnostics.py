"""Tractor diagnostics (cardjax.games.tractor.diagnostics, cardjax diagnose): the
phase mix, the point swing of a step, and the play statistics of the rule player and of random
play (one compile each)."""

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax import agents
from cardjax.agents import Agent
from cardjax.games.tractor import diagnostics as td
from cardjax.games.tractor import env as T
from cardjax.games.tractor import state_facts
from cardjax.games.tractor import cards as TC
from cardjax.commands import diagnose as diagnose_command


@pytest.fixture(scope="module")
def env():
    return cardjax.make("tractor")


def constant(name):  # a player that always answers its params
    return Agent(name, lambda params, key, state: jnp.int32(params), None)


def test_phase_mix_takes_each_phase_from_its_player(env):
    mix = td.phase_mix(constant("a")._replace(params=60), constant("b")._replace(params=7))
    assert mix.name == "a pre-round + b tricks"
    key = jax.random.PRNGKey(0)
    dealing = env.init(key)
    assert int(dealing.phase) == T.DECLARE and int(mix.act(mix.params, key, dealing)) == 60
    tricks = env.trick_state(["A♥", "K♥", "3♥", "5♥"], 2, "S")
    assert int(mix.act(mix.params, key, tricks)) == 7


def test_follow_mix_takes_the_follows_from_its_player(env):
    mix = td.follow_mix(constant("a")._replace(params=60), constant("b")._replace(params=7))
    assert mix.name == "a leads + b follows"
    key = jax.random.PRNGKey(0)
    assert int(mix.act(mix.params, key, env.init(key))) == 60  # the pre-round
    tricks = env.trick_state(["A♥", "K♥", "3♥", "5♥"], 2, "S")
    assert int(mix.act(mix.params, key, tricks)) == 60  # a lead
    step = jax.jit(env.step)
    followed = step(step(tricks, TC.card_type("A♥")), T.DONE)
    assert int(mix.act(mix.params, key, followed)) == 7
    last = td.follow_mix(constant("a")._replace(params=60), constant("b")._replace(params=7),
                         places=(3,))
    assert last.name == "a leads + b follows 3"
    assert int(last.act(last.params, key, followed)) == 60  # the second play: a's
    third = step(step(followed, TC.card_type("K♥")), TC.card_type("3♥"))
    assert int(last.act(last.params, key, third)) == 7
    with pytest.raises(ValueError, match="places"):
        td.follow_mix(constant("a"), constant("b"), places=(0,))


def test_point_swing_of_a_trick(env):
    """Seat 1 (a defender: seat 0 deals) leads K♥; seat 0 takes the trick with A♥ last: the
    dealer's team gains the 15 points it holds -- as defenders, against the attackers."""
    s = env.trick_state(["A♥ 4♥", "K♥ 9♣", "3♥ 8♣", "5♥ 6♣"], 2, "S", leader=1, dealer=0)
    for c in ("K♥", "done", "3♥", "5♥"):
        s = env.step(s, T.NUM_TYPES if c == "done" else TC.card_type(c))
    after = env.step(s, TC.card_type("A♥"))
    np.testing.assert_array_equal(state_facts.point_swing(s, after), [15, -15, 15, -15])
    ducked = env.step(s, TC.card_type("4♥"))
    np.testing.assert_array_equal(state_facts.point_swing(s, ducked), [-15, 15, -15, 15])
    np.testing.assert_array_equal(state_facts.point_swing(s, s), 0)


def test_rule_player_statistics_and_script(env, tmp_path):
    """The rule player never fails a throw, leads about one card and takes the most points as
    the last seat (hand-checked rate 95-97% over 64 deals); the script writes the same."""
    out = tmp_path / "diag.json"
    result = diagnose_command.main(["rule", "--deals", "8", "--batch", "8", "--no-mix", "--json",
                          str(out)])
    stats = result["play_vs_random"]
    assert json.loads(out.read_text())["play_vs_random"] == stats
    assert stats["leads"] > 100 and stats["failed_throw_rate"] == 0.0
    assert stats["cards_per_lead"] < 1.5
    assert stats["last_seat_decisions"] > 30 and stats["last_seat_best_rate"] > 0.85
    assert result["phase_mix_vs_random"] == []
    with pytest.raises(SystemExit):
        diagnose_command.main(["no_such_player", "--no-mix"])


def test_random_play_statistics(env):
    rnd = agents.get(env, "random")
    stats = td.play_stats(env, rnd, rnd, deals=8, seed=3, batch=8)
    assert stats["failed_throw_rate"] > 0.3 and stats["cards_per_lead"] > 1.8
    assert 0.2 < stats["last_seat_best_rate"] < 0.65 and stats["last_seat_shortfall"] > 3
    with pytest.raises(ValueError, match="deals"):
        td.play_stats(env, rnd, rnd, deals=0)
