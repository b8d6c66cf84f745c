"""The ``cardjax`` command (cardjax.commands.main): it finds its subcommands and the training
recipes by reading cardjax/commands/, lists them as plain text, and the wrappers in scripts/
and experiments/ each run one of them."""

from __future__ import annotations

import importlib
import pathlib
import re
import subprocess
import sys

import pytest

from cardjax.commands import main as cardjax_command
from conftest import ROOT

COMMANDS = {"arena", "bench", "corpus", "diagnose", "export", "inference_rounds", "ladder", "play",
            "sampling_table", "serve", "train", "tssr", "tune", "whitehouse"}
RECIPES = {"bid_value", "deeprocket", "douzero", "gongzhu_dmc", "inference", "scrofazero",
           "shengji", "state_value"}
WRAPPERS = sorted([*ROOT.glob("scripts/*.py"), *ROOT.glob("experiments/*.py")])


def group(name: str) -> dict:
    return cardjax_command.commands(f"cardjax.commands.{name}", cardjax_command.HERE / name)


def test_the_commands_are_the_modules_with_a_main():
    found = cardjax_command.commands()
    assert set(found) == COMMANDS
    assert set(group("train")) == RECIPES
    bench = set(group("bench"))
    assert {"envs", "search", "training"} <= bench and not {"peers", "playout", "report"} & bench
    assert found["train"].group and found["bench"].group


def test_help_lists_every_command_in_plain_text(capsys):
    cardjax_command.dispatch(["--help"])
    out = capsys.readouterr().out
    for name in COMMANDS:
        assert re.search(rf"^  {name} ", out, re.M), name
    assert "`" not in out and ":mod:" not in out
    assert max(map(len, out.splitlines())) <= 100
    cardjax_command.dispatch(["help", "train"])
    out = capsys.readouterr().out
    for name in RECIPES:
        assert re.search(rf"^  {name} ", out, re.M), name
    assert re.search(r"^  douzero +dmc --game doudizhu +Train DouZero", out, re.M)


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_a_trainer_and_its_game_find_the_recipe(name):
    recipe = group("train")[name]
    module = importlib.import_module(recipe.module)
    assert (recipe.trainer, recipe.game) == (module.TRAINER, module.GAME)
    by_name, rest = cardjax_command.resolve(group("train"), name.replace("_", "-"), ["-x"], "")
    assert by_name == recipe and rest == ["-x"]
    if recipe.game is not None:
        found, rest = cardjax_command.resolve(group("train"), recipe.trainer,
                                              ["--game", recipe.game, "-x"], "")
        assert found == recipe and rest == ["-x"]


def test_a_trainer_of_several_games_needs_one():
    with pytest.raises(SystemExit, match="--game is required; games: doudizhu, gongzhu"):
        cardjax_command.resolve(group("train"), "dmc", [], "cardjax train")
    with pytest.raises(SystemExit, match="no recipe for 'chess'"):
        cardjax_command.resolve(group("train"), "dmc", ["--game=chess"], "cardjax train")
    with pytest.raises(SystemExit, match="no command 'nope'"):
        cardjax_command.dispatch(["nope"])


def test_a_trainer_of_several_games_has_a_help_of_its_own(capsys):
    """``cardjax train dmc --help`` without ``--game``: the games and how to see one's flags."""
    assert cardjax_command.dispatch(["train", "dmc", "--help"]) is None
    out = capsys.readouterr().out
    assert out.startswith("usage: cardjax train dmc --game <game> [flags]\n"
                          "       cardjax train dmc --game <game> --help   (the flags of that "
                          "game's recipe)\n")
    assert re.findall(r"^  (\w+) +Train", out, re.M) == ["doudizhu", "gongzhu", "tractor"]
    assert "(recipe douzero)" in out and "(recipe shengji)" in out
    assert max(map(len, out.splitlines())) <= 100
    r = subprocess.run([sys.executable, "-m", "cardjax", "train", "dmc", "-h"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout == out


def test_a_command_gets_its_flags_and_its_name(capsys):
    with pytest.raises(SystemExit) as e:
        cardjax_command.dispatch(["train", "dmc", "--game", "gongzhu", "--help"])
    assert e.value.code == 0
    assert capsys.readouterr().out.startswith("usage: cardjax train gongzhu_dmc ")


def test_a_command_records_its_own_command_line(monkeypatch):
    """What a run records as its lineage's command: the command's words, then its flags (not the
    dispatcher's argv again after them); sys.argv is the caller's again afterwards."""
    from cardjax import artifact
    from cardjax.commands import arena

    seen = {}
    monkeypatch.setattr(arena, "main", lambda argv: seen.update(
        command=artifact.lineage(device="cpu")["command"], argv=list(argv)))
    before = ["/somewhere/cardjax/__main__.py", "arena", "--game", "tractor", "--deals", "4"]
    monkeypatch.setattr(sys, "argv", list(before))
    cardjax_command.dispatch(sys.argv[1:])
    assert seen == {"command": "cardjax arena --game tractor --deals 4",
                    "argv": ["--game", "tractor", "--deals", "4"]}
    assert sys.argv == before


@pytest.mark.parametrize("path", WRAPPERS, ids=[str(p.relative_to(ROOT)) for p in WRAPPERS])
def test_a_wrapper_runs_one_command(path: pathlib.Path):
    text = path.read_text()
    (module,) = re.findall(r"^from (cardjax\.commands\.[\w.]+) import main", text, re.M)
    assert hasattr(importlib.import_module(module), "main")
    assert len(text.splitlines()) <= 15, f"{path.name} is more than a wrapper"


def test_python_m_cardjax_is_the_command():
    r = subprocess.run([sys.executable, "-m", "cardjax", "--help"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and "train" in r.stdout and "Train a player" in r.stdout
    r = subprocess.run([sys.executable, "-m", "cardjax"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2 and "usage: cardjax" in r.stderr
