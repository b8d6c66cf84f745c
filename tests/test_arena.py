"""The duplicate arena: rotation, scoring, the command line."""

from __future__ import annotations

import importlib.util
import json
import pathlib

import jax
import numpy as np
import pytest

from cardjax import agents
from cardjax.eval import arena

ROOT = pathlib.Path(__file__).resolve().parents[1]


def load_script(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rotation_gives_each_side_each_hand(gongzhu):
    keys = jax.random.split(jax.random.PRNGKey(3), 5)
    states, rotations = arena.duplicate_states(gongzhu, keys)
    assert rotations == 2
    owner = np.asarray(states._owner).reshape(2, 5, 52)
    leader = np.asarray(states.leader).reshape(2, 5)
    for d in range(5):
        for seat in range(4):
            hand = owner[0, d] == seat
            # the hand of `seat` in the first game is held by the next seat, of the other team
            assert np.all(owner[1, d][hand] == (seat + 1) % 4)
        assert leader[1, d] == (leader[0, d] + 1) % 4
        a_hands = {tuple(np.flatnonzero(owner[r, d] == s)) for r in range(2) for s in (0, 2)}
        b_hands = {tuple(np.flatnonzero(owner[r, d] == s)) for r in range(2) for s in (1, 3)}
        assert a_hands == b_hands and len(a_hands) == 4  # both sides held all four hands


def test_identical_deterministic_players_tie_on_every_deal(gongzhu):
    # Mr If is deterministic and seat-symmetric: the rotated game mirrors the first one, so
    # each deal's two margins cancel exactly.
    mr_if = agents.get(gongzhu, "if")
    r = arena.duplicate_match(gongzhu, mr_if, mr_if, deals=8, seed=1, batch=8, progress=False,
                              per_deal=True)
    assert r["games"] == 16
    assert r["per_deal"] == [0.0] * 8
    assert r["mean"] == 0.0


def test_match_is_reproducible_and_reports_wpg(gongzhu):
    rnd = agents.get(gongzhu, "random")
    greedless = arena.duplicate_match(gongzhu, rnd, rnd, deals=6, seed=4, batch=4, progress=False,
                                      per_deal=True)
    again = arena.duplicate_match(gongzhu, rnd, rnd, deals=6, seed=4, batch=4, progress=False,
                                  per_deal=True)
    assert greedless["per_deal"] == again["per_deal"]
    assert greedless["mean"] == pytest.approx(np.mean(greedless["per_deal"]))
    assert greedless["stderr"] == pytest.approx(np.std(greedless["per_deal"], ddof=1) / np.sqrt(6))
    assert "wpg" not in greedless
    with pytest.raises(ValueError, match="deals"):
        arena.duplicate_match(gongzhu, rnd, rnd, deals=0)


def test_cli_prints_one_json_object(capsys):
    cli = load_script("arena")
    result = cli.main(["--game", "gongzhu", "--a", "random", "--b", "random", "--deals", "4",
                       "--batch", "4", "--seed", "2", "--json", "--no-progress"])
    out = json.loads(capsys.readouterr().out)
    assert out == result
    assert out["games"] == 8 and out["deals"] == 4
    assert {"mean", "stderr", "games"} <= out.keys()


@pytest.mark.parametrize("argv, message", [
    (["--a", "nobody"], "unknown agent 'nobody'"),
    (["--deals", "0"], "positive integer"),
    (["--game", "chess"], "invalid choice"),
])
def test_cli_rejects_bad_flags(argv, message, capsys):
    cli = load_script("arena")
    with pytest.raises(SystemExit) as e:
        cli.parse_args(argv)
    assert e.value.code == 2
    assert message in capsys.readouterr().err
