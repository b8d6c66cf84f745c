"""The ladder's gate (``cardjax ladder``) and the lease script (``benchmarks/lease.sh``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import jax
import pytest

import cardjax
from cardjax import agents
from cardjax.agents import pretrained
from cardjax.commands import ladder
import lease_python

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHIPPED_DDZ = pretrained.path("doudizhu-pretrained")


def test_decide_refuses_below_two_standard_errors():
    ok, reason = ladder.decide(0.05, 0.03, 2048, 1024)
    assert not ok and "2 s.e." in reason and "0.0600" in reason and "+0.0500" in reason
    assert not ladder.decide(0.06, 0.03, 2048)[0]  # equal to the bar is not above it
    assert not ladder.decide(-0.5, 0.1, 4096)[0]
    assert not ladder.decide(float("nan"), 0.1, 4096)[0]


def test_decide_refuses_too_few_deals():
    ok, reason = ladder.decide(1.0, 0.01, 1000, 1024)
    assert not ok and "1000 deals < the 1024" in reason
    assert not ladder.decide(1.0, 0.01, 512)[0]  # min_deals defaults to 1,024


def test_decide_passes_above():
    ok, reason = ladder.decide(0.07, 0.03, 1024, 1024)
    assert ok and reason.startswith("passes")
    assert ladder.decide(0.2, 0.0, 4, 4)[0]


def test_seeds_of_the_lineage_are_refused():
    lineage = {"command": "cardjax train douzero --from doudizhu-pretrained --seed 3 "
                          "--eval_seed=77",
               "ancestors": [{"command": "python experiments/douzero.py --num_envs 64"}]}
    used, recorded = ladder.seeds_used(lineage)
    assert recorded and used == {3, 77, 0, 12345}  # the ancestor typed none: the defaults
    assert not ladder.check_seed(77, lineage)[0]
    assert ladder.check_seed(20261128, lineage)[0]
    ok, note = ladder.check_seed(0, {})
    assert ok and "caller must pass" in note
    # a resumed run's lineage: the command that started it, then its resumes
    resumed = {"command": "cardjax train shengji --seed 1214 --out r",
               "resumed_by": ["cardjax train shengji --resume --out r --eval_seed 9"]}
    assert ladder.seeds_used(resumed)[0] == {1214, 12345, 0, 9}


def test_seed_refusal_is_one_line_and_nonzero():
    """The shipped Dou Dizhu player's lineage records its training command (eval seed 12345 by
    default): that seed is refused before any deal is played."""
    r = subprocess.run([sys.executable, "-m", "cardjax", "ladder", "--game", "doudizhu",
                        "--candidate", SHIPPED_DDZ, "--shipped", "doudizhu-pretrained",
                        "--deals", "4", "--seed", "12345"], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "seed 12345" in lines[0] and lines[0].startswith("error: ladder")


def test_ladder_refuses_a_player_that_does_not_beat_the_shipped_one(tmp_path):
    """The shipped player against itself: level (0 +- 0), so refused with the figure and the bar;
    ``--ship`` ships nothing, ``--baselines`` are not played and the page is untouched."""
    doc = tmp_path / "pretrained.md"
    doc.write_text("# Pretrained players\n")
    with pytest.raises(SystemExit) as e:
        ladder.main(["--game", "doudizhu", "--candidate", SHIPPED_DDZ,
                     "--shipped", "doudizhu-pretrained", "--deals", "4", "--seed", "7",
                     "--min-deals", "4", "--no-progress", "--ship", "--doc", str(doc),
                     "--save", str(tmp_path / "l.json"), "--baselines", "rule"])
    message = str(e.value.code)
    assert message.startswith("error: ladder refused") and "\n" not in message
    assert "2 s.e." in message and "over 4 deals" in message
    saved = json.loads((tmp_path / "l.json").read_text())
    assert saved["ok"] is False and not saved["shipped_now"]
    assert saved["head_to_head"]["deals"] == 4
    assert saved["baselines"] == {}  # a refused player is not played further
    assert doc.read_text() == "# Pretrained players\n"


def test_a_candidate_plays_and_ships_with_the_shipped_players_settings_it_lacks():
    """A network continued from the shipped player (a lease's) keeps what the shipped one plays
    with -- ScrofaZero's worlds from its card-location network, a Dou Dizhu player's bids --
    and its own settings win."""
    shipped = {"play": {"inference": "gongzhu-inference", "worlds": 9}}
    assert ladder.inherited_play(shipped, {}) == {"inference": "gongzhu-inference", "worlds": 9}
    assert ladder.inherited_play(shipped, {"play": {"worlds": 27}}) == {
        "inference": "gongzhu-inference"}
    assert ladder.inherited_play({"play": {}}, {"play": {"b": 3}}) == {}
    assert ladder.inherited_play(pretrained.info("doudizhu-pretrained"), {}) == {
        "k": 512, "bids": {"strength": -8.0}}


def test_ship_refuses_a_candidate_whose_play_names_a_local_directory(tmp_path):
    """A shipped player naming ``runs/...`` would not load on another machine: the export refuses
    it, and ``--ship`` says which setting and how to export it before a deal is played."""
    from cardjax import artifact

    net = tmp_path / "inference_run"
    net.mkdir()
    sz = artifact.read(artifact.shipped("scrofazero-pretrained"))
    cand = tmp_path / "cand"
    artifact.write(str(cand), dict(sz.meta, play={"inference": str(net), "worlds": 18}), sz.params)
    assert pretrained.local_paths({"inference": str(net), "worlds": 18,
                                   "x": "gongzhu-inference"}) == {"inference": str(net)}
    with pytest.raises(ValueError, match="names a directory on this machine"):
        pretrained.export(str(cand), "x", directory=str(tmp_path / "shipped"))
    r = subprocess.run([sys.executable, "-m", "cardjax", "export", "--run", str(cand), "--name",
                        "x", "--directory", str(tmp_path / "shipped")], capture_output=True,
                       text=True, cwd=ROOT, timeout=120)
    assert r.returncode != 0 and r.stderr.strip().splitlines() == [
        f"error: {cand}: the play setting inference={net} names a directory on this machine; "
        f"export it (cardjax export --run {net} --name NAME) and set inference=NAME"]
    with pytest.raises(SystemExit) as e:
        ladder.main(["--game", "gongzhu", "--candidate", str(cand), "--shipped",
                     "scrofazero-pretrained", "--deals", "4", "--seed", "7", "--min-deals", "4",
                     "--no-progress", "--ship", "--doc", str(tmp_path / "p.md")])
    message = str(e.value.code)
    assert message.startswith("error: --ship:") and f"inference={net}" in message
    assert "cardjax export --run" in message and "\n" not in message
    assert not (tmp_path / "p.md").exists()


def test_ladder_row_is_appended_under_its_section(tmp_path):
    doc = tmp_path / "p.md"
    doc.write_text("# P\n\n## Ladder\n\nthe rule.\n\n## Other\n\ntext\n")
    head = {"mean": 0.31, "stderr": 0.05, "deals": 2048, "seed": 9}
    row = ladder.ladder_row("2026-11-28", "doudizhu-pretrained", head,
                            {"rule": dict(head, mean=1.1)}, {"parent": "doudizhu-pretrained",
                                                             "minutes": 27.0, "frames": 10})
    ladder.append_row(str(doc), row)
    ladder.append_row(str(doc), row.replace("2026-11-28", "2026-11-29"))
    text = doc.read_text()
    section = text.split("## Ladder")[1].split("## Other")[0]
    assert section.count("| 2026-11-2") == 2 and "|---|" in section
    assert "+0.310 ± 0.050 (2048 deals, seed 9)" in section and "rule +1.100" in section
    assert text.index("2026-11-29") > text.index("2026-11-28")


def test_ladder_row_names_the_parent_as_the_repository_does(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    head = {"mean": 0.026, "stderr": 0.0098, "deals": 4096, "seed": 9}
    parent = os.path.join(str(tmp_path), "benchmarks", "cand")
    row = ladder.ladder_row("2026-12-05", "tractor-pretrained", head, {},
                            {"parent": parent, "minutes": 520.474, "frames": 43906346,
                             "device": "2-core CPU"})
    assert row.endswith("| parent benchmarks/cand, 520 min and 43.9 M frames in the lineage, "
                        "2-core CPU |")
    assert "not measured" in row and str(tmp_path) not in row
    outside = ladder.ladder_row("d", "p", head, {}, {"parent": "/elsewhere/x"})
    assert "parent /elsewhere/x, ? min and ? frames in the lineage, ? |" in outside


def _lease(tmp_path, players, parse=True, **extra):
    """benchmarks/lease.sh with the stand-in python (tests/integration/lease_python.py): the
    calls it made, each parsed with its command's own parser unless ``parse`` is false (a flag
    it does not know fails here; the arena's parser wants its players' folders, which packing
    removes), its summary and its output folder."""
    out, calls = tmp_path / "lease", tmp_path / "calls.jsonl"
    stub = os.path.join(ROOT, "tests", "integration", "lease_python.py")
    env = {**os.environ, "LEASE_TINY": "1", "LEASE_PLAYERS": players, "OUT": str(out),
           "LEASE_CALLS": str(calls), "LEASE_SEED": "777", "LEASE_SHIPPED": pretrained.DIRECTORY,
           "PYTHON": f"{sys.executable} {stub}", **extra}
    r = subprocess.run(["bash", os.path.join(ROOT, "benchmarks", "lease.sh"), "0.2"], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    lines = calls.read_text().splitlines() if calls.exists() else []
    made = [json.loads(x) for x in lines]
    for call in made if parse else []:
        lease_python.parse_call(call)
    return made, (out / "summary.txt").read_text(), out


def test_lease_script_runs_train_ladder_and_arena_per_player(tmp_path):
    """Each player: ``train <recipe> --from <player>`` for its share of the minutes, then the
    ladder against the shipped player on the lease's seed, then the arena against its baseline;
    the exported player and the evaluations come back under OUT/<player>/, the summary says what
    each did, and the ladder's refusal (a handful of deals) does not stop the script."""
    calls, summary, out = _lease(tmp_path, "tractor-pretrained doudizhu-pretrained",
                                 LEASE_PACK="0")
    assert [c[:2] for c in calls] == [["train", "shengji"], ["ladder", "--game"],
                                      ["arena", "--game"], ["train", "douzero"],
                                      ["ladder", "--game"], ["arena", "--game"]]
    assert calls[0][calls[0].index("--minutes") + 1] == "0.133"  # shares 2 : 1
    # each slot: its share of the 12 s of minutes and its 210 s of slack (tiny), 432 s in all
    assert "slot ends at +218 s" in summary and "slot ends at +432 s" in summary
    flags = dict(zip(calls[3][2::2], calls[3][3::2]))
    assert flags["--from"] == "doudizhu-pretrained" and flags["--minutes"] == "0.067"
    dest = out / "doudizhu-pretrained"
    ladder_flags = dict(zip(calls[4][1::2], calls[4][2::2]))
    assert ladder_flags["--candidate"] == str(dest / "player")
    assert ladder_flags["--shipped"] == "doudizhu-pretrained" and ladder_flags["--seed"] == "777"
    assert calls[5][calls[5].index("--b") + 1] == "rule"
    for name in ("doudizhu-pretrained", "tractor-pretrained"):
        for f in ("eval.json", "metrics.jsonl", "ladder.txt", "ladder.json", "arena_rule.json",
                  "train.log"):
            assert (out / name / f).is_file(), (name, f, summary)
        assert json.loads((out / name / "arena_rule.json").read_text())["mean"] == 0.75
    assert summary.count("vs rule: +0.750 +- 0.250 over 4 deals") == 2 and "done at" in summary
    game = cardjax.make("doudizhu")
    player = agents.load(game, str(dest / "player"))
    state = game.init(jax.random.PRNGKey(0))
    assert bool(state.legal_action_mask[int(player.act(player.params, jax.random.PRNGKey(1),
                                                       state))])


def test_lease_script_goes_on_past_a_failed_training_and_packs(tmp_path):
    """A player whose training fails is reported with its log's tail and skipped (no ladder, no
    arena); the next player still runs; LEASE_PACK=1 packs each player's folder."""
    calls, summary, out = _lease(tmp_path, "scrofazero-pretrained doudizhu-pretrained",
                                 parse=False, LEASE_FAIL="scrofazero", LEASE_PACK="1")
    assert [c[:2] for c in calls] == [["train", "scrofazero"], ["train", "douzero"],
                                      ["ladder", "--game"], ["arena", "--game"]]
    assert "scrofazero-pretrained: no exported player" in summary
    assert "training failed (stand-in)" in summary
    assert sorted(p.name for p in out.iterdir()) == ["doudizhu-pretrained.tgz",
                                                     "scrofazero-pretrained.tgz", "summary.txt"]


def test_lease_script_passes_only_flags_its_commands_know(tmp_path):
    """Every flag the script gives train, ladder and arena at GPU sizes parses with the
    command's own parser (the stand-in parses them): a renamed flag fails here."""
    calls, summary, _ = _lease(tmp_path, "scrofazero-pretrained doudizhu-pretrained "
                               "tractor-pretrained", LEASE_TINY="0", LEASE_PACK="0",
                               LEASE_SECONDS="900", LEASE_EVAL_RESERVE="20")
    assert [c[0] for c in calls] == ["train", "ladder", "arena", "arena"] * 3, summary
    assert "--counterfactual" in calls[8] and "4096" in calls[0]
    # Gongzhu's shipped 128 x 2 network is grown into the paper's shape
    assert calls[0][calls[0].index("--from") + 1] == "scrofazero-pretrained"
    assert "--grow" in calls[0] and calls[0][calls[0].index("--width") + 1] == "512"
    assert calls[0][calls[0].index("--depth") + 1] == "6"
    assert "grown into the lease's network" in summary
    assert calls[4][calls[4].index("--from") + 1] == "doudizhu-pretrained"
    tractor = calls[8]  # the shipped player has the lease's shape: continued as it is
    assert tractor[tractor.index("--from") + 1] == "tractor-pretrained"
    assert "--grow" not in tractor and "--head_width" not in tractor


def _artifact(path, width, depth):
    os.makedirs(path)
    with open(os.path.join(path, "player.json"), "w") as f:
        json.dump({"network": {"width": width, "depth": depth}}, f)
    return path


@pytest.mark.parametrize("width, grow, continued", [
    (512, "grow", "as is"), (128, "grow", "grown"), (128, "fresh", "fresh"), (128, "0", "as is")])
def test_lease_continues_lease_from_when_it_has_the_lease_shape(tmp_path, width, grow,
                                                                continued):
    """LEASE_FROM's artifact is continued in place of the shipped player: as it is when its
    network is the lease's (512 x 6 for Gongzhu) or LEASE_GROW=0, grown into the lease's by
    default, a fresh network in its place with LEASE_GROW=fresh.  The ladder still plays the
    shipped player."""
    art = _artifact(str(tmp_path / "earlier"), width, 6 if width == 512 else 2)
    calls, summary, _ = _lease(tmp_path, "scrofazero-pretrained", LEASE_TINY="0",
                               LEASE_PACK="0", LEASE_SECONDS="400", LEASE_EVAL_RESERVE="20",
                               LEASE_FROM=f"scrofazero-pretrained={art}", LEASE_GROW=grow)
    train, ladder = calls[0], calls[1]
    assert (train[train.index("--from") + 1] == art) if continued != "fresh" else (
        "--from" not in train)
    assert ("--grow" in train) == (continued == "grown")
    if continued != "as is":
        assert train[train.index("--width") + 1] == "512"
    assert ladder[ladder.index("--shipped") + 1] == "scrofazero-pretrained"


def test_a_cut_run_comes_back_as_its_newest_checkpoint(tmp_path):
    """A training cut by its time limit after a checkpoint (no exported player): the script
    exports the newest checkpoint as the player (the whole run is over what a device call brings
    back), then plays the ladder and the arena with it."""
    calls, summary, out = _lease(tmp_path, "doudizhu-pretrained", parse=False,
                                 LEASE_CUT="douzero", LEASE_PACK="0")
    assert [c[0] for c in calls] == ["train", "export", "ladder", "arena"], summary
    flags = dict(zip(calls[1][1::2], calls[1][2::2]))
    assert flags["--name"] == "player" and flags["--directory"] == flags["--run"]
    # the command it records is the training's, so the ladder finds the seeds it used
    assert ladder.seeds_used({"command": flags["--command"]})[0] == {0, 778}
    os.makedirs(flags["--run"])  # the lease's run, removed when it ended: the flags parse
    try:
        lease_python.parse_call(calls[1])
    finally:
        shutil.rmtree(os.path.dirname(flags["--run"]))
    assert "newest checkpoint exported" in summary
    assert (out / "doudizhu-pretrained" / "player" / "player.json").is_file()
    assert not (out / "doudizhu-pretrained" / "run").exists()
