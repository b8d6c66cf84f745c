"""A training command meets a damaged or missing run the way a person needs: one line saying
what is wrong, a fall back to the newest intact checkpoint, and nothing lost or created by
mistake.  Gongzhu DMC at the tiny sizes of tests/integration/test_dmc_gongzhu.py (the same compiled step)."""

from __future__ import annotations

import gc
import hashlib
import json
import os
import pathlib
import subprocess
import sys

import pytest

from cardjax.commands.train import gongzhu_dmc
from conftest import read_metrics


TINY = {"num_envs": 8, "width": 16, "depth": 1, "head_width": 16, "head_depth": 2,
        "minibatch": 64, "replay": 1}
FLAGS = [x for k, v in TINY.items() for x in (f"--{k}", str(v))] + [
    "--eval_deals", "0", "--no-progress", "--checkpoint_every", "1"]
TIMING = {"seconds", "elapsed_s", "frames_per_s"}


def snapshot(root) -> dict:
    """path -> sha256 of every file under ``root``."""
    root = pathlib.Path(root)
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def biggest_state_file(out, iteration) -> pathlib.Path:
    files = [p for p in (pathlib.Path(out) / "checkpoints" / str(iteration) / "state").rglob("*")
             if p.is_file()]
    return max(files, key=lambda p: p.stat().st_size)


def truncate(path: pathlib.Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])


def same_metrics(a, b):
    ra, rb = read_metrics(a), read_metrics(b)
    assert [{k: v for k, v in r.items() if k not in TIMING} for r in ra] == \
        [{k: v for k, v in r.items() if k not in TIMING} for r in rb]


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("recovery") / "straight")
    gongzhu_dmc.main(FLAGS + ["--out", out, "--iterations", "3"])
    return out


def stopped_at_2(tmp_path) -> str:
    out = str(tmp_path / "run")
    gongzhu_dmc.main(FLAGS + ["--out", out, "--iterations", "2"])
    assert sorted(os.listdir(pathlib.Path(out) / "checkpoints")) == ["1", "2"]
    return out


def test_truncated_checkpoint_resumes_from_the_one_before(straight, tmp_path, capsys):
    out = stopped_at_2(tmp_path)
    truncate(biggest_state_file(out, 2))
    capsys.readouterr()
    gongzhu_dmc.main(["--out", out, "--iterations", "3", "--resume", "--no-progress"])
    err = capsys.readouterr().err
    assert "checkpoint of iteration 2 in" in err and "is unreadable" in err
    assert "resuming" in err and "at iteration 1 (the newest intact checkpoint)" in err
    # the damaged one is kept aside for a person, and training went on exactly
    assert (pathlib.Path(out) / "checkpoints" / "unreadable-2").is_dir()
    same_metrics(straight, out)


def test_scrambled_config_resumes_from_the_one_before(straight, tmp_path, capsys):
    out = stopped_at_2(tmp_path)
    meta = pathlib.Path(out) / "checkpoints" / "2" / "config" / "metadata"
    meta.write_text("{\"algorithm\": \"dm" + "\x00" * 20)
    capsys.readouterr()
    gongzhu_dmc.main(["--out", out, "--iterations", "3", "--resume", "--no-progress"])
    err = capsys.readouterr().err
    assert "checkpoint of iteration 2 in" in err and "unreadable" in err
    assert "at iteration 1 (the newest intact checkpoint)" in err
    same_metrics(straight, out)


# orbax leaves its reads of the truncated arrays unawaited when one fails; collected, each says
# "Exception ignored" (a warning pytest pins on whichever test is running then)
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_no_intact_checkpoint_is_one_line_and_touches_nothing(tmp_path):
    out = stopped_at_2(tmp_path)
    for it in (1, 2):
        truncate(biggest_state_file(out, it))
    before = snapshot(out)
    with pytest.raises(SystemExit, match=r"no intact checkpoint in .* \(tried iterations 2, 1\); "
                       r"the run directory is unchanged"):
        gongzhu_dmc.main(["--out", out, "--iterations", "3", "--resume", "--no-progress"])
    assert snapshot(out) == before
    gc.collect()  # here, not in a later test


def test_resume_needs_a_run(tmp_path):
    missing = tmp_path / "mistyped"
    with pytest.raises(SystemExit, match="--resume: no run in .*mistyped"):
        gongzhu_dmc.main(FLAGS + ["--out", str(missing), "--iterations", "1", "--resume"])
    assert not missing.exists()  # nothing was created


def test_unwritable_out_fails_before_any_work(tmp_path):
    """In a fresh process: exit status 2 and one line on stderr, before anything is compiled."""
    r = subprocess.run([sys.executable, "-m", "cardjax", "train", "gongzhu_dmc", "--out",
                        "/proc/cardjax-run",
                        "--iterations", "1", "--no-progress"],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, JAX_PLATFORMS="cpu"))
    assert r.returncode == 2, r.stderr
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert lines == [lines[-1]] and lines[0].startswith("error: --out /proc/cardjax-run: cannot "
                                                          "write there"), r.stderr
    assert json.dumps(r.stdout) == '""'
