"""arena.seat_match and the bookkeeping of the paper's UCT experiments (cardjax whitehouse
mini-uct, dd-table1, dd-table2, dd-grouping), with stand-in players so that nothing searches here."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax import agents
from cardjax.core import Agent
from cardjax.eval import arena
from cardjax.commands import whitehouse as whitehouse_command
import conftest

FIRST, LAST = conftest.LOW, conftest.HIGH


@pytest.fixture(scope="module")
def mini():
    return cardjax.make("mini_doudizhu")


def test_seat_match_puts_a_at_its_seats(mini):
    seats = lambda s: jnp.arange(2)[None, :] == 1  # A plays seat 1 only
    got = arena.seat_match(mini, FIRST, LAST, seats, deals=3, seed=5, batch=2, repeats=2,
                           progress=False)
    assert got.shape == (3, 2, 2)
    np.testing.assert_array_equal(got[:, 0], got[:, 1])  # deterministic players: same replays
    np.testing.assert_allclose(got.sum(axis=2), 0.0)  # zero-sum
    deal_key, _ = jax.random.split(jax.random.PRNGKey(5))
    for d, key in enumerate(jax.random.split(deal_key, 3)):  # replay each deal step by step
        s, total = mini.init(key), np.zeros(2)
        while not bool(s.terminated):
            player = FIRST if int(s.current_player) == 1 else LAST
            s = mini.step(s, player.act(None, None, s))
            total += np.asarray(s.rewards)
        np.testing.assert_allclose(got[d, 0], total)


def test_seat_match_refuses_empty_matches(mini):
    with pytest.raises(ValueError, match="at least 1"):
        arena.seat_match(mini, FIRST, LAST, lambda s: s, deals=0)
    with pytest.raises(ValueError, match="start < stop"):
        arena.seat_match(mini, FIRST, LAST, lambda s: s, deals=3, start=2, stop=2)


def test_seat_match_in_parts_gives_the_rows_of_the_whole_match(mini):
    """Random players, so every row depends on its play key: parts whose first row is a multiple
    of the batch replay the whole match exactly; other parts still play the right deals."""
    rnd = agents.get(mini, "random")
    seats = lambda s: jnp.arange(2)[None, :] == 0
    kw = dict(deals=6, seed=3, batch=4, repeats=2, progress=False)
    whole = arena.seat_match(mini, rnd, rnd, seats, **kw)
    parts = [arena.seat_match(mini, rnd, rnd, seats, start=a, stop=b, **kw)
             for a, b in ((0, 2), (2, 4), (4, 6))]
    np.testing.assert_array_equal(np.concatenate(parts), whole)
    odd = arena.seat_match(mini, FIRST, LAST, seats, deals=6, seed=3, batch=4, start=1, stop=6,
                           progress=False)  # deterministic players: the deals alone decide
    np.testing.assert_array_equal(
        odd, arena.seat_match(mini, FIRST, LAST, seats, deals=6, seed=3, batch=4,
                              progress=False)[1:])


@pytest.fixture
def wh(monkeypatch):
    """cardjax whitehouse with the search players replaced by stand-ins and seat_match by a
    table of known outcomes: ``calls`` records (A, B, seats) of every match."""
    module = whitehouse_command
    uct_mod = module.whitehouse_uct
    calls = []
    # a stand-in keeps its settings as its params
    monkeypatch.setattr(uct_mod.agents, "get", lambda env, name, **kw: Agent(name, None, kw))

    def fake_match(env, a, b, seats, deals, seed, batch, repeats, progress=True, start=0,
                   stop=None):
        states = jax.tree_util.tree_map(lambda x: x[start:stop], uct_mod._deals(env, seed, deals))
        mask = np.asarray(seats(states))
        calls.append((a.name, b.name, mask, a.params, b.params))
        # the side of A wins on even deals, B on odd ones; rewards +1 / -1 per seat
        a_wins = (np.arange(deals)[start:stop] % 2 == 0)[:, None]
        r = np.where(mask == a_wins, 1.0, -1.0)
        if a.name == "cheat_uct":  # cheating wins every deal
            r = np.where(mask, 1.0, -1.0)
        return np.repeat(r[:, None, :], repeats, axis=1)

    monkeypatch.setattr(uct_mod.arena, "seat_match", fake_match)
    return module, calls


def test_dd_table1_reads_the_seat_of_each_row(wh, tmp_path):
    module, calls = wh
    out = tmp_path / "t1.json"
    report = module.main(["dd-table1", "--deals", "6", "--json", str(out), "--no-progress"])
    assert json.loads(out.read_text()) == json.loads(json.dumps(report))
    rows = report["results"]
    # cheating wins everything; determinized (A = landlord) wins the even deals: the landlord
    # 1/2, each peasant 1/2
    for row in ("player 1", "player 2", "player 3", "players 2 and 3"):
        assert rows[row]["cheating"]["win_rate"] == 1.0
        assert rows[row]["determinized"]["win_rate"] == 0.5
    env = cardjax.make("doudizhu")
    landlord = np.asarray(module.whitehouse_uct._deals(env, 0, 6).landlord)
    masks = {c[0] + str(c[2].sum(1)[0]): c[2] for c in calls}
    both = [m for n, m in masks.items() if n == "cheat_uct2"][0]  # players 2 and 3
    assert not both[np.arange(6), landlord].any() and both.sum(1).tolist() == [2] * 6
    assert report["paper"]["player 3"] == {"cheating": 0.689, "determinized": 0.570}


def test_dd_table2_splits_deals_by_the_cheating_gap(wh):
    module, _ = wh
    report = module.main(["dd-table2", "--deals", "8", "--repeats", "2", "--no-progress"])
    res = report["results"]
    assert res["all deals"]["cheat_uct"]["win_rate"] == 1.0
    assert res["all deals"]["det_uct"]["win_rate"] == 0.5
    # cheating - determinized per deal: 0 on the 4 even deals, 1 on the 4 odd ones
    assert res["= 0"]["deals"] == 4 and res["> 0.75"]["deals"] == 4 and res["< 0"]["deals"] == 0
    assert res["> 0.75"]["det_uct"]["win_rate"] == 0.0


def test_mini_uct_reports_player_one(wh):
    module, calls = wh
    report = module.main(["mini-uct", "--deals", "4", "--repeats", "1", "--no-progress"])
    assert [c[0] for c in calls] == ["ismcts", "det_uct"]
    assert all((c[2] == [True, False]).all() for c in calls)  # A is the leader, seat 0
    assert report["results"]["ismcts"]["win_rate"] == 0.5
    assert report["results"]["ismcts - det_uct"]["difference"] == 0.0
    assert report["results"]["per_deal"]["det_uct"] == [1.0, 0.0, 1.0, 0.0]


def test_experiments_play_in_parts_and_save_each(wh, tmp_path):
    """--batch smaller than the deals: every match plays each part before the next part; the
    results equal one part's; --minutes stops after the first part and says how far it got."""
    module, calls = wh
    whole = module.main(["mini-uct", "--deals", "6", "--repeats", "1", "--no-progress"])
    calls.clear()
    out = tmp_path / "m.json"
    parts = module.main(["mini-uct", "--deals", "6", "--repeats", "1", "--batch", "2",
                         "--json", str(out), "--no-progress"])
    assert [(c[0], len(c[2])) for c in calls] == [("ismcts", 2), ("det_uct", 2)] * 3
    assert parts["results"] == whole["results"] and parts["deals_played"] == 6
    assert json.loads(out.read_text())["deals_played"] == 6
    calls.clear()
    cut = module.main(["dd-table2", "--deals", "8", "--repeats", "2", "--batch", "4",
                       "--minutes", "1e-9", "--json", str(out), "--no-progress"])
    assert cut["deals_played"] == 2 and len(calls) == 3  # one part of 4 games: 2 deals x 2
    saved = json.loads(out.read_text())
    assert saved["deals_played"] == 2 and saved["settings"]["minutes"] == 1e-9
    assert saved["results"]["all deals"]["cheat_uct"]["win_rate"] == 1.0


def test_dd_grouping_compares_grouped_and_ungrouped_landlords(wh):
    module, calls = wh
    report = module.main(["dd-grouping", "--deals", "6", "--ismcts-iterations", "30",
                          "--no-progress"])
    res = report["results"]
    assert [(c[0], c[3]["group_moves"], c[3]["iterations"], c[4]["group_moves"]) for c in calls] == [
        ("ismcts", True, 30, True), ("ismcts", False, 30, True)]
    assert res["landlord win rate"]["ismcts grouped"]["win_rate"] == 0.5
    assert res["grouped - ungrouped"]["difference"] == 0.0
    # counted on the real deals: grouping can only shrink the first decision
    b = res["first decision branching"]
    assert 0 < b["grouped"]["mean"] < b["ungrouped"]["mean"]
    assert b["grouped"]["max"] <= b["ungrouped"]["max"]


def test_dd_tables_pass_group_moves(wh):
    module, calls = wh
    module.main(["dd-table2", "--deals", "2", "--repeats", "1", "--group-moves", "false",
                 "--no-progress"])
    assert all(c[3]["group_moves"] is False and c[4]["group_moves"] is False for c in calls)


@pytest.mark.parametrize("argv", [["dd-table1", "--deals", "0"], ["mini-uct", "--trees", "x"],
                                  ["dd-table3"], ["dd-grouping", "--group-moves", "maybe"]])
def test_bad_flags_are_refused(wh, argv, capsys):
    module, _ = wh
    with pytest.raises(SystemExit):
        module.main(argv)
    assert "error" in capsys.readouterr().err
