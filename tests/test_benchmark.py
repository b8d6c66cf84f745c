"""scripts/benchmark.py runs end to end on a tiny config and rejects bad flags."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "benchmark.py"


@pytest.fixture(scope="module")
def bench_script():
    spec = importlib.util.spec_from_file_location("cardjax_benchmark_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tiny_run_writes_json(bench_script, tmp_path, capsys):
    out = tmp_path / "bench.json"
    argv = ["--games", "gongzhu", "--batch-sizes", "1,8", "--steps", "60", "--repeats", "1",
            "--no-peers", "--json", str(out)]
    report = bench_script.main(argv)
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
    assert game["peers"] == {}
    printed = capsys.readouterr().out
    assert "steps/s" in printed and "gongzhu" in printed


@pytest.mark.parametrize("argv, message", [
    (["--batch-sizes", "0"], "batch size must be positive"),
    (["--batch-sizes", "1,x"], "is not an integer"),
    (["--games", "nope"], "unknown game(s) 'nope'"),
    (["--repeats", "0"], "positive integer"),
])
def test_bad_flags_exit_with_usage_error(bench_script, capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        bench_script.main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_openspiel_peer_counts_decisions(bench_script):
    pytest.importorskip("pyspiel")
    res = bench_script.bench_openspiel_hearts(0.05)
    assert res["games"] >= 1
    assert res["decisions"] >= 52 * res["games"]
    assert res["steps_per_s"] > 0
