"""``cardjax bench envs`` (with its peers and playouts) and ``cardjax bench training`` run end to
end on tiny configs and reject bad flags."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cardjax.commands.bench import envs, peers, playout, report
from cardjax.commands.bench import training as bench_training


def test_tiny_run_writes_json(tmp_path, capsys, monkeypatch):
    import cardjax

    # one peer, in one process for 0.2 s (reported as not installed where pyspiel is absent)
    monkeypatch.setattr(envs, "PEERS",
                        {"gongzhu": [("open_spiel hearts", peers.bench_openspiel_hearts)]})
    out = tmp_path / "bench.json"
    argv = ["--games", "gongzhu", "--batch-sizes", "1,8", "--steps", "60", "--repeats", "1",
            "--peer-seconds", "0.2", "--peer-processes", "1", "--json", str(out)]
    report = envs.main(argv)
    data = json.loads(out.read_text())
    assert data == json.loads(json.dumps(report))
    assert {"date", "device", "versions", "config", "rows", "games"} <= data.keys()
    assert {"platform", "device_kind", "device_count"} <= data["device"].keys()
    assert data["versions"]["jax"]
    assert [r["batch"] for r in data["rows"]] == [1, 8]
    for r in data["rows"]:
        assert r["game"] == "gongzhu"
        assert r["steps_per_call"] == 104  # 60 rounded up to whole blocks of 52 steps
        assert r["steps_per_s"] > 0
        assert r["compile_s"] > 0 and r["first_call_s"] > 0
        # two calls of two 52-step blocks: every slot played four whole games
        assert r["games_finished"] == 4 * r["batch"]
        assert r["mean_game_length"] == pytest.approx(52.0)
        assert r["games_per_s"] > 0
    game = data["games"]["gongzhu"]
    assert game["jaxpr_eqns"]["step_total"] >= game["jaxpr_eqns"]["step"] > 0
    assert game["best"]["steps_per_s"] > 0
    (peer,) = game["peers"].values()
    if "skipped" in peer:
        assert "not installed" in peer["skipped"]
    else:
        assert peer["processes"] == 1 and data["config"]["peer_processes"] == 1
        assert peer["ratio"] == pytest.approx(game["best"]["steps_per_s"]
                                              / peer["decisions_per_s"])
        assert peer["ratio_basis"] == "steps/s / decisions/s"
    assert game["state_bytes"] == playout.state_bytes(cardjax.make("gongzhu")) > 0
    printed = capsys.readouterr().out
    assert "steps/s" in printed and "gongzhu" in printed
    assert f"state: {game['state_bytes']:,} bytes per game" in printed


@pytest.mark.parametrize("argv, message", [
    (["--batch-sizes", "0"], "batch size must be positive"),
    (["--batch-sizes", "1,x"], "is not an integer"),
    (["--games", "nope"], "unknown game(s) 'nope'"),
    (["--repeats", "0"], "positive integer"),
    (["--peer-processes", "0"], "positive integer"),
])
def test_bad_flags_exit_with_usage_error(capsys, argv, message):
    assert_usage_error(envs.main, argv, message, capsys)


def assert_usage_error(main, argv, message, capsys):
    """``main(argv)`` exits with argparse's usage error (2) and ``message`` on stderr."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


# (game, peer, the package its function imports, mean decisions per game: exact or at least)
MEASURED_PEERS = [
    ("gongzhu", "open_spiel hearts", "pyspiel", 52),  # no passing: 52 card plays
    ("gongzhu", "open_spiel hearts, Python loop", "pyspiel", 52),
    ("doudizhu", "open_spiel dou_dizhu", "pyspiel", 3),  # at least the three bids
    ("doudizhu", "open_spiel dou_dizhu, Python loop", "pyspiel", 3),
    ("doudizhu", "rlcard doudizhu game", "rlcard", 2),  # a move by someone else first
    ("doudizhu", "rlcard doudizhu env", "rlcard", 2),
    ("doudizhu", "douzero GameEnv", "douzero.env.game", 2),
]


@pytest.mark.parametrize("game, peer, package, decisions", MEASURED_PEERS,
                         ids=[p[1] for p in MEASURED_PEERS])
def test_measured_peer_plays_whole_games(game, peer, package, decisions):
    """Each measured peer, in one worker process for 0.2 s: positive rates and the fields the
    report prints."""
    pytest.importorskip(package)
    fn = dict(peers.PEERS[game])[peer]
    res = fn(0.2, processes=1)
    assert res["measured"] is True and res["processes"] == 1
    assert res["decisions_per_s"] > 0 and res["games_per_s"] > 0
    assert res["decisions_per_s_per_process"] == res["decisions_per_s"]
    assert isinstance(res["note"], str) and res["note"]
    assert res["games"] >= 1 and len(res["per_process"]) == 1
    assert res["decisions_per_s"] == pytest.approx(
        res["games_per_s"] * res["mean_decisions_per_game"])
    if decisions == 52:
        assert res["mean_decisions_per_game"] == 52
    else:
        assert res["mean_decisions_per_game"] >= decisions


def test_openspiel_whole_games_in_processes():
    """Two worker processes at once: the totals are the sums over the processes, and the
    decisions per game of evaluate_bots' games are counted on further games."""
    pytest.importorskip("pyspiel")
    res = peers.bench_openspiel_doudizhu(0.2, processes=2)
    assert res["processes"] == 2 and len(res["per_process"]) == 2
    assert res["decisions_per_s"] == pytest.approx(
        sum(p["decisions_per_s"] for p in res["per_process"]))
    assert res["games_per_s"] == pytest.approx(sum(p["games_per_s"] for p in res["per_process"]))
    assert res["decisions_per_s_per_process"] == pytest.approx(res["decisions_per_s"] / 2)
    assert "further games" in res["decisions_counted"]
    assert 20 < res["mean_decisions_per_game"] < 150


def _broken_worker(seed):
    raise ValueError("no such game")


def test_failing_peer_worker_raises():
    with pytest.raises(peers.PeerError, match="no such game"):
        peers._run_peer(_broken_worker, {}, 0.1, 1, 0)


def _silent_worker(seed):
    import time

    time.sleep(3600)


def test_silent_peer_worker_fails_after_its_grace():
    """A worker that never says it is ready fails the run after ``grace`` seconds (and is
    killed), instead of holding the benchmark forever."""
    with pytest.raises(peers.PeerError, match="_silent_worker worker did not set up within 2 s"):
        peers._run_peer(_silent_worker, {}, 0.1, 1, 0, grace=2.0)


def test_tractor_peer_is_cited_not_measured(capsys):
    ((name, fn),) = peers.PEERS["tractor"]
    res = fn(0.2)
    assert res["measured"] is False and res["decisions_per_s"] is None
    assert res["games_per_s"] == 20 and res["processes"] == 1
    assert res["note"] == ("ShengJi+ report's Python environment, quoted, not re-measured: no "
                           "installable Tractor engine")
    ratio, basis = peers.peer_ratio({"steps_per_s": 5500.0, "games_per_s": 20.0 * 4}, res)
    assert ratio == pytest.approx(4.0) and basis == "games/s / games/s"
    res["ratio"], res["ratio_basis"] = ratio, basis
    report.print_peer(name, res, "hand")
    out = capsys.readouterr().out
    assert "20 hands/s" in out and "NOT measured" in out and "= 4x (hands/s / hands/s)" in out


def test_doudizhu_peers_registered_and_batch_cap(monkeypatch):
    import cardjax

    assert {name for name, _ in peers.PEERS["doudizhu"]} == {
        "open_spiel dou_dizhu", "open_spiel dou_dizhu, Python loop", "rlcard doudizhu game",
        "rlcard doudizhu env", "douzero GameEnv"}
    assert set(playout.BLOCK) >= {"doudizhu", "mini_doudizhu"}
    ddz, mini = cardjax.make("doudizhu"), cardjax.make("mini_doudizhu")
    # the game's fields only: the legal moves are built on demand (not 27,472 bools, nor the
    # 3,456 bytes of them packed)
    assert 200 < playout.state_bytes(ddz) < 512
    assert playout.state_bytes(mini) < 512
    monkeypatch.setattr(playout, "memory_bytes", lambda: 16 * 2 ** 30)
    cap = playout.max_batch(ddz)
    assert cap == 524288  # 16 GiB / 4 / (16 x 314 bytes)
    assert playout.max_batch(mini) > 65536


def test_mini_doudizhu_tiny_run(tmp_path):
    argv = ["--games", "mini_doudizhu", "--batch-sizes", "2", "--steps", "20", "--repeats", "1",
            "--json", str(tmp_path / "b.json")]
    report = envs.main(argv)
    (row,) = report["rows"]
    assert row["steps_per_call"] == 32 and row["block"] == 16  # whole blocks of 16
    assert row["steps_per_s"] > 0 and report["games"]["mini_doudizhu"]["skipped_batch_sizes"] == []
    assert report["games"]["mini_doudizhu"]["peers"] == {}


def test_tractor_tiny_run_counts_sub_actions_and_hands(tmp_path, capsys):
    assert playout.BLOCK["tractor"] == 32
    argv = ["--games", "tractor", "--batch-sizes", "2", "--steps", "320", "--repeats", "1",
            "--json", str(tmp_path / "t.json")]
    report = envs.main(argv)
    (row,) = report["rows"]
    assert row["steps_per_call"] == 320 and row["block"] == 32
    assert row["steps_per_s"] > 0
    # a random hand is a few hundred sub-actions (104 declaration turns alone)
    if row["games_finished"]:
        assert 112 < row["mean_game_length"] < 613
    game = report["games"]["tractor"]
    assert game["units"]["game"] == "hand" and "sub-action" in game["units"]["step"]
    out = capsys.readouterr().out
    assert "a game is one hand (games/s = hands/s)" in out
    # the only Tractor peer is quoted, not measured: it costs nothing and says so
    data = json.loads((tmp_path / "t.json").read_text())
    (peer,) = data["games"]["tractor"]["peers"].values()
    assert peer["measured"] is False and "quoted, not re-measured" in peer["note"]
    assert peer["ratio_basis"] == "games/s / games/s" and peer["ratio"] > 0
    assert data["games"]["tractor"]["state_bytes"] > 0 and "NOT measured" in out


# ------------------------------------------------------------------ cardjax bench training
def test_training_benchmark_dmc_pools_and_dense(tmp_path, capsys):
    """Gongzhu DMC, 2 games: a game is 52 decisions, and pools of 4/8/13 candidates per game
    score fewer candidates than all 13 slots of every game (k_fast 0)."""
    out = tmp_path / "train.json"
    rows = bench_training.main(["--trainer", "gongzhu_dmc", "--num-envs", "2", "--width", "16",
                                 "--depth", "1", "--head-width", "8", "--head-depth", "1",
                                 "--minibatch", "64", "--k-fast", "4,0", "--repeats", "1",
                                 "--json", str(out)])
    data = json.loads(out.read_text())
    assert data["trainer"] == "gongzhu_dmc" and data["width"] == 16 and "lstm" not in data
    assert data["rows"] == json.loads(json.dumps(rows))
    assert [(r["num_envs"], r["k_fast"]) for r in rows] == [(2, 4), (2, 0)]
    for r in rows:
        assert r["frames"] == 2 * 52 and r["steps_run"] == 52
        assert r["frames_per_s"] == pytest.approx(r["frames"] / r["seconds_per_iteration"])
        assert r["compile_s"] > 0 and 0 < r["selfplay_share"] <= 1
    # k_fast 0 scores every slot of every game with a choice
    assert 0 < rows[0]["scored_per_decision"] < rows[1]["scored_per_decision"] <= 13
    assert "frames/s" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--lstm", "8"], "--lstm is a DMC flag"),
    (["--trainer", "shengji", "--lstm", "8"], "--lstm is DouZero's flag"),
    (["--trainer", "douzero", "--k-fast", "4,-1"], "integers >= 0"),
    (["--num-envs", "0"], "integers >= 1"),
    (["--trainer", "chess"], "invalid choice"),
])
def test_training_benchmark_bad_flags(capsys, argv, message):
    assert_usage_error(bench_training.main, argv, message, capsys)


def test_batch_split_across_cpu_devices(tmp_path):
    """``--cpu-devices 2`` splits the host into two XLA devices (in a fresh process: the count is
    fixed when JAX starts) and shards every batch they divide; each device plays whole games."""
    out = tmp_path / "b.json"
    subprocess.run([sys.executable, "-m", "cardjax", "bench", "envs", "--games", "mini_doudizhu",
                    "--batch-sizes", "1,64", "--steps", "64", "--repeats", "1", "--no-peers",
                    "--cpu-devices", "2", "--json", str(out)],
                   check=True, capture_output=True, timeout=300)
    report = json.loads(out.read_text())
    assert report["config"]["cpu_devices"] == 2 and report["device"]["local_device_count"] == 2
    one, split = report["rows"]
    assert (one["batch"], one["devices"]) == (1, 1) and (split["batch"], split["devices"]) == (64, 2)
    # 64 steps of 64 games: mini games last ~14 steps, so every slot finishes several
    assert split["games_finished"] >= 64 * 2
    assert 10 < split["finished_games_steps"] / split["games_finished"] < 20
