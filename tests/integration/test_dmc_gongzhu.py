"""Gongzhu Deep Monte Carlo: the adapter (cardjax.nets.dmc.adapters.gongzhu), its command
(cardjax train gongzhu_dmc) and the loaded player (cardjax.agents.dmc).

Tiny sizes (8 games per iteration, 16-wide nets): these tests check features, targets, the
update, exact resumption and legality, not playing strength.  One training step is compiled for
the module (``dmc.cached_train`` serves the fixture and every ``main`` call).
"""

from __future__ import annotations

import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax import cards
from cardjax.agents import dmc as dmc_agent
from cardjax.games.gongzhu import env as gz_rules
from cardjax.nets.dmc.adapters import gongzhu as adapter
from cardjax.train import dmc, run_config, runner
from cardjax.train.dmc import cli as dmc_cli
from cardjax.commands import arena as arena_command
from cardjax.commands.train import gongzhu_dmc
from conftest import (assert_refuses_to_mix, assert_same_run, assert_update_lowers_loss,
                      read_metrics, restore_newest, run_on_cpu_devices,
                      straight_and_resumed, tree_index)


TINY = {"num_envs": 8, "width": 16, "depth": 1, "head_width": 16, "head_depth": 2,
        "minibatch": 64, "replay": 1}
TINY_FLAGS = [x for k, v in TINY.items() for x in (f"--{k}", str(v))] + [
    "--eval_deals", "0", "--no-progress"]
TIMING = {"seconds", "elapsed_s", "frames_per_s"}
CFG = dmc.Config.from_dict({**gongzhu_dmc.TRAIN_DEFAULTS, **TINY})


# ---------------------------------------------------------------------------------- the adapter
def test_adapter_features_role_and_action_table(gongzhu, gz_games):
    game = adapter.make_game(CFG, gongzhu)
    assert game.role_names == ("player",) and game.history == (0, 0)
    _, states, _ = gz_games
    state = tree_index(tree_index(states, 0), 9)  # game 0 after 10 plays: trick 3, 2 cards down
    obs = np.asarray(gongzhu.observe(state, state.current_player))
    feat = np.asarray(game.features(state))
    # the observation is 0/1, so the bool features keep all of it
    assert set(np.unique(obs)) <= {0.0, 1.0} and feat.dtype == bool
    np.testing.assert_array_equal(feat.astype(np.float32), obs)
    assert feat[:52].sum() == 13 - 2  # the acting seat (third of trick 3) has played twice
    assert int(game.role(state)) == 0
    table = game.action_features
    assert table.shape == (52, 73) and table.dtype == bool
    np.testing.assert_array_equal(table[:, :52], np.eye(52, dtype=bool))
    sq, h2, c10 = (cards.card_index(c) for c in ("SQ", "H2", "C10"))
    assert np.flatnonzero(table[sq, 52:56]).tolist() == [0]  # spades
    assert np.flatnonzero(table[sq, 56:69]).tolist() == [10]  # rank Q (2 = 0)
    assert table[sq, 69:].tolist() == [True, True, False, False]  # score card, SQ
    assert table[h2, 69:].tolist() == [True, False, False, False]
    assert table[c10, 69:].tolist() == [True, False, False, True]
    assert not table[cards.card_index("S3"), 69:].any()
    with pytest.raises(ValueError, match="exposure"):
        adapter.make_game(CFG, cardjax.make("gongzhu", exposure=True))


def test_config_defaults_and_validation():
    cfg = dmc.Config.for_game("gongzhu")
    assert (cfg.reward, cfg.k, cfg.k_fast, cfg.max_steps, cfg.reward_scale) == \
        ("points", 13, 4, 52, 0.01)
    assert cfg.num_roles == 1 and cfg.steps == 52
    assert dmc.pool_sizes(cfg.k, cfg.k_fast) == (4, 8, 13)  # candidates per game; 13: all
    assert dmc.pool_sizes(13, 32) == dmc.pool_sizes(13, 0) == (13,)
    with pytest.raises(ValueError, match="reward of gongzhu"):
        dmc.Config(game="gongzhu")  # Dou Dizhu's adp
    with pytest.raises(ValueError, match="reward_scale"):
        dmc.Config.for_game("gongzhu", reward_scale=0.0)
    with pytest.raises(ValueError, match="no DMC adapter for game 'chess'; available: doudizhu, "
                       "gongzhu, tractor"):
        dmc.Config.for_game("chess")


# ------------------------------------------------------------------------- training, end to end
@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """3 iterations in one go, and 2 iterations + --resume to 3."""
    return straight_and_resumed(gongzhu_dmc.main, TINY_FLAGS,
                                tmp_path_factory.mktemp("gongzhu_dmc"))


@pytest.fixture(scope="module")
def final_state(runs):
    train = dmc.cached_train(CFG)
    return train, restore_newest(train, runs[0])


def test_resume_equals_uninterrupted_run(runs):
    params, cfg = assert_same_run(*runs, dmc_agent.load_params, TIMING)
    assert [r["iteration"] for r in read_metrics(runs[0])] == [1, 2, 3]
    assert cfg.to_dict() == CFG.to_dict()
    leaves_a = jax.tree_util.tree_leaves(params)
    assert all(x.shape[0] == 1 for x in leaves_a)  # one network for the four seats


def test_metrics_full_games_no_overflow_no_mismatch(runs):
    for r in read_metrics(runs[0]):
        assert r["decisions"] == r["frames"] == 8 * 52 and r["frames_per_s"] > 0
        assert r["game_length"] == r["max_game_length"] == r["steps_run"] == 52
        assert r["truncated"] == r["overflow"] == r["role_mismatch"] == 0
        assert 1 <= r["max_legal"] <= 13
        # pools of 4, 8 or 13 candidates per game (13 when every leader holds 13 cards), none
        # when every game has one legal card (the last trick)
        assert 0 < r["scored_per_decision"] < 13
        assert r["loss"] == r["loss_player"] > 0
        assert r["margin_abs"] >= abs(r["margin"]) and r["margin_abs"] % 1.25 == 0


def test_self_play_targets_are_each_seats_team_margin(final_state, runs):
    """The buffer holds the last iteration's 8 games: every decision is real; the targets of a
    game are its team margin / 100 for 26 decisions and minus it for the other 26; the acting
    seat's hand shrinks by one card per trick."""
    _, state = final_state
    buf = jax.device_get(tree_index(state.buffer, 0))  # [52, 8]
    assert buf.obs.shape == (52, 8, gz_rules.OBS_SIZE) and np.all(buf.weight == 1)
    np.testing.assert_array_equal(buf.obs[:, :, :52].sum(-1).T,
                                  np.broadcast_to(13 - np.arange(52) // 4, (8, 52)))
    margins = []
    for b in range(8):
        t = buf.target[:, b]
        m = np.max(np.abs(t))
        assert np.sum(t == m) == 26 and np.sum(t == -m) == 26 or m == 0
        margins.append(m / 0.01)
    last = read_metrics(runs[0])[-1]
    assert last["margin_abs"] == pytest.approx(np.mean(margins), rel=1e-5)
    assert last["target_abs"] == pytest.approx(np.mean(margins) * 0.01, rel=1e-5)


def test_a_learner_step_lowers_the_loss(final_state):
    train, state = final_state
    buf = tree_index(state.buffer, 0)
    batch = tuple(jnp.reshape(x, (-1,) + x.shape[2:]) for x in (buf.obs, buf.action, buf.target))
    assert_update_lowers_loss(train, state, 0, batch)


# ------------------------------------------------------------------------------- loaded player
def test_loaded_player_plays_only_legal_cards(runs, gongzhu, gz):
    """Four copies of the loaded player (batched choice, as in the arena) play 8 games to the
    end; every card is legal and the games end with the rules' rewards."""
    me = dmc_agent.load(gongzhu, runs[0], worlds=9, iec=True)
    assert me.name == "gongzhu_dmc"
    act = jax.jit(jax.vmap(me.act, in_axes=(None, 0, 0)))
    keys = jax.random.split(jax.random.PRNGKey(3), 8)
    init = jax.jit(jax.vmap(gongzhu.init))  # jitted, not eager: one compile, not one per operation
    states = init(keys)
    step = jax.jit(jax.vmap(gongzhu.step))
    for _ in range(52):
        a = np.asarray(act(me.params, keys, states))
        assert np.all(np.asarray(states.legal_action_mask)[np.arange(8), a])
        states = step(states, jnp.asarray(a))
    assert np.all(np.asarray(states.terminated))
    scores = np.asarray(states.scores)
    np.testing.assert_allclose(np.asarray(states.rewards)[:, 0],
                               scores[:, 0] + scores[:, 2] - scores[:, 1] - scores[:, 3])
    # one game alone chooses as the batch did
    one = tree_index(init(keys), 5)
    first = int(jax.jit(me.act)(me.params, keys[5], one))
    assert first == int(act(me.params, keys, init(keys))[5])


def test_a_run_values_the_leaves_of_a_search(runs, gongzhu):
    """``value=RUN`` for the search players: the value of a position is the best legal Q of
    the seat to act, for its team, and the negative for the other; an ISMCTS player built on it
    carries the run's params and plays legal cards."""
    from cardjax import agents
    from cardjax.nets.dmc import acting

    value_fn, params = agents.load_value(gongzhu, runs[0])
    # jitted, not eager: one compile each instead of one per operation
    states = jax.jit(jax.vmap(gongzhu.init))(jax.random.split(jax.random.PRNGKey(4), 3))
    v = np.asarray(jax.jit(jax.vmap(value_fn, in_axes=(None, 0)))(params, states))
    saved, cfg = dmc_agent.load_params(runs[0])
    game = dmc.make_game(cfg, gongzhu)
    net = dmc.make_net(cfg, game)
    q_values = jax.jit(lambda p, s: acting.q_values(net, game, p, s, cfg.k))
    for i in range(3):
        s = tree_index(states, i)
        _, valid, q = q_values(saved, s)
        mover = gongzhu.teams[int(s.current_player)]
        assert v[i, mover] == pytest.approx(float(np.max(np.asarray(q)[np.asarray(valid)])))
        assert v[i, 1 - mover] == pytest.approx(-v[i, mover])
    player = agents.get(gongzhu, "ismcts", iterations=3, value=runs[0])
    for x, y in zip(jax.tree_util.tree_leaves(player.params), jax.tree_util.tree_leaves(saved)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    s = tree_index(states, 0)
    assert bool(s.legal_action_mask[int(jax.jit(player.act)(player.params, jax.random.PRNGKey(1), s))])
    with pytest.raises(ValueError, match="not both"):
        agents.get(gongzhu, "ismcts", value=runs[0], playout="greed")


def test_arena_script_plays_the_run_against_greed(runs):
    r = arena_command.main(["--game", "gongzhu", "--a", runs[0], "--b", "greed", "--deals", "2",
                           "--batch", "2", "--json", "--no-progress"])
    assert r["games"] == 4 and r["a"] == "gongzhu_dmc" and r["b"] == "greed"
    assert r["wpg"] == r["mean"] and r["mean"] * 4 % 10 == 0  # 4 games of multiples of 10
    assert abs(r["mean"]) < 1000  # an illegal card would cost the illegal-move penalty (1000)


# ------------------------------------------------------------------------------------------ CLI
def test_cli_refuses_to_mix_runs(runs):
    assert_refuses_to_mix(gongzhu_dmc.main, TINY_FLAGS, runs[0], "width", 64, 16)


@pytest.mark.parametrize("flag", ["--num_envs=0", "--reward=adp", "--reward_scale=0", "--k=0",
                                  "--lstm=8", "--epsilon=2", "--eval_deals=-1", "--gamma=0"])
def test_cli_rejects_bad_flags(flag, capsys):
    with pytest.raises(SystemExit):
        gongzhu_dmc.parse_args([flag])
    assert "error" in capsys.readouterr().err


def test_cli_defaults_are_gongzhus(tmp_path):
    args = gongzhu_dmc.parse_args(["--out", str(tmp_path / "new")])
    assert (args.iterations, args.checkpoint_every) == (200, 50)
    assert args.eval_every is None and args.eval_deals is None  # untyped
    assert args.eval_defaults == {"eval_every": 50, "eval_deals": 32, "eval_seed": 12345}
    cfg, latest = dmc_cli.resolve_config(args, gongzhu_dmc.TRAIN_DEFAULTS)
    assert latest is None and cfg.game == "gongzhu" and cfg.k == 13 and cfg.max_steps == 52


def test_eval_settings_resolved_and_saved(tmp_path, capsys):
    """run_config.resolve_eval_settings alone: a new run saves the defaults and the typed flags;
    --resume takes the saved settings (the command's defaults where the run directory has none),
    a typed flag overriding its saved value."""
    out = str(tmp_path / "run")
    files = runner.RunFiles(out)
    defaults = {"eval_every": 50, "eval_deals": 32, "eval_seed": 12345}

    def resolve(*flags, resume=False, is_main=True):
        args = gongzhu_dmc.parse_args(["--out", out, *flags] + (["--resume"] if resume else []))
        assert args.eval_defaults == defaults
        return run_config.resolve_eval_settings(out, args.resume, args, args.eval_defaults, is_main)

    # a run directory from before the settings were saved: the defaults, a typed flag wins
    os.makedirs(out)
    assert resolve("--eval_seed", "3", resume=True, is_main=False) == {**defaults,
                                                                       "eval_seed": 3}
    assert files.read_eval_settings() is None  # only the main process writes
    assert resolve(resume=True) == defaults == files.read_eval_settings()
    # a new run: the defaults and the typed flags, saved (a stale file is ignored)
    new = {"eval_every": 1, "eval_deals": 2, "eval_seed": 12345}
    assert resolve("--eval_deals", "2", "--eval_every", "1") == new
    with open(files.eval_settings) as f:
        assert json.load(f) == new
    assert not os.path.exists(files.eval_settings + ".tmp")
    # resumed without the flags: the saved values
    capsys.readouterr()
    assert resolve(resume=True) == new == files.read_eval_settings()
    assert "evaluation settings changed" not in capsys.readouterr().err
    # a typed flag overrides its saved value, and the file is updated
    assert resolve("--eval_seed", "7", "--eval_deals", "2", resume=True) == \
        {**new, "eval_seed": 7} == files.read_eval_settings()
    err = capsys.readouterr().err
    assert "evaluation settings changed: --eval_seed 12345 -> 7" in err and "eval_deals" not in err
    assert resolve(resume=True) == {**new, "eval_seed": 7}
    with open(files.eval_settings, "w") as f:
        f.write("[1, 2")
    with pytest.raises(SystemExit, match="not a settings file"):
        resolve(resume=True)


def test_resume_keeps_the_evaluation_flags(tmp_path, capsys, gz_games):
    """A run started with --eval_every 2 --eval_deals 1 and resumed without them evaluates every 2
    iterations on 1 deal (not the command's 50 and 32); typed flags on --resume override.  Each
    evaluation writes the player to ``out/player``, which plays as the checkpoint does."""
    flags = [f for f in TINY_FLAGS if f not in ("--eval_deals", "0")]
    assert len(flags) == len(TINY_FLAGS) - 2
    out = str(tmp_path / "run")
    files = runner.RunFiles(out)

    def evals():
        with open(files.eval) as f:
            e = json.load(f)
        return [r["iteration"] for r in e["evaluations"]], e

    gongzhu_dmc.main(flags + ["--out", out, "--iterations", "1", "--eval_every", "2",
                              "--eval_deals", "1"])
    gongzhu_dmc.main(["--out", out, "--iterations", "3", "--resume", "--no-progress"])
    iterations, e = evals()
    assert iterations == [1, 2, 3] and e["deals"] == 1 and e["seed"] == 12345
    assert all(r["games"] == 2 for r in e["evaluations"])  # 1 deal, both seat rotations
    assert files.read_eval_settings() == {"eval_every": 2, "eval_deals": 1, "eval_seed": 12345}
    capsys.readouterr()
    gongzhu_dmc.main(["--out", out, "--iterations", "5", "--resume", "--no-progress",
                      "--eval_every", "0", "--eval_seed", "7"])
    assert "evaluation settings changed: --eval_every 2 -> 0, --eval_seed 12345 -> 7" in \
        capsys.readouterr().err
    iterations, e = evals()
    assert iterations == [1, 2, 3, 5] and e["deals"] == 1 and e["seed"] == 7
    assert files.read_eval_settings() == {"eval_every": 0, "eval_deals": 1, "eval_seed": 7}
    assert_exported_player(out, 5, gz_games)


def assert_exported_player(out: str, iteration: int, gz_games):
    """``out/player`` is the artifact of the run's ``iteration`` (its newest checkpoint): it
    chooses what the run chooses, and what the checkpoint's own params choose."""
    from cardjax import agents, artifact
    from cardjax.checkpoint import Checkpoints

    art = artifact.read(os.path.join(out, "player"))
    assert (art.kind, art.game, art.meta["name"], art.meta["play"]) == \
        ("dmc", "gongzhu", "gongzhu_dmc", {"k": 13})
    assert art.meta["lineage"]["iteration"] == iteration and art.meta["lineage"]["parent"] is None
    cfg = dmc.Config.from_dict(art.meta["network"])
    ckpt = Checkpoints(out)
    try:
        assert ckpt.latest() == iteration
        saved = ckpt.restore_params()
    finally:
        ckpt.close()
    for x, y in zip(jax.tree_util.tree_leaves(art.params), jax.tree_util.tree_leaves(saved)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    env = cardjax.make("gongzhu")
    _, states, _ = gz_games
    states = jax.tree_util.tree_map(lambda x: x[:, 10], states)  # 11th play of each game
    keys = jax.random.split(jax.random.PRNGKey(2), states.current_player.shape[0])

    def act(p):  # jitted: one program each (the same, from the cache), not op by op
        return np.asarray(jax.jit(jax.vmap(p.act, in_axes=(None, 0, 0)))(p.params, keys, states))

    mine = agents.load(env, os.path.join(out, "player"))
    assert mine.name == "gongzhu_dmc"
    np.testing.assert_array_equal(act(mine), act(agents.load(env, out)))
    np.testing.assert_array_equal(act(mine), act(dmc_agent.agent_from_params(env, saved, cfg)))


@pytest.mark.slow
def test_sharded_step_matches_single_device(tmp_path):
    """The DMC step on a 2-device mesh (forced CPU devices; one candidate pool per device, the
    replay buffer split on its game axis) plays the same games and learns the same as on one
    device.  A process of two devices runs the sharded steps and saves what they made; the
    one-device steps run here, on the module's config, whose step the runs above compiled (the
    other process would compile it again)."""
    out = tmp_path / "sharded.npz"
    code = f"""
import jax, numpy as np
from cardjax.train import dmc, sharding
cfg = dmc.Config.from_dict({CFG.to_dict()!r})
assert jax.device_count() == 2
sharded = dmc.make_train(cfg, sharding.data_mesh())
s = sharded.init(jax.random.PRNGKey(3))
assert len(s.buffer.obs.sharding.device_set) == 2
metrics = []
for _ in range(2):
    s, m = sharded.step(s)
    metrics.append([float(m["loss"]), float(m["scored_per_decision"])])
assert s.buffer.obs.sharding.spec[2] == "data", s.buffer.obs.sharding
np.savez({str(out)!r}, metrics=np.array(metrics), action=np.asarray(s.buffer.action),
         target=np.asarray(s.buffer.target))
print("ok")
"""
    assert run_on_cpu_devices(code, 2).startswith("ok")
    sharded = np.load(out)
    train = dmc.cached_train(CFG)
    r = train.init(jax.random.PRNGKey(3))
    step = runner.compile_step(train.step, r)  # the runs' compiled step (compiled here if alone)
    assert len(sharded["metrics"]) == 2
    for loss, scored in sharded["metrics"]:
        r, n = step(r)
        np.testing.assert_allclose(loss, float(n["loss"]), rtol=1e-4)
        assert scored >= float(n["scored_per_decision"]) > 0
    np.testing.assert_array_equal(sharded["action"], np.asarray(r.buffer.action))
    np.testing.assert_allclose(sharded["target"], np.asarray(r.buffer.target))
