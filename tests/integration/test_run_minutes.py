"""``--minutes``: a run ends at the first iteration after which its training steps have taken
that long (resumed ones counted), saving and evaluating it as the last one."""
from __future__ import annotations

import json
import time

import jax
import jax.numpy as jnp
import pytest
from flax import struct

from cardjax.train import runner
from cardjax.checkpoint import Checkpoints

STEP_S = 0.06


@struct.dataclass
class Counter:
    iteration: jax.Array
    x: jax.Array


def slow_count(s):
    time.sleep(STEP_S)
    return s.replace(iteration=s.iteration + 1, x=s.x + 1.0), {"loss": s.x}


def records(out):
    with open(f"{out}/metrics.jsonl") as f:
        return [json.loads(line) for line in f]


def train(out, state, minutes, evaluated):
    def evaluate(s):
        evaluated.append(int(s.iteration))
        return {"mean": float(s.x), "stderr": 0.0}

    return runner.run(out=out, state=state, step=slow_count, config={}, iterations=1000,
                      units_per_iteration=1, evaluate=evaluate, eval_every=500,
                      checkpoint_every=500, progress=False, minutes=minutes)


def test_minutes_end_the_run_saved_and_evaluated_and_resume_counts_them(tmp_path):
    out, evaluated = str(tmp_path / "run"), []
    minutes = 6 * STEP_S / 60  # about six steps
    final = train(out, Counter(jnp.int32(0), jnp.float32(0)), minutes, evaluated)

    stopped = int(final.iteration)
    times = [r["elapsed_s"] for r in records(out)]
    assert len(times) == stopped and 2 <= stopped <= 6
    assert times[-1] >= 60 * minutes > times[-2]  # the first iteration past the minutes
    assert Checkpoints(out).latest() == stopped  # saved though checkpoint_every is 500
    assert evaluated == [stopped]  # evaluated though eval_every is 500

    # resumed with the same minutes: nothing left to train
    again = train(out, final, minutes, evaluated)
    assert int(again.iteration) == stopped and len(records(out)) == stopped
    # with twice the minutes the run goes on, its clock starting where it stopped
    more = train(out, final, 2 * minutes, evaluated)
    times = [r["elapsed_s"] for r in records(out)]
    assert int(more.iteration) == len(times) > stopped
    assert times[-1] >= 120 * minutes > times[-2]
    assert Checkpoints(out).latest() == int(more.iteration)
    assert evaluated == [stopped, int(more.iteration)]


def test_minutes_are_a_flag_of_every_training_command():
    import argparse

    p = argparse.ArgumentParser()
    runner.add_run_flags(p, out="runs/x", iterations=10)
    assert p.parse_args(["--minutes", "2.5"]).minutes == 2.5
    assert p.parse_args([]).minutes is None
    for bad in ("0", "-1", "soon"):
        with pytest.raises(SystemExit):
            p.parse_args(["--minutes", bad])
