"""ScrofaZero training (cardjax.train.alphazero) and its command (cardjax train scrofazero).

Sizes are tiny (2-4 games per iteration, a 16-wide net): these tests check the wiring -- the
targets, the update, exact resumption, sharding -- not learning strength.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from cardjax.commands import arena as arena_command
from cardjax.commands import sampling_table as sampling_table_command
from cardjax.commands.train import scrofazero
from cardjax.search import mcts
from cardjax.train import alphazero
from conftest import run_on_cpu_devices

TINY = alphazero.Config(num_envs=2, width=16, depth=1, minibatch=64, epochs=1)
TINY_FLAGS = ["--num_envs", "2", "--width", "16", "--depth", "1", "--minibatch", "64",
              "--epochs", "1", "--eval_deals", "0", "--no-progress"]


@pytest.fixture(scope="module")
def tiny():
    train = alphazero.make_train(TINY)
    state = train.init(jax.random.PRNGKey(0))
    positions, margins = train.self_play(state.params, jax.random.PRNGKey(1))
    return train, state, jax.device_get(positions), np.asarray(margins)


def test_self_play_positions(tiny, gongzhu):
    train, state, pos, margins = tiny
    assert pos.obs.shape == (52, 2, 434) and pos.obs.dtype == bool
    assert pos.policy.shape == (52, 2, 52)
    np.testing.assert_allclose(pos.policy.sum(-1), 1.0, rtol=1e-5)
    # the search's policy lives on legal moves only
    assert np.all(np.where(pos.mask, 0.0, pos.policy) == 0.0)
    # one card of the mover's hand at every position: its hand (first 52 inputs) shrinks by one
    # card every 4 moves and every legal move is a card in that hand
    hand = pos.obs[:, :, :52]
    assert np.all(hand.sum(-1) == 13 - np.arange(52)[:, None] // 4)
    assert np.all(~pos.mask | hand)
    # every game is a full Gongzhu game: a final margin that is a multiple of 10 (or 0)
    assert margins.shape == (2,) and np.all(margins % 10 == 0)
    # value targets are in points and bounded by what a game can score
    assert np.all(np.abs(pos.value) < 2000)


def test_search_targets_softmax_of_child_values():
    values = jnp.array([-jnp.inf, 10.0, -30.0, -jnp.inf, 50.0])
    out = mcts.SearchOutput(action=jnp.int32(4), child_values=values,
                            child_team_values=jnp.zeros((5, 2)),
                            child_visits=jnp.array([0, 2, 1, 0, 3]),
                            root_value=jnp.array([20.0, -20.0]), tree=None)
    # jitted, as the trainer calls it: one compile instead of one per operation
    targets = jax.jit(alphazero.search_targets, static_argnames="beta")
    policy, value = targets(out, jnp.int32(1), beta=0.05)
    e = np.exp(0.05 * np.array([10.0, -30.0, 50.0]))
    np.testing.assert_allclose(policy, [0, e[0] / e.sum(), e[1] / e.sum(), 0, e[2] / e.sum()],
                               rtol=1e-5)
    assert float(value) == -20.0  # the mover's team (team 1) column of the root value


def test_one_update_lowers_the_loss_on_a_fixed_batch(tiny):
    train, state, pos, _ = tiny
    batch = jax.tree_util.tree_map(lambda x: jnp.asarray(x).reshape((-1,) + x.shape[2:]), pos)
    weights = jnp.ones(batch.value.shape[0])
    before, _ = train.loss(state.params, batch, weights)
    params, _, metrics = train.update(state.params, state.opt_state, batch, weights)
    after, _ = train.loss(params, batch, weights)
    assert float(metrics["loss"]) == pytest.approx(float(before), rel=1e-5)
    assert float(after) < float(before)


def test_zero_weight_rows_do_not_count(tiny):
    train, state, pos, _ = tiny
    batch = jax.tree_util.tree_map(lambda x: jnp.asarray(x).reshape((-1,) + x.shape[2:]), pos)
    n = batch.value.shape[0]
    # 0/1 floats, as the trainer weighs its rows: the loss compiled for the test above serves
    weights = (jnp.arange(n) < n // 2).astype(jnp.float32)
    half = jax.tree_util.tree_map(lambda x: x[: n // 2], batch)
    full, _ = train.loss(state.params, batch, weights)
    ref, _ = train.loss(state.params, half, jnp.ones(n // 2))
    assert float(full) == pytest.approx(float(ref), rel=1e-5)


def test_step_fills_the_replay_buffer_in_order(tiny):
    train, state, _, _ = tiny
    s1, m1 = train.step(state)
    s2, _ = train.step(s1)
    assert int(s2.iteration) == 2
    assert np.asarray(s2.filled).tolist() == [True, True, False]
    # the newest batch is slot 0; the previous one moved to slot 1
    np.testing.assert_array_equal(np.asarray(s2.buffer.value[1]), np.asarray(s1.buffer.value[0]))
    assert np.isfinite(float(m1["loss"])) and float(m1["loss"]) > 0
    assert not np.array_equal(np.asarray(s2.key), np.asarray(s1.key))


def test_config_validation():
    with pytest.raises(ValueError, match="num_envs"):
        alphazero.Config(num_envs=0)
    with pytest.raises(ValueError, match="b \\+ k"):
        alphazero.Config(b=0, k=0)
    with pytest.raises(ValueError, match="unknown config keys"):
        alphazero.Config.from_dict({"width": 8, "colour": "red"})


def _metrics(out):
    with open(os.path.join(out, "metrics.jsonl")) as f:
        return [json.loads(line) for line in f]


def test_resume_equals_uninterrupted_run(tmp_path):
    """3 iterations in one go == 2 iterations, a stop, and --resume to 3."""
    straight, split = str(tmp_path / "straight"), str(tmp_path / "split")
    scrofazero.main(TINY_FLAGS + ["--out", straight, "--iterations", "3"])
    eval_flags = ["--eval_every", "7", "--eval_worlds", "3", "--no-eval_iec"]
    scrofazero.main(TINY_FLAGS + eval_flags + ["--out", split, "--iterations", "2"])
    # a killed run may leave a half-written line after its checkpoint: it is dropped on resume
    with open(os.path.join(split, "metrics.jsonl"), "a") as f:
        f.write('{"iteration": 3, "loss": 99')
    # resumed without the evaluation flags (--eval_deals 0 among them): the run's are kept, a
    # typed one overrides
    no_eval = [f for f in TINY_FLAGS if f not in ("--eval_deals", "0")]
    assert len(no_eval) == len(TINY_FLAGS) - 2
    scrofazero.main(no_eval + ["--out", split, "--iterations", "3", "--resume", "--eval_b", "4"])
    from cardjax.train.runner import RunFiles

    assert RunFiles(split).read_eval_settings() == {
        **scrofazero.EVAL_DEFAULTS, "eval_deals": 0, "eval_every": 7, "eval_worlds": 3,
        "eval_iec": False, "eval_b": 4}
    assert not os.path.exists(RunFiles(split).eval)  # no evaluation: --eval_deals 0 was kept
    a, b = _metrics(straight), _metrics(split)
    assert [r["iteration"] for r in b] == [1, 2, 3]
    for key in ("loss", "policy_kl", "value_l1", "value_target_abs"):
        assert [r[key] for r in a] == [r[key] for r in b], key
    from cardjax.agents.scrofazero import load_params

    pa, _ = load_params(straight)
    pb, cfg = load_params(split)
    assert cfg == alphazero.Config.from_dict({**scrofazero.TRAIN_DEFAULTS, "num_envs": 2,
                                              "width": 16, "depth": 1, "minibatch": 64,
                                              "epochs": 1}).to_dict()
    for x, y in zip(jax.tree_util.tree_leaves(pa), jax.tree_util.tree_leaves(pb)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


# how the run's evaluation plays, and the arena test below: one compiled match for both
PLAY = {"deals": 2, "worlds": 2, "sampling": "uniform", "b": 0}


@pytest.fixture(scope="module")
def run1(tmp_path_factory):
    """A finished one-iteration run directory, evaluated once against Mr Greed on two deals (so
    it holds its player)."""
    out = str(tmp_path_factory.mktemp("run1") / "run")
    scrofazero.main(TINY_FLAGS + ["--out", out, "--iterations", "1"] + [
        f"--eval_{k}={v}" for k, v in PLAY.items()])
    return out


def test_a_run_holds_its_player(run1, gongzhu, gz):
    """The evaluation wrote the run's player (an artifact): the checkpoint's network, loaded
    without the trainer, that values positions as the network restored through the trainer."""
    from cardjax import agents, artifact
    from cardjax.agents import scrofazero as player
    from cardjax.checkpoint import Checkpoints
    from cardjax.nets.policy_value import oracle_value_fn

    assert os.path.isfile(os.path.join(run1, "player", "player.json"))
    art = artifact.read(os.path.join(run1, "player"))
    assert (art.kind, art.game, art.meta["lineage"]["iteration"]) == ("scrofazero", "gongzhu", 1)
    cfg = alphazero.Config.from_dict(art.meta["network"])
    ckpt = Checkpoints(run1)
    like = jax.eval_shape(alphazero.make_train(cfg).init, jax.random.PRNGKey(0))
    old = ckpt.restore(like).params  # the run loaded the old way: through the trainer
    ckpt.close()
    assert jax.tree_util.tree_structure(old) == jax.tree_util.tree_structure(art.params)
    for x, y in zip(jax.tree_util.tree_leaves(old), jax.tree_util.tree_leaves(art.params)):
        np.testing.assert_array_equal(np.asarray(x), y)
    assert artifact.from_run(run1).meta["params_sha256"] == art.meta["params_sha256"]
    state = gz.init(jax.random.PRNGKey(5))
    # the values jitted, as a search calls them: one compile each instead of one per operation
    value = jax.jit(player.value_from_artifact(gongzhu, art))
    net = alphazero.make_net(cfg)
    np.testing.assert_allclose(
        np.asarray(value(art.params, state)),
        np.asarray(jax.jit(lambda p, s: oracle_value_fn(gongzhu, net.apply, p)(s))(old, state)),
        rtol=1e-6)
    value_fn, params = agents.load_value(gongzhu, run1)  # a search's leaf value
    np.testing.assert_array_equal(np.asarray(jax.jit(value_fn)(params, state)),
                                  np.asarray(value(art.params, state)))
    loaded = agents.load(gongzhu, run1, worlds=2)
    assert loaded.name == "scrofazero"
    with pytest.raises(ValueError, match="unknown play options"):
        agents.load(gongzhu, run1, temperature=1)


def test_cli_refuses_to_mix_runs(run1):
    out = run1
    with pytest.raises(SystemExit, match="already holds a run"):
        scrofazero.main(TINY_FLAGS + ["--out", out, "--iterations", "2"])
    with pytest.raises(SystemExit, match="--width 32 \\(the run has 16\\)"):
        scrofazero.main(TINY_FLAGS[:2] + ["--width", "32", "--out", out, "--resume",
                                           "--eval_deals", "0"])
    # asking for no more iterations than done: nothing to train, the run is unchanged
    summary = scrofazero.main(["--out", out, "--iterations", "1", "--resume", "--eval_deals",
                               "0", "--no-progress"])
    assert summary["iteration"] == 1 and len(_metrics(out)) == 1


@pytest.mark.parametrize("flag", ["--num_envs=0", "--minibatch=-1", "--eval_sampling=best"])
def test_cli_rejects_bad_flags(flag, capsys):
    with pytest.raises(SystemExit):
        scrofazero.parse_args([flag])
    assert "error" in capsys.readouterr().err


# The config of the two-device runs below.  Two simulations a move (b = 2, k = 0), not
# 2 x legal moves: the search's tree walks are while loops whose condition every device must
# agree on, one all-reduce between the processes of a multi-host run per turn of the loop.
SHARDED = {"num_envs": 4, "width": 16, "depth": 1, "minibatch": 64, "b": 2, "k": 0}


@pytest.mark.slow
def test_sharded_step_matches_single_device():
    """The step on a 2-device mesh (forced CPU devices) equals the unsharded step.  The sharded
    step goes to the compile cache, where the one-host run of the multi-host test below (the same
    config, the same mesh) finds it."""
    code = f"""
import jax, numpy as np
from cardjax.cli import use_compile_cache
from cardjax.train import alphazero
use_compile_cache()
cfg = alphazero.Config(**{SHARDED!r})
assert jax.device_count() == 2
mesh = alphazero.data_mesh()
sharded = alphazero.make_train(cfg, mesh)
single = alphazero.make_train(cfg)
s = sharded.init(jax.random.PRNGKey(3))
assert len(s.buffer.obs.sharding.device_set) == 2
s1, m1 = sharded.step(s)
assert s1.buffer.value.sharding.spec[2] == "data", s1.buffer.value.sharding
r1, n1 = single.step(single.init(jax.random.PRNGKey(3)))
np.testing.assert_allclose(float(m1["loss"]), float(n1["loss"]), rtol=1e-4)
# the same games (the positions are equal); the search's softmax targets may differ in the last
# bit, as the sharded program sums in another order
np.testing.assert_array_equal(np.asarray(s1.buffer.obs), np.asarray(r1.buffer.obs))
np.testing.assert_allclose(np.asarray(s1.buffer.policy), np.asarray(r1.buffer.policy),
                           rtol=1e-5, atol=1e-6)
print("ok", float(m1["loss"]))
"""
    assert run_on_cpu_devices(code, 2).startswith("ok")


def _cli_run(out, env_extra, n_proc=1):
    """Run ``cardjax train scrofazero`` as ``n_proc`` CPU processes (SLURM's variables tell
    ``jax.distributed.initialize()`` the process layout) and return the metrics lines."""
    flags = ["--out", str(out), "--iterations", "2", "--eval_deals", "0", "--no-progress"] + [
        x for k, v in SHARDED.items() for x in (f"--{k}", str(v))]
    procs = []
    for i in range(n_proc):
        env = dict(os.environ, JAX_PLATFORMS="cpu", **env_extra)
        if n_proc > 1:
            env.update(SLURM_JOB_ID="1", SLURM_PROCID=str(i), SLURM_NTASKS=str(n_proc),
                       SLURM_LOCALID=str(i), SLURM_STEP_NODELIST="localhost",
                       SLURM_NODELIST="localhost", JAX_CPU_COLLECTIVES_IMPLEMENTATION="gloo")
        cmd = ([sys.executable, "-m", "cardjax", "train", "scrofazero"] + flags
               + (["--multihost"] if n_proc > 1 else []))
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-3000:]
    return [json.loads(line) for line in open(out / "metrics.jsonl")]


@pytest.mark.slow
def test_multihost_run_matches_single_process(tmp_path):
    """``--multihost`` with two processes of one CPU device each (a two-host job in miniature)
    trains exactly like one process with two devices."""
    two_hosts = _cli_run(tmp_path / "multi", {}, n_proc=2)
    one_host = _cli_run(tmp_path / "single",
                        {"XLA_FLAGS": os.environ["XLA_FLAGS"]
                         + " --xla_force_host_platform_device_count=2"})
    assert [r["iteration"] for r in two_hosts] == [1, 2]
    for a, b in zip(two_hosts, one_host):
        assert a["loss"] == b["loss"] and a["selfplay_margin"] == b["selfplay_margin"]
    assert (tmp_path / "multi" / "checkpoints").is_dir()


def test_arena_plays_a_checkpoint(run1, capsys):
    """cardjax arena loads a run directory as a player (hidden information, 2 worlds); against
    Mr Greed, as the run's evaluation played it (the same program: loaded from the compile
    cache)."""

    result = arena_command.main(["--a", run1, "--b", "greed", "--deals", str(PLAY["deals"]),
                                "--worlds", str(PLAY["worlds"]), "--sampling", PLAY["sampling"],
                                "--play_b", str(PLAY["b"]), "--json", "--no-progress"])
    assert result["games"] == 4 and result["deals"] == 2
    assert np.isfinite(result["mean"]) and result["mean"] % 5 == 0
    with pytest.raises(SystemExit):
        arena_command.main(["--a", os.path.join(run1, "nothing"), "--deals", "1"])


def test_sampling_table_needs_a_run(tmp_path):

    with pytest.raises(SystemExit, match="not a training run directory"):
        sampling_table_command.main([str(tmp_path), "--deals", "1"])
