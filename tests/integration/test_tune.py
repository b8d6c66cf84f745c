"""Tuning a player's settings by duplicate matches (cardjax.eval.tune, cardjax tune): every
grid point is the match of that player word, the best is the highest, and the check is a fresh
match of the best."""

from __future__ import annotations

import pytest

import cardjax
from cardjax import agents
from cardjax.eval import arena, tune
from cardjax.commands import tune as cli  # the command


def test_grid_specs_add_every_combination_to_the_word():
    specs = tune.grid_specs("bidder:play=rule", {"threshold": [0.4, 0.5], "high": [1, 2]})
    assert [s for s, _ in specs] == [
        "bidder:play=rule,threshold=0.4,high=1", "bidder:play=rule,threshold=0.4,high=2",
        "bidder:play=rule,threshold=0.5,high=1", "bidder:play=rule,threshold=0.5,high=2"]
    assert specs[1][1] == {"threshold": 0.4, "high": 2}
    assert tune.grid_specs("bidder", {"strength": [0]})[0][0] == "bidder:strength=0"
    with pytest.raises(ValueError, match="set in"):
        tune.grid_specs("bidder:strength=1", {"strength": [0]})
    with pytest.raises(ValueError, match="no values"):
        tune.grid_specs("bidder", {"strength": []})


def test_rows_are_the_matches_and_the_best_is_checked_on_fresh_deals():
    env = cardjax.make("doudizhu", bidding=True)
    load = lambda spec: agents.load(env, spec)  # noqa: E731
    rule = load("rule")
    # the check as many deals as the grid: the same shape, so it plays the best row's program
    r = tune.tune(env, "bidder:play=rule", {"strength": [-6, 6]}, rule, load, deals=8, seed=3,
                  check_deals=8, batch=8)
    for row in r["rows"]:
        direct = arena.duplicate_match(env, load(row["spec"]), rule, deals=8, seed=3, batch=8,
                                       progress=False)
        assert row["mean"] == pytest.approx(direct["mean"])
        assert row["landlord_share_a"] == pytest.approx(direct["landlord_share_a"])
    assert r["best"]["mean"] == max(row["mean"] for row in r["rows"])
    # a cutoff of 6 bids far less often than one of -6
    assert r["rows"][0]["landlord_share_a"] > r["rows"][1]["landlord_share_a"]
    check = arena.duplicate_match(env, load(r["best"]["spec"]), rule, deals=8, seed=4, batch=8,
                                  progress=False)
    assert r["check"]["seed"] == 4 and r["check"]["mean"] == pytest.approx(check["mean"])


def test_cli(capsys):
    r = cli.main(["--bidding", "--a", "bidder:play=random", "--grid", "strength=0", "--b",
                  "random", "--deals", "2", "--no-progress"])
    assert r["best"]["spec"] == "bidder:play=random,strength=0"
    assert "best: bidder:play=random,strength=0" in capsys.readouterr().out
    for argv, message in [
        (["--a", "rule", "--grid", "k"], "expected KEY=V1,V2"),
        (["--a", "rule", "--grid", "k=1,"], "expected KEY=V1,V2"),
        (["--a", "rule", "--grid", "k=1", "--grid", "k=2"], "given twice"),
        (["--game", "gongzhu", "--bidding", "--a", "greed", "--grid", "k=1"], "only Dou Dizhu"),
    ]:
        with pytest.raises(SystemExit):
            cli.main(argv)
        assert message in capsys.readouterr().err
    with pytest.raises(SystemExit, match="no setting 'k'"):
        cli.main(["--bidding", "--a", "bidder", "--grid", "k=1", "--deals", "2", "--no-progress"])
