"""``--from PLAYER``: a new run starts from a player's parameters (DMC and ScrofaZero), the
network shape is checked in one line, and the lineage (parent, ancestors, minutes, frames)
accumulates through export and load (cardjax.train.continuation).

Sizes are tiny (the configs of test_dmc.py and test_alphazero.py); most tests replace the
runner's loop to see the state a run starts from, one trains two DMC iterations.
"""

from __future__ import annotations

import json
import os
import shutil

import jax
import numpy as np
import pytest

import cardjax
from cardjax import agents, artifact
from cardjax.agents import dmc as dmc_agent
from cardjax.agents import pretrained
from cardjax.commands import export as export_command
from cardjax.commands.train import douzero, scrofazero
from cardjax.nets import policy_value
from cardjax.train import alphazero, continuation, dmc, runner

TINY = {"num_envs": 4, "k": 64, "lstm": 16, "width": 32, "depth": 1, "head_width": 32,
        "head_depth": 2, "minibatch": 64, "replay": 1}
TINY_FLAGS = [x for k, v in TINY.items() for x in (f"--{k}", str(v))] + [
    "--eval_deals", "0", "--no-progress"]
QUIET = ["--eval_deals", "0", "--no-progress"]
GRANDPARENT = {"command": "cardjax train douzero --out runs/a", "device": "1 x H200",
               "date": "2026-12-01", "parent": None, "iteration": 40, "minutes": 1.5,
               "frames": 400, "ancestors": []}
PARENT_LINEAGE = {"command": "cardjax train douzero --from runs/a/player", "device": "2-core CPU",
                  "date": "2026-12-02", "parent": "/runs/a/player", "iteration": 9,
                  "minutes": 2.5, "frames": 1000, "ancestors": [GRANDPARENT]}


@pytest.fixture(scope="module")
def ddz_parent(tmp_path_factory):
    """A tiny Dou Dizhu DMC player (initial parameters of another seed) with a lineage."""
    cfg = dmc.Config.from_dict({**douzero.TRAIN_DEFAULTS, **TINY})
    params = dmc.cached_train(cfg).init(jax.random.PRNGKey(7)).params
    directory = str(tmp_path_factory.mktemp("parent") / "player")
    artifact.write(directory, artifact.describe(
        "dmc", "doudizhu", network=cfg.to_dict(), play={"k": cfg.k}, name="douzero",
        lineage=PARENT_LINEAGE), params)
    return directory


def started(monkeypatch, main, argv) -> dict:
    """The keywords ``main(argv)`` passes to the runner's loop (its ``state`` is the state the
    first iteration starts from); nothing trains."""
    seen = {}

    def fake_run(**kw):
        seen.update(kw)
        return kw["state"]

    monkeypatch.setattr(runner, "run", fake_run)
    main(argv)
    return seen


def same_tree(a, b) -> bool:
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    return len(la) == len(lb) and all(np.array_equal(np.asarray(x), np.asarray(y))
                                      for x, y in zip(la, lb))


def test_dmc_from_starts_from_the_players_parameters(ddz_parent, tmp_path, monkeypatch):
    out = str(tmp_path / "run")
    seen = started(monkeypatch, douzero.main, QUIET + ["--from", ddz_parent, "--out", out])
    state, config = seen["state"], seen["config"]
    # no network flag typed: the player's network (not the command's default sizes)
    assert {k: config[k] for k in ("lstm", "width", "depth", "head_width")} == {
        "lstm": 16, "width": 32, "depth": 1, "head_width": 32}
    player = artifact.read(ddz_parent)
    assert int(state.iteration) == 0 and same_tree(state.params, player.params)
    assert all(not np.any(np.asarray(x)) for x in jax.tree_util.tree_leaves(state.opt_state))
    # the first action values are the player's
    env = cardjax.make("doudizhu")
    value, params = agents.load_value(env, ddz_parent)
    # (in the player's candidate pool: the command's default k is larger)
    mine = dmc_agent.value_from_params(env, state.params, dmc.Config.from_dict(config),
                                       k=player.meta["play"]["k"])
    mine, value = jax.jit(mine), jax.jit(value)
    for seed in range(3):
        s = env.init(jax.random.PRNGKey(seed))
        np.testing.assert_array_equal(np.asarray(mine(state.params, s)),
                                      np.asarray(value(params, s)))
    with open(os.path.join(out, continuation.PARENT)) as f:
        record = json.load(f)
    assert record["parent"] == os.path.abspath(ddz_parent)
    assert record["params_sha256"] == player.meta["params_sha256"]


def test_from_a_shipped_player_just_works(tmp_path, monkeypatch):
    seen = started(monkeypatch, douzero.main,
                   QUIET + ["--from", "doudizhu-pretrained", "--out", str(tmp_path / "r")])
    player = artifact.read(pretrained.path("doudizhu-pretrained"))
    assert same_tree(seen["state"].params, player.params)
    assert continuation.read_parent(str(tmp_path / "r"))["parent"] == "doudizhu-pretrained"


def one_line_exit(main, argv) -> str:
    with pytest.raises(SystemExit) as e:
        main(argv)
    text = str(e.value.code)
    assert text.startswith("error: ") and "\n" not in text
    return text


def test_shape_mismatch_is_one_line(ddz_parent, tmp_path):
    text = one_line_exit(douzero.main, QUIET + ["--from", ddz_parent, "--width", "64",
                                                "--out", str(tmp_path / "w")])
    assert "width 32" in text and "64" in text
    assert not os.path.exists(tmp_path / "w" / "checkpoints")
    # the parameter trees are compared too: the first differing leaf, with both shapes
    params = artifact.read(ddz_parent).params
    other = jax.tree_util.tree_map(lambda x: np.zeros(x.shape[:-1] + (x.shape[-1] + 1,)), params)
    with pytest.raises(ValueError) as e:
        continuation.start_params(params, other, "p")
    assert "\n" not in str(e.value) and "parameter " in str(e.value) and "shape" in str(e.value)
    # another trainer's player, an unknown word
    assert "scrofazero network" in one_line_exit(
        douzero.main, QUIET + ["--from", "scrofazero-pretrained", "--out", str(tmp_path / "x")])
    assert "neither a directory nor a shipped player" in one_line_exit(
        douzero.main, QUIET + ["--from", "no-such-player", "--out", str(tmp_path / "y")])


def test_grow_starts_a_larger_network_with_the_players_values(ddz_parent, tmp_path,
                                                             monkeypatch):
    out = str(tmp_path / "g")
    seen = started(monkeypatch, douzero.main, QUIET + [
        "--from", ddz_parent, "--grow", "--width", "64", "--depth", "2", "--head_depth", "3",
        "--out", out])
    state, config = seen["state"], seen["config"]
    assert {k: config[k] for k in ("lstm", "width", "depth", "head_width", "head_depth")} == {
        "lstm": 16, "width": 64, "depth": 2, "head_width": 32, "head_depth": 3}
    env = cardjax.make("doudizhu")
    value, params = agents.load_value(env, ddz_parent)
    player = artifact.read(ddz_parent)
    mine = jax.jit(dmc_agent.value_from_params(env, state.params, dmc.Config.from_dict(config),
                                               k=player.meta["play"]["k"]))
    value = jax.jit(value)
    for seed in range(3):
        s = env.init(jax.random.PRNGKey(seed))
        np.testing.assert_allclose(np.asarray(mine(state.params, s)),
                                   np.asarray(value(params, s)), rtol=1e-5, atol=1e-5)
    grown = continuation.read_parent(out)["grown"]
    assert grown["from"]["width"] == 32 and grown["to"]["width"] == 64
    assert grown["from"]["head_depth"] == 2 and grown["to"]["head_depth"] == 3
    assert continuation.lineage(out, 0, "frames")["grown"] == grown
    # sizes that cannot grow so, and --grow without --from: one line, nothing written
    text = one_line_exit(douzero.main, QUIET + ["--from", ddz_parent, "--grow", "--width", "48",
                                                "--out", str(tmp_path / "h")])
    assert "width 48 is not a multiple of the player's 32" in text
    assert not os.path.exists(tmp_path / "h" / "checkpoints")
    assert "--from" in one_line_exit(douzero.main, QUIET + ["--grow", "--out",
                                                            str(tmp_path / "i")])


def test_from_with_resume_is_refused(ddz_parent, tmp_path):
    text = one_line_exit(douzero.main, QUIET + ["--from", ddz_parent, "--resume",
                                                "--out", str(tmp_path / "r")])
    assert "--resume" in text
    one_line_exit(scrofazero.main, QUIET + ["--from", "scrofazero-pretrained", "--resume",
                                            "--out", str(tmp_path / "s")])


def test_lineage_accumulates_through_export_and_load(ddz_parent, tmp_path):
    out = str(tmp_path / "run")
    douzero.main(TINY_FLAGS + ["--from", ddz_parent, "--out", out, "--iterations", "1"])
    cfg = dmc.Config.from_dict({**douzero.TRAIN_DEFAULTS, **TINY})
    export = douzero.dmc_cli.export_player(cfg, out)  # what each evaluation writes

    def exported(iteration):
        export(artifact.from_run(out, iteration), iteration)
        return artifact.read(os.path.join(out, "player")).meta["lineage"]

    records = [json.loads(line) for line in open(os.path.join(out, "metrics.jsonl"))]
    lin = exported(1)
    parent = artifact.read(ddz_parent).meta
    assert lin["parent"] == os.path.abspath(ddz_parent)
    assert lin["parent_params_sha256"] == parent["params_sha256"]
    assert lin["iteration"] == 1 and lin["command"]
    assert lin["device"].endswith("-core CPU")
    assert lin["run_frames"] == int(records[0]["frames"]) > 0
    assert lin["frames"] == 1000 + lin["run_frames"]
    assert lin["minutes"] == pytest.approx(2.5 + records[0]["elapsed_s"] / 60, abs=1e-3)
    no_ancestors = {k: v for k, v in PARENT_LINEAGE.items() if k != "ancestors"}
    assert lin["ancestors"] == [no_ancestors, GRANDPARENT]

    # a resumed run knows its parent (parent.json), and adds its frames
    douzero.main(TINY_FLAGS + ["--out", out, "--iterations", "2", "--resume"])
    lin2 = exported(2)
    assert lin2["parent"] == lin["parent"] and lin2["ancestors"] == lin["ancestors"]
    assert lin2["frames"] > lin["frames"] and lin2["minutes"] >= lin["minutes"]
    # ... and the command that started it (its seed), with the resume after it
    commands = continuation.run_commands(out)
    assert [c["resumed"] for c in commands] == [False, True]
    assert lin2["command"] == lin["command"] == commands[0]["command"]
    assert lin["resumed_by"] == [] and lin2["resumed_by"] == [commands[1]["command"]]

    # a run cut before it exported (a lease's limit): `cardjax export --run` reads its newest
    # checkpoint and writes the lineage the trainer would have, parent and totals included
    shutil.rmtree(os.path.join(out, "player"))
    cut = export_command.main(["--run", out, "--name", "tiny-cut", "--command", "cut by its limit",
                               "--device", "1 x H200", "--directory", str(tmp_path / "cut")])
    assert {k: cut["lineage"][k] for k in ("parent", "ancestors", "frames", "minutes",
                                           "run_frames", "iteration")} == \
        {k: lin2[k] for k in ("parent", "ancestors", "frames", "minutes", "run_frames",
                              "iteration")}
    assert cut["lineage"]["command"] == "cut by its limit"
    assert cut["lineage"]["device"] == "1 x H200"
    # and a run continued --from the cut run inherits those totals and ancestors
    cut_parent, _ = continuation.load(out, "dmc", "doudizhu")
    assert {k: cut_parent.meta["lineage"][k] for k in ("parent", "ancestors", "frames",
                                                        "minutes")} == \
        {k: lin2[k] for k in ("parent", "ancestors", "frames", "minutes")}
    export(artifact.from_run(out, 2), 2)

    # shipped (cardjax export) and loaded: the lineage is kept whole; its child nests no further
    meta = pretrained.export(os.path.join(out, "player"), "tiny-continued",
                             directory=str(tmp_path / "shipped"))
    loaded = artifact.load(str(tmp_path / "shipped" / "tiny-continued"))
    assert loaded.meta["lineage"] == meta["lineage"]
    assert loaded.meta["lineage"]["parent"] == lin["parent"]
    assert loaded.meta["lineage"]["ancestors"] == lin["ancestors"]
    player = agents.load(cardjax.make("doudizhu"), str(tmp_path / "shipped" / "tiny-continued"))
    assert player is not None


TINY_AZ = alphazero.Config(num_envs=2, width=16, depth=1, minibatch=64, epochs=1)


def test_scrofazero_from(tmp_path, monkeypatch):
    params = alphazero.make_train(TINY_AZ).init(jax.random.PRNGKey(5)).params
    parent = str(tmp_path / "player")
    artifact.write(parent, artifact.describe("scrofazero", "gongzhu", network=TINY_AZ.to_dict(),
                                             lineage={"minutes": 1.0, "frames": 52}), params)
    flags = QUIET + ["--num_envs", "2", "--minibatch", "64", "--epochs", "1", "--from", parent]
    seen = started(monkeypatch, scrofazero.main, flags + ["--out", str(tmp_path / "a")])
    assert seen["config"]["width"] == 16 and seen["config"]["depth"] == 1
    assert same_tree(seen["state"].params, params)
    text = one_line_exit(scrofazero.main, flags + ["--depth", "2", "--out", str(tmp_path / "b")])
    assert "depth 1" in text and "2" in text
    # --grow: wider and deeper, the same logits and value
    seen = started(monkeypatch, scrofazero.main, flags + ["--grow", "--width", "32", "--depth",
                                                          "2", "--out", str(tmp_path / "c")])
    big = alphazero.Config.from_dict(seen["config"])
    obs = np.random.default_rng(0).integers(0, 2, (4, 434)).astype(np.float32)
    small_out = policy_value.from_config(TINY_AZ.to_dict()).apply(params, obs)
    big_out = policy_value.from_config(big.to_dict()).apply(seen["state"].params, obs)
    for a, b in zip(small_out, big_out):
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-4, atol=1e-3)
    assert continuation.read_parent(str(tmp_path / "c"))["grown"]["to"] == {"width": 32,
                                                                         "depth": 2}


def test_run_totals_read_without_the_trainer(tmp_path):
    """A run's frames when its trainer is not known (``cardjax export --run`` of a cut run):
    the ``frames`` metric where the records have it, else each iteration's speed times its
    seconds (ScrofaZero's ``positions_per_s``); the minutes are the last record's elapsed time."""
    records = [{"iteration": 1, "seconds": 0.5, "elapsed_s": 30.0, "positions_per_s": 208.0},
               {"iteration": 2, "seconds": 0.25, "elapsed_s": 90.0, "positions_per_s": 416.0},
               {"iteration": 3, "seconds": 1.0, "elapsed_s": 150.0, "positions_per_s": 1.0}]
    (tmp_path / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    assert continuation.run_totals(str(tmp_path), 2, None) == (1.5, 208)
    dmc_like = [dict(r, frames=7, frames_per_s=1.0) for r in records]
    (tmp_path / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in dmc_like))
    assert continuation.run_totals(str(tmp_path), 3, None) == (2.5, 21)


def test_export_average_is_the_mean_of_the_players(ddz_parent, tmp_path):
    """``cardjax export --run A --average B``: the parameters are A's and B's mean, the lineage
    A's with B under ``averaged_with``; a player of another config or shape, or a word that names
    nothing, is refused in one line before anything is written."""
    parent = artifact.read(ddz_parent)
    later = str(tmp_path / "later")
    shifted = jax.tree_util.tree_map(lambda x: np.asarray(x) + 1.0, parent.params)
    artifact.write(later, dict(parent.meta, lineage={"iteration": 12, "minutes": 3.0}), shifted)
    out = tmp_path / "shipped"
    meta = export_command.main(["--run", ddz_parent, "--average", later, "--name", "tiny-avg",
                                "--directory", str(out)])
    avg = artifact.read(str(out / "tiny-avg"))
    for a, b in zip(jax.tree_util.tree_leaves(avg.params),
                    jax.tree_util.tree_leaves(parent.params)):
        np.testing.assert_allclose(a, np.asarray(b) + 0.5, rtol=1e-6, atol=1e-6)
    assert meta["lineage"]["frames"] == PARENT_LINEAGE["frames"]  # the first player's totals
    (record,) = meta["lineage"]["averaged_with"]
    assert record["player"] == later and record["iteration"] == 12
    assert record["params_sha256"] == artifact.read(later).meta["params_sha256"]
    assert agents.load(cardjax.make("doudizhu"), str(out / "tiny-avg")) is not None

    wider = str(tmp_path / "wider")
    artifact.write(wider, dict(parent.meta, network=dict(parent.meta["network"], width=64)),
                   parent.params)
    text = one_line_exit(export_command.main, ["--run", ddz_parent, "--average", wider,
                                               "--name", "bad", "--directory", str(out)])
    assert "width 64" in text and "32" in text
    cut = str(tmp_path / "cut")
    leaves = continuation._flat(parent.params)
    first = sorted(leaves)[0]
    artifact.write(cut, parent.meta, {**leaves, first: np.zeros((1, 1), np.float32)})
    text = one_line_exit(export_command.main, ["--run", ddz_parent, "--average", cut,
                                               "--name", "bad", "--directory", str(out)])
    assert first in text and "shape (1, 1)" in text
    text = one_line_exit(export_command.main, ["--run", ddz_parent, "--average", "no-such",
                                               "--name", "bad", "--directory", str(out)])
    assert "no-such" in text
    assert not (out / "bad").exists()
