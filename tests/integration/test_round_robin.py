"""Round robin: the intransitivity ε on hand-made matrices, the score matrix of a small round robin
(Mini Dou Di Zhu, deterministic players), its reports, and ``cardjax arena --round-robin``."""

from __future__ import annotations

import json

import numpy as np
import pytest

import cardjax
from cardjax import agents
from cardjax.eval import arena
from cardjax.eval import round_robin as rrmod
from cardjax.eval.round_robin import intransitivity
from cardjax.commands import arena as cli  # the command
import conftest


def from_upper(upper: dict, n: int) -> np.ndarray:
    """The antisymmetric matrix with ``s[i, j] = upper[i, j]`` for i < j."""
    s = np.zeros((n, n))
    for (i, j), v in upper.items():
        s[i, j], s[j, i] = v, -v
    return s


# ------------------------------------------------------------------------- ε (paper, eq. 17)
def test_transitive_scores_have_epsilon_zero():
    # equation 16: xi_ij + xi_jk = xi_ik, e.g. differences of ratings
    r = np.array([3.0, 1.0, 0.0, -2.0, 5.0])
    assert intransitivity(r[:, None] - r[None, :]) == pytest.approx(0.0, abs=1e-12)
    assert intransitivity(np.zeros((4, 4))) == 0.0  # all ties: transitive too (0 / 0)


def test_rock_paper_scissors_has_epsilon_one():
    # rock, paper, scissors: paper beats rock, scissors beat paper, rock beats scissors
    rps = from_upper({(0, 1): -1.0, (1, 2): -1.0, (0, 2): 1.0}, 3)
    assert intransitivity(rps) == 1.0  # |-1 - 1 - 1|^2 / (3 * 3)
    assert intransitivity(7.5 * rps) == 1.0


def test_epsilon_by_hand():
    # 0 > 1 > 2 and 0 > 2 by one each: one triple, |1 + 1 - 1| / (1 + 1 + 1) (equation 18)
    assert intransitivity(from_upper({(0, 1): 1, (1, 2): 1, (0, 2): 1}, 3)) == pytest.approx(1 / 3)
    # four players; per triple i<j<k: d = |xi_ij + xi_jk - xi_ik|, w = |xi_ij|+|xi_jk|+|xi_ik|:
    # (0,1,2): d = |2+1-1| = 2, w = 4;  (0,1,3): d = |2-1-0| = 1, w = 3;
    # (0,2,3): d = |1+1-0| = 2, w = 2;  (1,2,3): d = |1+1+1| = 3, w = 3
    # eps = sum d^2 / sum d w = (4 + 1 + 4 + 9) / (8 + 3 + 4 + 9) = 18 / 24
    s = from_upper({(0, 1): 2, (0, 2): 1, (0, 3): 0, (1, 2): 1, (1, 3): -1, (2, 3): 1}, 4)
    assert intransitivity(s) == pytest.approx(0.75)
    assert intransitivity(-3.5 * s) == pytest.approx(0.75)  # inflation (property b)
    for order in ([3, 1, 0, 2], [2, 3, 1, 0], [1, 0, 2, 3]):  # reindexing (property c)
        assert intransitivity(s[np.ix_(order, order)]) == pytest.approx(0.75)


def test_epsilon_refuses_what_is_not_a_score_matrix():
    assert np.isnan(intransitivity([[0.0, 1.0], [-1.0, 0.0]]))  # no triple
    with pytest.raises(ValueError, match="square"):
        intransitivity(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="antisymmetric"):
        intransitivity([[0, 1, 2], [1, 0, 3], [-2, -3, 0]])
    with pytest.raises(ValueError, match="antisymmetric"):
        intransitivity([[1, 1, 2], [-1, 0, 3], [-2, -3, 0]])  # diagonal
    with pytest.raises(ValueError, match="finite"):
        intransitivity(from_upper({(0, 1): np.nan}, 3))


def test_bootstrap_of_identical_deals_has_no_spread():
    s = from_upper({(0, 1): 2, (0, 2): 1, (1, 2): 3}, 3)
    assert rrmod.bootstrap_epsilon_stderr(np.repeat(s[:, :, None], 8, axis=2)) == pytest.approx(
        0.0, abs=1e-12)
    assert np.isnan(rrmod.bootstrap_epsilon_stderr(np.zeros((2, 2, 8))))
    assert np.isnan(rrmod.bootstrap_epsilon_stderr(np.zeros((3, 3, 1))))


# ------------------------------------------------------------------------- a round robin
LOW, HIGH, lowest_legal, highest_legal = (conftest.LOW, conftest.HIGH, conftest.lowest_legal,
                                             conftest.highest_legal)
DEALS, SEED = 16, 3


@pytest.fixture(scope="module")
def mini():
    return cardjax.make("mini_doudizhu")


@pytest.fixture(scope="module")
def rr(mini):
    players = {"low": LOW, "high": HIGH, "low2": LOW, "random": agents.get(mini, "random")}
    return rrmod.round_robin(mini, players, deals=DEALS, seed=SEED, batch=DEALS, progress=False)


def test_matrix_is_antisymmetric_with_a_zero_diagonal(rr):
    n = len(rr.names)
    assert rr.names == ("low", "high", "low2", "random") and rr.scores.shape == (n, n)
    assert np.array_equal(rr.scores, -rr.scores.T) and np.all(np.diag(rr.scores) == 0)
    assert np.array_equal(rr.stderr, rr.stderr.T) and np.all(np.diag(rr.stderr) == 0)
    assert np.array_equal(rr.per_deal, -rr.per_deal.transpose(1, 0, 2))
    assert np.allclose(rr.per_deal.mean(axis=2), rr.scores)
    assert len(rr.matches) == n * (n - 1) // 2 and rr.deals == DEALS and rr.seed == SEED
    assert [(m["a"], m["b"]) for m in rr.matches][:3] == [("low", "high"), ("low", "low2"),
                                                        ("low", "random")]


def test_a_deterministic_player_ties_itself_and_its_copy_scores_alike(rr):
    # Mini Dou Di Zhu's rotation plays each deal twice with the hands and the lead swapped: one
    # deterministic player at both seats plays mirrored games, whose scores cancel on every deal.
    low, high, low2, rnd = range(4)
    assert np.all(rr.per_deal[low, low2] == 0) and rr.stderr[low, low2] == 0
    # the same agent under two names meets everyone on the same deals with the same keys
    assert np.array_equal(rr.scores[low], rr.scores[low2])
    assert np.array_equal(rr.per_deal[low, [high, rnd]], rr.per_deal[low2, [high, rnd]])
    assert rr.scores[low, high] != 0  # the players differ
    # a copy adds only transitive triples (0 + x - x): eps is that of the three others
    three = rr.scores[np.ix_([low, high, rnd], [low, high, rnd])]
    assert rr.epsilon == pytest.approx(intransitivity(three))
    assert 0 <= rr.epsilon <= 1 and np.isfinite(rr.epsilon_stderr)


def test_entries_are_the_pairs_duplicate_matches(rr, mini):
    low, high = 0, 1
    direct = arena.duplicate_match(mini, LOW, HIGH, deals=DEALS, seed=SEED, batch=DEALS,
                                   progress=False, per_deal=True)
    assert rr.scores[low, high] == direct["mean"] and rr.stderr[low, high] == direct["stderr"]
    assert rr.per_deal[low, high].tolist() == direct["per_deal"]
    # the scheme is antisymmetric: the match with the sides named the other way round plays
    # the same games mirrored, so (deterministic players) every deal's score is negated
    reverse = arena.duplicate_match(mini, HIGH, LOW, deals=DEALS, seed=SEED, batch=DEALS,
                                    progress=False, per_deal=True)
    assert rr.per_deal[high, low].tolist() == reverse["per_deal"]
    assert rr.scores[high, low] == reverse["mean"]


def test_reports(rr, tmp_path):
    table = rrmod.to_table(rr)
    lines = table.splitlines()
    assert lines[0].startswith(f"mini_doudizhu: round robin over {DEALS} deals (32 games a pair)")
    assert lines[1].split() == ["low", "high", "low2", "random", "mean"]
    assert lines[2].startswith("low ") and "·" in lines[2]
    assert f"{rr.scores[0, 1]:+.3f} ± {rr.stderr[0, 1]:.3f}" in lines[2]
    assert f"ε = {rr.epsilon:.3f} ± {rr.epsilon_stderr:.3f}" in lines[-1]
    assert len({len(line) for line in lines[1:-1]}) <= 2  # aligned (rstrip may trim a '·')
    out = json.loads(json.dumps(rrmod.to_json(rr), allow_nan=False))
    assert out["names"] == list(rr.names) and out["scores"] == rr.scores.tolist()
    assert out["epsilon"] == rr.epsilon and out["deals"] == DEALS and len(out["matches"]) == 6
    assert "per_deal" not in out["matches"][0] and out["matches"][0]["a"] == "low"
    png = tmp_path / "rr.png"
    rrmod.heatmap(rr, str(png))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_long_player_words_are_numbered_on_the_heat_maps_axes_and_written_under_it():
    short = ["greed", "if"]
    assert rrmod.axis_labels(short) == (short, "")
    long = "pimc:worlds=8,value=scrofazero-pretrained,candidates=13"
    labels, key = rrmod.axis_labels([long, "greed"])
    assert labels == ["1. pimc:worlds=8,value=scr…", "2. greed"]
    assert key == f"1. {long}\n2. greed"
    assert all(len(x) <= rrmod.LABEL + 3 for x in labels)
    rr = rrmod.RoundRobin("toy", (long, "greed"), np.array([[0.0, 1.5], [-1.5, 0.0]]),
                          np.array([[0.0, 0.5], [0.5, 0.0]]), 4, 0, float("nan"), float("nan"),
                          None, [])
    table = rrmod.to_table(rr).splitlines()
    assert table[1].split() == ["1.", "pimc:worlds=8,value=scr…", "2.", "greed", "mean"]
    assert table[-2:] == [f"1. {long}", "2. greed"]


def test_round_robin_needs_two_players(mini):
    with pytest.raises(ValueError, match="at least 2"):
        rrmod.round_robin(mini, {"low": LOW}, deals=2, progress=False)


# ------------------------------------------------------------------------- the CLI
def test_cli_round_robin_prints_json_and_writes_a_heat_map(tmp_path, capsys):
    png = tmp_path / "rr.png"
    result = cli.main(["--game", "gongzhu", "--round-robin", "random", "if", "--deals", "4",
                       "--batch", "4", "--json", "--png", str(png), "--no-progress"])
    out = json.loads(capsys.readouterr().out)
    assert out == result
    assert out["names"] == ["random", "if"] and out["deals"] == 4 and out["game"] == "gongzhu"
    (m,) = out["matches"]
    assert out["scores"] == [[0.0, m["mean"]], [-m["mean"], 0.0]]
    assert out["stderr"] == [[0.0, m["stderr"]], [m["stderr"], 0.0]]
    assert out["epsilon"] is None and m["games"] == 8  # no triple
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv, message", [
    (["--round-robin", "greed"], "at least 2 players"),
    (["--round-robin", "greed", "nobody"], "unknown agent 'nobody' for gongzhu"),
    (["--round-robin", "greed", "if", "greed"], "greed given more than once"),
    (["--round-robin", "greed", "", "if"], "empty player"),
    (["--round-robin", "greed", "if", "--a", "random"], "drop --a and --b"),
    (["--round-robin", "greed", "if", "--b", "random"], "drop --a and --b"),
    (["--game", "doudizhu", "--round-robin", "rule", "if"], "unknown agent 'if' for doudizhu"),
    (["--png", "x.png"], "--png needs --round-robin"),
    (["--round-robin", "greed", "if", "--png", "/nonexistent/dir/x.png"], "no directory"),
])
def test_cli_rejects_bad_round_robins(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        cli.parse_args(argv)
    assert e.value.code == 2
    assert message in capsys.readouterr().err


def test_cli_two_agent_mode_is_unchanged():
    args = cli.parse_args(["--game", "gongzhu"])
    assert (args.a, args.b, args.round_robin, args.png) == ("greed", "random", None, None)
    assert cli.parse_args(["--a", "if", "--b", "greed"]).b == "greed"
