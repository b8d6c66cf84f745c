"""Deep Monte Carlo training (cardjax.train.dmc), its command (cardjax train douzero) and the
greedy player loaded from a run (cardjax.agents.dmc).

Sizes are tiny (4 games per iteration, 16-32 wide nets, 64 candidate slots): these tests check
the targets, the compaction, the update, exact resumption and legality, not playing strength.
One training step is compiled for the whole module (``dmc.cached_train`` keeps it across the
``main`` calls).
"""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax.agents import dmc as dmc_agent
from cardjax.eval import arena
from cardjax.games.doudizhu.env import NUM_MOVES
from cardjax.games.doudizhu.observe import OBS_SIZE
from cardjax.train import dmc
from cardjax.commands import export as export_command
from cardjax.commands.train import douzero
from conftest import (assert_refuses_to_mix, assert_same_run, assert_update_lowers_loss,
                      read_metrics, restore_newest, straight_and_resumed)


TINY = {"num_envs": 4, "k": 64, "lstm": 16, "width": 32, "depth": 1, "head_width": 32,
        "head_depth": 2, "minibatch": 64, "replay": 1}
TINY_FLAGS = [x for k, v in TINY.items() for x in (f"--{k}", str(v))] + [
    "--eval_deals", "0", "--no-progress"]
TIMING = {"seconds", "elapsed_s", "games_per_s", "frames_per_s"}


# ------------------------------------------------------------------------------- return targets
def test_returns_hand_built_episode():
    """Game 0: seats 0, 1, 2, 0 then the landlord (seat 0) wins at step 3 (rewards 2, -1, -1);
    step 4 is padding.  Game 1 never finished (truncated): all its weights are 0."""
    T, B = 5, 2
    rewards = np.zeros((T, B, 3), np.float32)
    rewards[3, 0] = [2.0, -1.0, -1.0]
    rewards[4, 1] = [5.0, 5.0, 5.0]  # never counted: game 1 is truncated
    seats = np.array([[0, 0], [1, 1], [2, 2], [0, 0], [1, 1]], np.int32)
    alive = np.array([[1, 1], [1, 1], [1, 1], [1, 1], [0, 1]], bool)
    finished = np.array([True, False])
    targets, weights = dmc.returns(jnp.asarray(rewards), jnp.asarray(seats), jnp.asarray(alive),
                                   jnp.asarray(finished), 0.5)
    targets, weights = np.asarray(targets), np.asarray(weights)
    # gamma = 0.5: the final reward of each mover's seat, discounted by the steps to the end
    np.testing.assert_allclose(targets[:, 0], [2.0 * 0.125, -1.0 * 0.25, -1.0 * 0.5, 2.0, 0.0])
    np.testing.assert_array_equal(weights[:, 0], [1, 1, 1, 1, 0])
    np.testing.assert_array_equal(weights[:, 1], 0)
    np.testing.assert_array_equal(targets[:, 1], 0)
    # gamma = 1: every decision gets its seat's final reward (landlord +2, peasants -1)
    targets, _ = dmc.returns(jnp.asarray(rewards), jnp.asarray(seats), jnp.asarray(alive),
                             jnp.asarray(finished), 1.0)
    np.testing.assert_allclose(np.asarray(targets)[:4, 0], [2.0, -1.0, -1.0, 2.0])




def test_lambda_returns_hand_built_episode():
    """Two seats: 0, 1, 0 (a forced move: no Q), 1, then rewards (+1, -1) at the last step and
    +0.5 to seat 0 after step 0.  gamma = 0.5, lambda = 0.25; Q of the moves taken 0.8, -0.4,
    (none), 0.2."""
    T = 4
    rewards = np.zeros((T, 1, 2), np.float32)
    rewards[0, 0] = [0.5, 0.0]
    rewards[3, 0] = [1.0, -1.0]
    seats = np.array([[0], [1], [0], [1]], np.int32)
    alive = np.ones((T, 1), bool)
    values = np.array([[0.8], [-0.4], [9.0], [0.2]], np.float32)
    scored = np.array([[True], [True], [False], [True]])
    args = [jnp.asarray(x) for x in (rewards, seats, alive, np.array([True]))]
    targets, _ = dmc.returns(*args, 0.5, None, jnp.asarray(values), jnp.asarray(scored), 0.25)
    g3 = [1.0, -1.0]  # step 3: seat 1's Monte-Carlo return; seat 0 sees its reward too
    t3 = g3[1]
    # step 2 (seat 0's last decision): the Monte-Carlo return
    t2 = 0.5 * g3[0]
    # step 1 (seat 1): its later decision at step 3 mixes lambda G + (1 - lambda) Q
    t1 = 0.5 * (0.5 * (0.25 * t3 + 0.75 * 0.2))
    # step 0 (seat 0): step 2 was forced (no Q), so G_2 passes on whole
    t0 = 0.5 + 0.5 * 0.5 * t2
    np.testing.assert_allclose(np.asarray(targets)[:, 0], [t0, t1, t2, t3], rtol=1e-6)
    # lambda = 1 ignores the values: the Monte-Carlo returns
    mc, _ = dmc.returns(*args, 0.5)
    lam1, _ = dmc.returns(*args, 0.5, None, jnp.asarray(values), jnp.asarray(scored), 1.0)
    np.testing.assert_array_equal(np.asarray(mc), np.asarray(lam1))
    np.testing.assert_allclose(np.asarray(mc)[:, 0], [0.5 + 0.125, -0.25, 0.5, -1.0])


def test_lambda_returns_for_some_decisions_only():
    """``lam_where``: the decisions it marks take the lambda-return, looking back through every
    later decision of their seat; the others keep the Monte-Carlo return.  The episode of
    :func:`test_lambda_returns_hand_built_episode`, every move a choice (Q 0.8, -0.4, 9.0, 0.2)."""
    T = 4
    rewards = np.zeros((T, 1, 2), np.float32)
    rewards[0, 0] = [0.5, 0.0]
    rewards[3, 0] = [1.0, -1.0]
    seats = np.array([[0], [1], [0], [1]], np.int32)
    values = jnp.asarray(np.array([[0.8], [-0.4], [9.0], [0.2]], np.float32))
    scored = jnp.ones((T, 1), bool)
    args = [jnp.asarray(x) for x in (rewards, seats, np.ones((T, 1), bool), np.array([True]))]
    mc = [0.5 + 0.125, -0.25, 0.5, -1.0]
    lam0 = 0.5 + 0.5 * 0.5 * (0.25 * 0.5 + 0.75 * 9.0)  # step 0: its seat's step 2 mixes in Q
    lam1 = 0.5 * 0.5 * (0.25 * -1.0 + 0.75 * 0.2)
    for where, want in (([1, 0, 0, 0], [lam0, mc[1], mc[2], mc[3]]),
                        ([0, 1, 0, 0], [mc[0], lam1, mc[2], mc[3]]),
                        ([1, 1, 1, 1], [lam0, lam1, mc[2], mc[3]]),
                        ([0, 0, 0, 0], mc)):
        got, _ = dmc.returns(*args, 0.5, None, values, scored, 0.25,
                             lam_where=jnp.asarray(np.array(where, bool)[:, None]))
        np.testing.assert_allclose(np.asarray(got)[:, 0], want, rtol=1e-6, err_msg=str(where))
    every, _ = dmc.returns(*args, 0.5, None, values, scored, 0.25)
    np.testing.assert_allclose(np.asarray(every)[:, 0], [lam0, lam1, mc[2], mc[3]], rtol=1e-6)
# ----------------------------------------------------------------------------------- compaction
def test_compact_small_masks():
    mask = np.zeros(10, bool)
    mask[[1, 4, 7]] = True
    idx, valid, over = jax.jit(dmc.compact, static_argnums=1)(mask, 5)
    assert np.asarray(idx).tolist() == [1, 4, 7, 9, 9]  # padding keeps the order
    assert np.asarray(valid).tolist() == [True, True, True, False, False]
    assert not bool(over)
    idx, valid, over = dmc.compact(mask, 3)  # exactly k: no overflow
    assert np.asarray(idx).tolist() == [1, 4, 7] and bool(np.all(valid)) and not bool(over)
    idx, valid, over = dmc.compact(mask, 2)
    assert np.asarray(idx).tolist() == [1, 4] and bool(np.all(valid)) and bool(over)
    idx, valid, over = dmc.compact(np.zeros(10, bool), 2)
    assert not np.any(np.asarray(valid)) and not bool(over)


def test_compact_keeps_exactly_the_legal_actions():
    rng = np.random.default_rng(0)
    masks = rng.random((6, 300)) < np.array([0.01, 0.05, 0.1, 0.2, 0.5, 0.0])[:, None]
    idx, valid, over = jax.jit(jax.vmap(dmc.compact, in_axes=(0, None)), static_argnums=1)(
        masks, 40)
    idx, valid, over = map(np.asarray, (idx, valid, over))
    for m, i, v, o in zip(masks, idx, valid, over):
        legal = np.flatnonzero(m)
        assert i[v].tolist() == legal[:40].tolist()
        assert v.tolist() == [True] * min(len(legal), 40) + [False] * max(40 - len(legal), 0)
        assert o == (len(legal) > 40)
        assert np.all(np.diff(i) >= 0)


# ------------------------------------------------------------------------- training, end to end
def test_networks_initialize_one_role_at_a_time():
    """The per-role networks are initialized one after another: vmapped, the LSTM's orthogonal
    initializers become batched LAPACK QR calls, and two of those at once on a 2-thread CPU pool
    wait on each other for ever (jaxlib hands their batches to the same pool).  Every LAPACK call
    of the init program is unbatched, and each role's parameters are those its key gives alone."""
    from cardjax.train.dmc.state import feature_spec, init_params

    train = dmc.cached_train(dmc.Config.from_dict({**douzero.TRAIN_DEFAULTS, **TINY}))
    net, game, key = train.net, train.game, jax.random.PRNGKey(3)
    init = jax.jit(lambda k: init_params(net, game, k))
    calls = [line for line in init.lower(key).as_text().splitlines() if "@lapack_" in line]
    assert calls and all('num_batch_dims = "0"' in line for line in calls)
    stacked = init(key)
    F, dtype = feature_spec(game)
    inputs = (jnp.zeros((1, F), dtype), jnp.zeros((1, 1, game.action_features.shape[1]), bool))
    one = jax.jit(lambda k: net.init(k, *inputs))
    for role, k in enumerate(jax.random.split(key, game.num_roles)):
        for x, y in zip(jax.tree_util.tree_leaves(one(k)), jax.tree_util.tree_leaves(stacked)):
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y[role]))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """3 iterations in one go, and 2 iterations + a stop + --resume to 3."""
    def half_written_line(split):
        # a killed run may leave a half-written line after its checkpoint: dropped on resume
        with open(os.path.join(split, "metrics.jsonl"), "a") as f:
            f.write('{"iteration": 3, "loss": 99')

    return straight_and_resumed(douzero.main, TINY_FLAGS, tmp_path_factory.mktemp("dmc"),
                                between=half_written_line)


@pytest.fixture(scope="module")
def final_state(runs):
    train = dmc.cached_train(dmc.Config.from_dict({**douzero.TRAIN_DEFAULTS, **TINY}))
    return train, restore_newest(train, runs[0])


def test_resume_equals_uninterrupted_run(runs):
    pa, cfg = assert_same_run(*runs, dmc_agent.load_params, TIMING)
    assert [r["iteration"] for r in read_metrics(runs[0])] == [1, 2, 3]
    assert cfg.to_dict() == dmc.Config.from_dict({**douzero.TRAIN_DEFAULTS, **TINY}).to_dict()
    # one network per position: every leaf has a leading axis of 3, and they differ
    leaf = jax.tree_util.tree_leaves(pa)[0]
    assert leaf.shape[0] == 3 and not np.array_equal(leaf[0], leaf[1])


def test_metrics_report_frames_overflow_and_truncation(runs):
    for r in read_metrics(runs[0]):
        assert r["frames"] == r["decisions"] > 0 and r["frames_per_s"] > 0
        assert r["truncated"] == 0 and r["role_mismatch"] == 0
        assert 0 <= r["overflow"] <= r["decisions"] and r["max_legal"] >= 1
        # the loss is the frame-weighted mean of the three positions' losses
        assert min(r["loss_landlord"], r["loss_landlord_down"], r["loss_landlord_up"]) \
            <= r["loss"] <= max(r["loss_landlord"], r["loss_landlord_down"],
                                r["loss_landlord_up"])
        assert r["game_length"] * 4 == r["decisions"]
        assert r["max_game_length"] <= 154  # the bound on a Dou Dizhu game


def test_self_play_targets_are_each_seats_final_reward(final_state, runs):
    """The replay buffer holds the last iteration's decisions: with gamma = 1 and ADP, every
    landlord decision of a game has the landlord's final reward +-2m and every peasant decision
    minus half of it; the rows of step t belong to role t mod 3; padding weighs 0."""
    train, state = final_state
    buf = jax.device_get(jax.tree_util.tree_map(lambda x: x[0], state.buffer))  # [T, B]
    w, tgt = buf.weight, buf.target
    assert w.shape == (156, 4) and buf.obs.shape == (156, 4, OBS_SIZE)
    for b in range(4):
        n = int(w[:, b].sum())
        assert n > 0 and np.all(w[:n, b] == 1) and np.all(w[n:, b] == 0)
        landlord = tgt[0:n:3, b]
        peasants = np.concatenate([tgt[1:n:3, b], tgt[2:n:3, b]])
        assert np.all(landlord == landlord[0]) and np.all(peasants == -landlord[0] / 2)
        assert abs(landlord[0]) >= 2 and np.log2(abs(landlord[0]) / 2) % 1 == 0
        # the landlord flag of the observation (seat order: self, next, previous)
        lord = buf.obs[:n, b, 60 + 42 + 180 + 60 + 4 + 60:][:, :3]
        assert np.all(lord[0::3] == [1, 0, 0]) and np.all(lord[1::3] == [0, 0, 1])
        assert np.all(lord[2::3] == [0, 1, 0])
        assert np.all(tgt[n:, b] == 0)
    # the iteration's metrics agree: the landlord's first decision holds its final reward
    last = read_metrics(runs[0])[-1]
    assert last["landlord_reward"] == pytest.approx(float(np.mean(tgt[0])))
    assert last["landlord_wins"] == pytest.approx(float(np.mean(tgt[0] > 0)))
    assert last["frames"] == float(w.sum())


def test_a_learner_step_lowers_the_loss(final_state):
    train, state = final_state
    buf = jax.tree_util.tree_map(lambda x: x[0], state.buffer)
    rows = buf.weight[0::3].reshape(-1) > 0  # the landlord's decisions
    batch = tuple(jnp.asarray(np.asarray(x[0::3]).reshape((-1,) + x.shape[2:])[rows])
                  for x in (buf.obs, buf.action, buf.target))
    _, weights = assert_update_lowers_loss(train, state, 0, batch)
    # zero-weight rows do not count
    p = dmc.role_params(state.params, 0)
    half = weights.at[weights.shape[0] // 2:].set(0.0)
    n = weights.shape[0] // 2
    ref = float(train.loss(p, tuple(x[:n] for x in batch), weights[:n]))
    assert float(train.loss(p, batch, half)) == pytest.approx(ref, rel=1e-5)


def test_loaded_agent_plays_only_legal_moves(runs):
    """Against random in the arena: an illegal move would end the game with a 10-point penalty;
    every game's score must be a legal ADP result, +-2^j for A's side."""
    env = cardjax.make("doudizhu")
    me = dmc_agent.load(env, runs[0], worlds=9, sampling="uniform", iec=True, b=10)
    assert me.name == "douzero"
    opp = cardjax.agents.get(env, "random")
    r = arena.duplicate_match(env, me, opp, deals=2, seed=5, batch=2, progress=False,
                              per_deal=True)
    scores = np.abs(np.asarray(r["per_game"])).reshape(-1)
    assert r["games"] == 4 and np.all(np.log2(scores) % 1 == 0) and np.all(scores >= 2)
    assert set(r) >= {"wp_a_landlord", "wp_b_landlord", "adp_a"}
    with pytest.raises(ValueError, match="unknown options"):
        dmc_agent.load(env, runs[0], temperature=1.0)


def test_agent_batched_choice_equals_one_game_choice(runs):
    """The arena's vmapped ``act`` (custom batching rule: the whole batch scored in tiers, roles
    mixed) chooses what ``act`` on each game alone chooses."""
    env = cardjax.make("doudizhu")
    me = dmc_agent.load(env, runs[0], k=256)
    batched = jax.jit(jax.vmap(me.act, in_axes=(None, 0, 0)))
    single = jax.jit(me.act)
    keys = jax.random.split(jax.random.PRNGKey(7), 4)

    @jax.jit
    def positions(keys):
        first = jax.vmap(env.init)(keys)
        lead = jnp.argmax(first.legal_action_mask, axis=1)  # the landlord leads its lowest solo
        after = jax.vmap(env.step)(first, lead)  # landlord_down to act
        return jax.tree_util.tree_map(lambda a, b: jnp.concatenate([a[:2], b[2:]]), first, after)

    states = positions(keys)
    assert np.asarray(states.current_player).tolist() == [0, 0, 1, 1]
    got = np.asarray(batched(me.params, keys, states))
    for i in range(4):
        one = jax.tree_util.tree_map(lambda x: x[i], states)
        assert int(single(me.params, keys[i], one)) == got[i]
        assert bool(one.legal_action_mask[got[i]])


# ------------------------------------------------------------------------------------------ CLI
def test_cli_refuses_to_mix_runs(runs):
    out = runs[0]
    assert_refuses_to_mix(douzero.main, TINY_FLAGS, out, "width", 64, 32)
    # asking for no more iterations than done: nothing to train, the run is unchanged
    summary = douzero.main(["--out", out, "--iterations", "3", "--resume", "--eval_deals", "0",
                            "--no-progress"])
    assert summary["iteration"] == 3 and len(read_metrics(out)) == 3


@pytest.mark.parametrize("flag", ["--num_envs=0", "--epsilon=1.5", "--reward=money",
                                  "--gamma=0", "--k=-3", "--replay=x", "--eval_deals=-1"])
def test_cli_rejects_bad_flags(flag, capsys):
    with pytest.raises(SystemExit):
        douzero.parse_args([flag])
    assert "error" in capsys.readouterr().err


def test_config_validation():
    with pytest.raises(ValueError, match="num_envs"):
        dmc.Config(num_envs=0)
    with pytest.raises(ValueError, match="reward"):
        dmc.Config(reward="points")
    with pytest.raises(ValueError, match="gamma"):
        dmc.Config(gamma=0.0)
    with pytest.raises(ValueError, match="unknown config keys"):
        dmc.Config.from_dict({"width": 8, "colour": "red"})
    assert dmc.Config(max_steps=100).steps == 102  # a multiple of the 3 roles
    cfg = dmc.Config(num_envs=8, k=32)
    assert dmc.Config.from_dict(cfg.to_dict()) == cfg


# The configs saved with checkpoints by the trainer before it was split into adapters: every
# game's config carried the Tractor options at their defaults.
SAVED_BEFORE_ADAPTERS = {
    "doudizhu": {"algorithm": "dmc", "game": "doudizhu", "reward": "adp", "reward_scale": 1.0,
                 "num_envs": 8, "k": 512, "k_fast": 4, "max_steps": 156, "epsilon": 0.01,
                 "gamma": 1.0, "lam": 1.0, "train_forced": True, "lr": 0.0001, "alpha": 0.99,
                 "rms_eps": 1e-05, "clip": 40.0, "minibatch": 64, "epochs": 1, "replay": 0,
                 "lstm": 16, "width": 32, "depth": 2, "head_width": 32, "head_depth": 2,
                 "point_reward": 0.0, "throw_penalty": 0, "oracle_iterations": 0,
                 "discount": "step", "target": "return", "encoding": "static",
                 "trick_facts": False},
    "tractor": {"algorithm": "dmc", "game": "tractor", "reward": "levels", "reward_scale": 1.0,
                "num_envs": 4, "k": 66, "k_fast": 4, "max_steps": 620, "epsilon": 0.015,
                "gamma": 0.95, "lam": 1.0, "train_forced": True, "lr": 0.0001, "alpha": 0.99,
                "rms_eps": 1e-05, "clip": 40.0, "minibatch": 64, "epochs": 1, "replay": 0,
                "lstm": 128, "width": 32, "depth": 2, "head_width": 32, "head_depth": 2,
                "point_reward": 0.01, "throw_penalty": 0, "oracle_iterations": 0,
                "discount": "trick", "target": "return", "encoding": "dynamic",
                "trick_facts": True},
}


def test_configs_saved_before_the_adapters_load():
    """A Dou Dizhu run's saved config drops the Tractor options it carried at their defaults; a
    Tractor run's keeps them as the adapter's options; both save back the keys they own."""
    ddz = dmc.Config.from_dict(SAVED_BEFORE_ADAPTERS["doudizhu"])
    assert not ddz.options.bidding and ddz.steps == 156 and ddz.lstm == 16
    tractor_keys = ("point_reward", "throw_penalty", "encoding", "trick_facts")
    later = {"init_from": "", "prior_iterations": 0, "prior_share": 0.25,  # keys added since
             "counterfactual": 0.0, "after_states": 0, "after_rollouts": False,
             "exact_rewards": False,
             "advice_bonus": 0.0, "temperature": 0.0, "imitation": 0.0, "imitation_margin": 0.1,
             "lam_kinds": ""}
    assert ddz.to_dict() == {**{k: v for k, v in SAVED_BEFORE_ADAPTERS["doudizhu"].items()
                                if k not in tractor_keys}, **later, "bidding": False}
    trc = dmc.Config.from_dict(SAVED_BEFORE_ADAPTERS["tractor"])
    assert (trc.options.point_reward, trc.options.encoding, trc.options.trick_facts) == \
        (0.01, "dynamic", True)
    assert not trc.options.consequences  # saved before the option: trained without it
    assert not trc.options.security and trc.options.leads == "cards" and not trc.options.advice
    assert not trc.options.throws
    assert trc.to_dict() == {**SAVED_BEFORE_ADAPTERS["tractor"], **later, "consequences": False,
                             "rollouts": False, "throws": False,
                             "security": False, "leads": "cards", "advice": False}
    assert hash(trc) == hash(dmc.Config.from_dict(trc.to_dict()))  # cached_train's key
    # a Tractor option away from its default is no leftover: refused for Dou Dizhu
    with pytest.raises(ValueError, match="unknown config keys \\['encoding'\\] for doudizhu"):
        dmc.Config.from_dict({**SAVED_BEFORE_ADAPTERS["doudizhu"], "encoding": "dynamic"})


def test_pooled_scoring_equals_scoring_every_slot(final_state):
    """Scoring a pool of the legal candidates of all states, packed one after the other (in the
    smallest pool size that holds them, or in groups of states), gives the Q of scoring all k
    slots of every state; ``rows`` is the pool's size."""
    train, state = final_state
    env, game = train.env, train.game
    table = jnp.asarray(game.action_features)
    p = dmc.role_params(state.params, 0)

    @jax.jit
    def prep(key):
        states = jax.vmap(env.init)(jax.random.split(key, 6))
        idx, valid, _ = jax.vmap(dmc.compact, in_axes=(0, None))(states.legal_action_mask, 128)
        return (jax.vmap(game.features)(states), idx, valid,
                jnp.sum(states.legal_action_mask, axis=1))

    obs, idx, valid, count = prep(jax.random.PRNGKey(4))
    c = np.asarray(count)
    assert c.max() <= 128 and c.sum() > 32 * 6  # the first lead: many moves
    assert dmc.pool_sizes(512, 4) == (4, 8, 16, 32, 64, 128, 256, 512)
    assert dmc.pool_sizes(512, 0) == dmc.pool_sizes(512, 512) == (512,)
    # counts: every state's moves; two states' (others 0); one move each (nothing to score);
    # none
    counts = [count, jnp.where(jnp.arange(6) >= 4, count, 0), jnp.minimum(count, 1),
              jnp.zeros_like(count)]
    sizes, groups = (4, 8, 16, 32, 64, 128), (1, 2, 3)

    # one program per group count, called with each count (a loop of passes each)
    score = jax.jit(lambda cnt, g, sizes, table, p, obs, idx: dmc.score_slots(
        train.net, table, p, obs, idx, cnt, sizes, g), static_argnums=(1, 2))
    full, full_rows = score(count, 1, (128,), table, p, obs, idx)
    pooled = [score(cnt, g, sizes, table, p, obs, idx) for cnt in counts for g in groups]
    assert int(full_rows) == 6 * 128
    for i, (q, rows) in enumerate(pooled):
        cnt, g = np.asarray(counts[i // 3]), groups[i % 3]
        cnt = np.where(cnt > 1, cnt, 0)  # a state with one legal action is not scored
        used = np.arange(128)[None, :] < cnt[:, None]
        np.testing.assert_allclose(np.where(used, q, 0), np.where(used, full, 0), rtol=1e-5,
                                   atol=1e-6)
        # passes of 4 candidates a game until the fullest group's are scored, every slot past
        # the largest pool (64 a game); none at all when no state has a choice
        need, b = max(int(part.sum()) for part in np.split(cnt, g)), 6 // g
        passes = -(-need // (4 * b))
        assert int(rows) == (6 * 128 if need > 64 * b else passes * 4 * b * g)


def test_a_run_sits_at_an_auction_table_with_rule_bids(runs):
    """With bidding, a DouZero run loaded as a player bids as the rule player and plays the cards
    for whichever seat became the landlord; training with bidding is refused."""
    env = cardjax.make("doudizhu", bidding=True)
    player = cardjax.agents.load(env, runs[0])
    r = arena.duplicate_match(env, player, cardjax.agents.get(env, "rule"), deals=3,
                              progress=False, per_deal=True)
    assert r["games"] == 18 and np.isfinite(r["mean"]) and r["void_rate"] < 1.0
    with pytest.raises(ValueError, match="cannot train in"):
        dmc.make_train(dmc.Config.from_dict({**douzero.TRAIN_DEFAULTS, **TINY}), env=env)


@pytest.fixture(scope="module")
def bidding_runs(tmp_path_factory):
    """The whole game (--bidding true): 3 iterations straight, and 2 + --resume to 3."""
    return straight_and_resumed(douzero.main, TINY_FLAGS + ["--bidding", "true"],
                                tmp_path_factory.mktemp("dmc_bidding"))


def test_bidding_runs_resume_exactly_and_bid_with_a_fourth_network(bidding_runs):
    pa, cfg = assert_same_run(*bidding_runs, dmc_agent.load_params, TIMING)
    assert cfg.options.bidding and cfg.num_roles == 4
    assert jax.tree_util.tree_leaves(pa)[0].shape[0] == 4
    for r in read_metrics(bidding_runs[0]):
        assert r["decisions_bidder"] >= 4  # every deal opens with at least one bid decision
        assert r["decisions"] == sum(r[f"decisions_{n}"] for n in
                                     ("landlord", "landlord_down", "landlord_up", "bidder"))
    # loaded for a table with an auction, the run bids itself (no rule bids wrapped around it)
    env = cardjax.make("doudizhu", bidding=True)
    player = cardjax.agents.load(env, bidding_runs[0])
    s = env.init(jax.random.PRNGKey(0))
    assert player.name == "douzero" and bool(s.bidding)
    assert int(player.act(player.params, jax.random.PRNGKey(0), s)) >= NUM_MOVES


def test_the_bidder_reads_no_other_seat_s_cards():
    from cardjax.nets.dmc.adapters import doudizhu as adapter

    cfg = dmc.Config.from_dict({**douzero.TRAIN_DEFAULTS, **TINY, "bidding": True})
    game = adapter.make_game(cfg)
    s = jax.vmap(game.env.init)(jax.random.split(jax.random.PRNGKey(2), 8))
    seat = np.asarray(s.current_player)
    hands = np.asarray(s._hands)
    rows = np.arange(8)
    nxt, prv = (seat + 1) % 3, (seat + 2) % 3
    swapped = hands.copy()
    swapped[rows, nxt], swapped[rows, prv] = hands[rows, prv], hands[rows, nxt]
    t = s.replace(_hands=jnp.asarray(swapped), _bottom=jnp.roll(s._bottom, 1, axis=0))
    f = jax.vmap(game.features)
    np.testing.assert_array_equal(np.asarray(f(s)), np.asarray(f(t)))
    assert np.all(np.asarray(jax.vmap(game.role)(s)) == 3)


def test_an_exported_run_is_a_pretrained_player(runs, tmp_path):
    """cardjax export writes a run's newest networks as an artifact; the pretrained
    player chooses what the run chooses, bids by the saved bid module at an auction table, and a
    run of another game or a missing name is refused."""
    from cardjax.agents import pretrained
    from cardjax.games.doudizhu import bidder as doudizhu_bidder

    export = export_command.main
    meta = export(["--run", runs[0], "--name", "doudizhu-pretrained", "--command", "train it",
                   "--device", "2-core CPU", "--bids", "strength=-4", "--directory",
                   str(tmp_path)])
    assert meta["kind"] == "dmc" and meta["game"] == "doudizhu"
    assert pretrained.info("doudizhu-pretrained", str(tmp_path))["lineage"]["command"] == \
        "train it"
    env = cardjax.make("doudizhu")
    mine = pretrained.load(env, "doudizhu-pretrained", str(tmp_path))
    run = cardjax.agents.load(env, runs[0])
    keys = jax.random.split(jax.random.PRNGKey(3), 8)
    states = jax.vmap(env.init)(keys)
    act = lambda p: np.asarray(jax.vmap(p.act, in_axes=(None, 0, 0))(p.params, keys, states))
    np.testing.assert_array_equal(act(mine), act(run))
    auction = cardjax.make("doudizhu", bidding=True)
    bidder = pretrained.load(auction, "doudizhu-pretrained", str(tmp_path))
    s = jax.vmap(auction.init)(keys)
    bids = np.asarray(jax.vmap(bidder.act, in_axes=(None, 0, 0))(bidder.params, keys, s))
    own = np.asarray(jax.vmap(doudizhu_bidder.strength)(
        s._hands[np.arange(8), np.asarray(s.current_player)]))
    want = (own >= -4).astype(int) + (own >= -2) + (own >= 0)
    from cardjax.games.doudizhu.env import NUM_MOVES

    np.testing.assert_array_equal(bids - NUM_MOVES, want)  # the opening bid: wanted, else pass
    with pytest.raises(ValueError, match="plays doudizhu, not gongzhu"):
        pretrained.load(cardjax.make("gongzhu"), "doudizhu-pretrained", str(tmp_path))
    with pytest.raises(ValueError, match="no pretrained player"):
        pretrained.info("tractor-pretrained", str(tmp_path))
    with pytest.raises(SystemExit, match="is for tractor"):
        export(["--run", runs[0], "--name", "tractor-pretrained", "--command", "x", "--device",
                "cpu", "--directory", str(tmp_path)])
    assert not os.path.exists(os.path.join(tmp_path, "tractor-pretrained"))
    # the artifact's directory names the player, as a run directory does
    import json
    import shutil

    from cardjax import agents

    exported = str(tmp_path / "doudizhu-pretrained")
    named = agents.load(env, exported)
    np.testing.assert_array_equal(act(named), act(run))
    assert agents.load(env, f"{exported}:k=66").name == "doudizhu-pretrained"
    # an export from before artifacts (NAME.json beside NAME.msgpack) still loads
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    shutil.copy(os.path.join(exported, "params.msgpack"), legacy / "mine.msgpack")
    json.dump({"trainer": "dmc", "game": "doudizhu", "rules": "doudizhu@1",
               "config": meta["network"], "command": "c", "device": "d", "date": "2026-11-26"},
              open(legacy / "mine.json", "w"))
    np.testing.assert_array_equal(act(agents.load(env, str(legacy))), act(run))
    shutil.copy(legacy / "mine.json", legacy / "other.json")
    shutil.copy(legacy / "mine.msgpack", legacy / "other.msgpack")
    with pytest.raises(ValueError, match="several exported players"):
        agents.load(env, str(legacy))
