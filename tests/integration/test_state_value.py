"""The state value trainer (cardjax.train.state_value, cardjax train state_value) and its network
(cardjax.nets.state_value): its targets are the rewards each position's seat to act still
receives, it learns more than the best constant, a resumed run is the uninterrupted one, its
player/ values PIMC's positions as the run does (team values that sum to zero), and bad input is
refused."""

from __future__ import annotations

import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax import agents, artifact, corpus
from cardjax.corpus.batches import to_device
from cardjax.commands import corpus as corpus_command
from cardjax.commands.train import state_value as recipe
from cardjax.nets.state_value.network import make_value
from cardjax.train.state_value import Config, cached_trainer, positions
import conftest

SMALL = ["--width", "32", "--depth", "1", "--batch_games", "16", "--batch", "256",
         "--no-progress"]
SMALL_CFG = Config(width=32, depth=1, batch_games=16, batch=256)


@pytest.fixture(scope="module")
def rule_corpus(tmp_path_factory):
    """1,000 Dou Dizhu games of three rule players (fixed landlord)."""
    out = str(tmp_path_factory.mktemp("corpus") / "rule")
    corpus_command.main(["--game", "doudizhu", "--players", "rule", "--games", "1000", "--out",
                         out, "--batch", "1000", "--no-progress"])
    return out


@pytest.fixture(scope="module")
def run(rule_corpus, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("value") / "run")
    recipe.main(["--corpus", rule_corpus, "--out", out, "--iterations", "300", "--eval_every",
                 "300", "--eval_games", "64"] + SMALL)
    return out


class StepPay:
    """Dou Dizhu paying 0.25 to the seat that moves at every step (and its own rewards at the
    end), so that rewards arrive before a game's last position."""

    def __init__(self, env):
        self.env = env

    def __getattr__(self, name):
        return getattr(self.env, name)

    def step(self, state, action):
        s = self.env.step(state, action)
        pay = jnp.where(jnp.arange(3) == state.current_player, 0.25, 0.0)
        return s.replace(rewards=s.rewards + jnp.where(state.terminated, 0.0, pay))


def test_targets_are_the_rewards_still_to_come(rule_corpus):
    c, _ = corpus.open_with_env(rule_corpus)
    g = next(c.games("train", 4))
    for env in (cardjax.make("doudizhu"), StepPay(cardjax.make("doudizhu"))):
        st, to_come, live = jax.device_get(jax.jit(
            lambda s, a, env=env: positions(env, s, a))(*to_device(g)))
        T = g.actions.shape[1]
        to_come, live = to_come.reshape(T, 4), live.reshape(T, 4)
        mover = st.current_player.reshape(T, 4)
        step = jax.jit(env.step)
        for b in range(4):  # stepping the game by hand, the rewards after each position
            s = jax.tree_util.tree_map(lambda x: x[b], g.state)
            seen = []
            for t in range(int(g.length[b])):
                seen.append(int(s.current_player))
                s = step(s, int(g.actions[b, t]))
                seen[-1] = (seen[-1], np.asarray(s.rewards))
            assert live[:, b].sum() == g.length[b]
            for t, (seat, _) in enumerate(seen):
                after = sum(r for _, r in seen[t:])
                assert mover[t, b] == seat
                np.testing.assert_allclose(to_come[t, b], after[seat], atol=1e-6)
            if isinstance(env, StepPay):  # the first mover is paid before the end
                assert to_come[0, b] != g.returns[b, seen[0][0]]
            else:
                np.testing.assert_allclose(to_come[:g.length[b], b],
                                           g.returns[b, mover[:g.length[b], b]])


def test_it_learns_more_than_the_best_constant(run):
    e = json.load(open(os.path.join(run, "eval.json")))["evaluations"][-1]
    assert e["mean"] < 0.95 * e["target_var"], e
    assert e["sign_right"] > 0.6, e


def test_a_resumed_run_is_the_uninterrupted_one(rule_corpus, tmp_path):
    conftest.assert_corpus_run_resumes(
        recipe.main, ["--corpus", rule_corpus, "--eval_every", "1", "--eval_games", "16"] + SMALL,
        tmp_path)


def test_its_player_values_positions_for_pimc(run, rule_corpus):
    env = cardjax.make("doudizhu")
    art = artifact.read(os.path.join(run, "player"))
    assert art.kind == "state_value" and art.game == "doudizhu"
    c, _ = corpus.open_with_env(rule_corpus)
    g = next(c.games("valid", 16))
    t = cached_trainer(SMALL_CFG, env)
    pred, _, live = jax.device_get(t.score(art.params, *to_device(g)))
    value = make_value(art.meta["network"], env)
    s0 = jax.tree_util.tree_map(lambda x: jnp.asarray(x[0]), g.state)
    np.testing.assert_allclose(value(art.params, s0), pred[0], rtol=1e-5, atol=1e-5)
    value_fn, params = agents.load_value(env, run)
    teams = np.asarray(value_fn(params, s0))  # the landlord's value; each peasant's is -1/2 of it
    np.testing.assert_allclose(teams, [pred[0], -pred[0] / 2], rtol=1e-5, atol=1e-5)
    a = agents.get(env, "pimc", value=run, worlds=2, candidates=2)
    act = int(jax.jit(a.act)(a.params, jax.random.PRNGKey(1), s0))
    assert bool(s0.legal_action_mask[act])
    with pytest.raises(ValueError, match="values doudizhu positions, not gongzhu"):
        agents.load_value(cardjax.make("gongzhu"), run)


@pytest.mark.parametrize("argv, message", [
    (["--iterations", "1"], "--corpus is required"),
    (["--corpus", "/nonexistent/corpus", "--iterations", "1"], "--corpus"),
    (["--batch", "0"], "--batch: expected a positive integer"),
])
def test_bad_input_is_refused(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as e:
        recipe.main(argv + ["--out", str(tmp_path / "r"), "--no-progress"])
    assert message in str(e.value) + capsys.readouterr().err
