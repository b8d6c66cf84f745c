"""The artifact format (cardjax.artifact): what is written reads back exactly; a directory caught
half-way through a write, a malformed or foreign description, other rules or a missing file are
refused in one line; an old run directory reads without its trainer."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from cardjax import artifact, registry
from cardjax.checkpoint import Checkpoints

PARAMS = {"net": {"Dense_0": {"kernel": np.arange(6, dtype=np.float32).reshape(2, 3),
                              "bias": np.zeros(3, np.float32)}},
          "count": np.int32(7)}


def _write(directory, **extra):
    meta = artifact.describe("dmc", "tractor", network={"width": 3}, play={"k": 4},
                             lineage=artifact.lineage(command="train", device="cpu",
                                                      iteration=5), name="mine", **extra)
    return artifact.write(str(directory), meta, PARAMS)


def _same(a, b):
    assert sorted(a) == sorted(b)
    for k in a:
        if isinstance(a[k], dict):
            _same(a[k], b[k])
        else:
            np.testing.assert_array_equal(np.asarray(a[k]), np.asarray(b[k]))


def test_what_is_written_reads_back(tmp_path):
    meta = _write(tmp_path / "p")
    assert sorted(os.listdir(tmp_path / "p")) == ["params.msgpack", "player.json"]
    art = artifact.read(str(tmp_path / "p"))
    assert art.meta == meta and art.kind == "dmc" and art.game == "tractor"
    assert meta["rules"] == registry.rules("tractor") and meta["parameters"] == 10
    assert meta["lineage"]["command"] == "train" and meta["lineage"]["iteration"] == 5
    _same(art.params, PARAMS)


def test_parameters_stored_at_half_precision_read_back_as_float32(tmp_path):
    """``half=True`` stores float32 leaves as float16 (half the file), says so in the
    description, and reads back float32 within float16's rounding; integers stay exact."""
    meta = artifact.describe("dmc", "tractor", network={})
    weights = {"w": np.linspace(-3, 3, 1000, dtype=np.float32), "count": np.int32(7)}
    full = artifact.write(str(tmp_path / "full"), meta, weights)
    half = artifact.write(str(tmp_path / "half"), meta, weights, half=True)
    assert half["precision"] == "float16" and "precision" not in full
    size = {d: os.path.getsize(tmp_path / d / "params.msgpack") for d in ("full", "half")}
    assert size["half"] < 0.6 * size["full"], size
    art = artifact.read(str(tmp_path / "half"))
    assert art.params["w"].dtype == np.float32 and art.params["count"] == 7
    np.testing.assert_allclose(art.params["w"], weights["w"], rtol=1e-3)
    assert not np.array_equal(art.params["w"], weights["w"])  # rounded: float16 was stored
    # written again at full precision, the description no longer says half
    again = artifact.write(str(tmp_path / "half"), half, art.params)
    assert "precision" not in again


def test_a_player_stored_at_half_precision_is_exported_at_half(tmp_path):
    """A float16 player exported again (``cardjax ladder --ship``, ``cardjax export``) keeps its
    precision: float32 would double the file and add nothing; the parameters are the same."""
    from cardjax.agents import pretrained

    meta = artifact.describe("dmc", "tractor", network={})
    weights = {"w": np.linspace(-3, 3, 1000, dtype=np.float32)}
    artifact.write(str(tmp_path / "half"), meta, weights, half=True)
    artifact.write(str(tmp_path / "full"), meta, weights)
    shipped = {src: pretrained.export(str(tmp_path / src), "p_" + src,
                                      directory=str(tmp_path / "ship"))
               for src in ("half", "full")}
    assert shipped["half"]["precision"] == "float16" and "precision" not in shipped["full"]
    again = artifact.read(str(tmp_path / "ship" / "p_half"))
    np.testing.assert_array_equal(again.params["w"],
                                  artifact.read(str(tmp_path / "half")).params["w"])


def test_a_half_written_or_mixed_directory_never_reads_as_valid(tmp_path):
    _write(tmp_path / "p")
    other = tmp_path / "q"
    artifact.write(str(other), artifact.describe("dmc", "tractor", network={}),
                   {"w": np.ones(2, np.float32)})
    # the parameters of another export beside this description: what a write stopped between
    # its two files leaves
    os.replace(other / "params.msgpack", tmp_path / "p" / "params.msgpack")
    with pytest.raises(ValueError, match="not the file player.json describes"):
        artifact.read(str(tmp_path / "p"))
    os.remove(tmp_path / "p" / "params.msgpack")
    with pytest.raises(ValueError, match="no params.msgpack beside player.json"):
        artifact.read(str(tmp_path / "p"))


@pytest.mark.parametrize("text, match", [
    ("{not json", "unreadable"),
    ('["a list"]', "not a cardjax player description"),
    ('{"format": "something-else"}', "not a cardjax player description"),
    ('{"format": "cardjax-player", "format_version": 9}', "format version 9"),
    ('{"format": "cardjax-player", "format_version": 1, "kind": "dmc"}', "missing game"),
])
def test_a_malformed_description_is_refused_in_one_line(tmp_path, text, match):
    _write(tmp_path)
    (tmp_path / "player.json").write_text(text)
    with pytest.raises(ValueError, match=match) as e:
        artifact.read(str(tmp_path))
    assert "\n" not in str(e.value)


def test_other_rules_or_no_artifact_are_refused(tmp_path):
    _write(tmp_path / "p")
    path = tmp_path / "p" / "player.json"
    meta = json.loads(path.read_text())
    path.write_text(json.dumps({**meta, "rules": "tractor@7"}))
    with pytest.raises(registry.RulesMismatch, match="tractor@7; this cardjax has tractor@1"):
        artifact.read(str(tmp_path / "p"))
    with pytest.raises(ValueError, match="no player.json"):
        artifact.read(str(tmp_path))
    with pytest.raises(ValueError, match="unknown artifact kind"):
        artifact.describe("alphago", "tractor", network={})


def test_an_old_run_directory_reads_without_its_trainer(tmp_path):
    """A checkpoint's parameters come back without a template of the train state; a run's
    ``player/`` artifact is used where it was written at the checkpoint asked for."""
    run = tmp_path / "run"
    ckpt = Checkpoints(str(run))
    state = {"params": PARAMS["net"], "opt_state": [np.ones(2, np.float32)],
             "iteration": np.int32(3)}
    ckpt.save(3, state, {"algorithm": "dmc", "game": "tractor", "width": 3})
    ckpt.wait()
    ckpt.close()
    art = artifact.from_run(str(run))
    assert art.kind == "dmc" and art.game == "tractor" and art.meta["network"]["width"] == 3
    assert art.meta["lineage"]["iteration"] == 3
    _same(art.params, PARAMS["net"])
    assert artifact.from_run(str(run / "checkpoints")).meta["lineage"]["iteration"] == 3
    artifact.write(str(run / "player"), artifact.describe(
        "dmc", "tractor", network={"width": 3}, lineage=artifact.lineage(
            command="c", device="d", iteration=3)), {"w": np.ones(1, np.float32)})
    assert sorted(artifact.from_run(str(run)).params) == ["w"]
    with pytest.raises(ValueError, match="not a training run directory"):
        artifact.from_run(str(tmp_path))
