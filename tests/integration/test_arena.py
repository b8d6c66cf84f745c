"""The duplicate arena: rotation (Gongzhu, Mini Dou Di Zhu), role swap (Dou Dizhu), scoring, the CLI."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax import agents
from cardjax.commands import arena as cli  # the command
from cardjax.eval import arena
from cardjax.games.tractor import metrics as tractor_metrics
import conftest


def test_rotation_gives_each_side_each_hand(gongzhu):
    keys = jax.random.split(jax.random.PRNGKey(3), 5)
    states, a_seats, rotations = arena.duplicate_states(gongzhu, keys)
    assert rotations == 2
    assert np.all(np.asarray(a_seats) == [True, False, True, False])  # A keeps team 0's seats
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
    (["--game", "doudizhu", "--b", "if"], "unknown agent 'if' for doudizhu"),
    (["--game", "mini_doudizhu", "--deals", "-3"], "positive integer"),
    (["--batch", "x"], "positive integer"),
])
def test_cli_rejects_bad_flags(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        cli.parse_args(argv)
    assert e.value.code == 2
    assert message in capsys.readouterr().err


# ---------------------------------------------------------------------------------- Dou Dizhu
LOW, HIGH, lowest_legal, highest_legal = (conftest.LOW, conftest.HIGH, conftest.lowest_legal,
                                             conftest.highest_legal)


@pytest.fixture(scope="module")
def ddz():
    return cardjax.make("doudizhu")


def test_role_swap_gives_each_side_each_role_on_the_same_deal(ddz):
    keys = jax.random.split(jax.random.PRNGKey(7), 4)
    states, a_seats, games = arena.duplicate_states(ddz, keys)
    assert games == 2
    hands = np.asarray(states._hands).reshape(2, 4, 3, 15)
    bottom = np.asarray(states._bottom).reshape(2, 4, 15)
    landlord = np.asarray(states.landlord).reshape(2, 4)
    a = np.asarray(a_seats).reshape(2, 4, 3)
    assert np.array_equal(hands[0], hands[1]) and np.array_equal(bottom[0], bottom[1])
    assert np.all(landlord == 0) and np.all(np.asarray(states.current_player) == 0)
    for d in range(4):
        assert len({tuple(hands[0, d, s]) for s in range(3)}) == 3  # three different hands
        assert a[0, d].tolist() == [True, False, False]  # game 1: A is the landlord
        assert a[1, d].tolist() == [False, True, True]  # game 2: A plays both peasants
        for seat in range(3):  # every seat (hand and role) is held by A once and by B once
            assert a[0, d, seat] != a[1, d, seat]
    assert hands[0, 0, 0].sum() == 20 and hands[0, 0, 1].sum() == 17


def test_deterministic_self_play_cancels_on_every_deal(ddz):
    # With one deterministic agent at every seat both games of a deal are the same game, so A's
    # landlord score and its peasants' total cancel exactly: this fails if the side score drops a
    # peasant or the role swap scores the wrong seats.
    r = arena.duplicate_match(ddz, LOW, LOW, deals=6, seed=2, batch=6, progress=False,
                              per_deal=True)
    assert r["games"] == 12
    assert r["per_deal"] == [0.0] * 6 and r["mean"] == 0.0
    first, second = np.asarray(r["per_game"])
    assert np.all(first != 0) and np.array_equal(first, -second)
    assert r["wp_a_landlord"] == r["wp_b_landlord"]  # the same games, landlord for each side


def replay(env, states, a_seats, a_act, b_act):
    """Reference: play each game step by step in Python, A at ``a_seats``; rewards summed."""
    step = jax.jit(jax.vmap(env.step))
    acts = {True: jax.jit(jax.vmap(a_act, in_axes=(None, None, 0))),
            False: jax.jit(jax.vmap(b_act, in_axes=(None, None, 0)))}
    key = jax.random.PRNGKey(0)
    total = np.zeros(np.shape(states.rewards), np.float32)
    a_seats = np.asarray(a_seats)
    rows = np.arange(len(a_seats))
    while not np.all(np.asarray(states.terminated)):
        a_turn = a_seats[rows, np.asarray(states.current_player)]
        action = np.where(a_turn, acts[True](None, key, states), acts[False](None, key, states))
        states = step(states, jnp.asarray(action, jnp.int32))
        total += np.asarray(states.rewards)
    return total


def test_role_swap_scores_match_a_step_by_step_replay(ddz):
    deals = 5
    r = arena.duplicate_match(ddz, LOW, HIGH, deals=deals, seed=4, batch=deals, progress=False,
                              per_deal=True)
    key = jax.random.PRNGKey(4)
    deal_keys = jax.random.split(jax.random.split(key)[0], deals)
    states, a_seats, games = arena.duplicate_states(ddz, deal_keys)
    total = replay(ddz, states, a_seats, lowest_legal, highest_legal)
    lord = total[:, 0].reshape(2, deals)  # the landlord's reward; peasants pay it (zero-sum)
    assert np.allclose(total.sum(axis=1), 0)
    assert np.allclose(r["per_game"][0], lord[0])  # A the landlord
    assert np.allclose(r["per_game"][1], -lord[1])  # A's two peasants
    assert r["wp_a_landlord"] == pytest.approx(np.mean(lord[0] > 0))
    assert r["wp_b_landlord"] == pytest.approx(np.mean(lord[1] > 0))
    assert r["adp_a"] == pytest.approx(r["mean"])
    assert r["adp_a"] == pytest.approx((lord[0].mean() - lord[1].mean()) / 2)
    assert r["adp_a_landlord"] == pytest.approx(lord[0].mean())
    assert set(np.abs(lord).ravel()) <= {2.0 * 2 ** k for k in range(8)}  # ADP stakes 2 * 2^bombs
    assert len(set(r["per_deal"])) > 1  # not trivially constant: the agents differ


@pytest.fixture(scope="module")
def bidding():
    return cardjax.make("doudizhu", bidding=True)


def test_bidding_scheme_seats_each_player_at_every_subset(bidding):
    """With bidding the same deal is played six times, A at each non-empty proper subset of the
    seats: every seat is A's in three games, and game g mirrors game 5 - g."""
    dup = arena.duplicate_states(bidding, arena.deal_keys(0, 2))
    assert dup.games == 6
    seats = np.asarray(dup.a_seats).reshape(6, 2, 3)
    assert np.all(seats.sum(0) == 3) and np.all(seats == ~seats[::-1])
    hands = np.asarray(dup.states._hands).reshape(6, 2, 3, 15)
    assert np.all(hands == hands[:1])  # one deal, six times


def test_bidding_self_play_cancels_on_every_deal(bidding):
    """One deterministic player at every seat (bid 3 at once, then the highest legal move): a
    game and its mirror are the same game, so A's scores cancel exactly and A's player holds the
    landlord seat in exactly half the games; a player that always passes makes every deal void."""
    r = arena.duplicate_match(bidding, HIGH, HIGH, deals=4, seed=1, batch=4, progress=False,
                              per_deal=True)
    assert r["games"] == 24 and r["per_deal"] == [0.0] * 4 and r["mean"] == 0.0
    per_game = np.asarray(r["per_game"])
    assert np.all(per_game != 0) and np.array_equal(per_game, -per_game[::-1])
    assert r["landlord_share_a"] == 0.5 and r["void_rate"] == 0.0
    assert r["wp_a_landlord"] == r["wp_b_landlord"]
    void = arena.duplicate_match(bidding, LOW, LOW, deals=2, seed=1, batch=2, progress=False)
    assert void["void_rate"] == 1.0 and void["mean"] == 0.0 and void["wp_a_landlord"] is None


def test_bidding_figures_follow_the_games(bidding):
    """The landlord's result read from A's score agrees with the games: the rule player against
    random takes fewer deals (random bids at random) and wins far more of them."""
    rule, rnd = agents.get(bidding, "rule"), agents.get(bidding, "random")
    r = arena.duplicate_match(bidding, rule, rnd, deals=16, seed=0, batch=16, progress=False,
                              per_deal=True)
    assert r["mean"] > 1.0 and r["wp_a_landlord"] > r["wp_b_landlord"]
    out = r["per_game_outcome"]
    a_lord, void = np.asarray(out["a_landlord"]), np.asarray(out["void"])
    assert not np.any(a_lord & void)
    assert r["landlord_share_a"] == pytest.approx(a_lord[~void].mean())
    n = (~void).sum()
    assert r["landlord_share_a_stderr"] == pytest.approx(
        np.sqrt(r["landlord_share_a"] * (1 - r["landlord_share_a"]) / n))


def test_cli_bidding(capsys):
    r = cli.main(["--game", "doudizhu", "--bidding", "--a", "random", "--b", "random",
                  "--deals", "2", "--json", "--no-progress"])
    assert r["games"] == 12 and {"void_rate", "landlord_share_a", "adp_a_two_seats"} <= set(r)
    with pytest.raises(SystemExit, match="only Dou Dizhu has an auction"):
        cli.main(["--game", "gongzhu", "--bidding"])


def test_cli_doudizhu_keys(capsys):
    result = cli.main(["--game", "doudizhu", "--a", "random", "--b", "random", "--deals", "3",
                       "--batch", "3", "--seed", "3", "--json", "--no-progress"])
    out = json.loads(capsys.readouterr().out)
    assert out == result
    assert {"wp_a_landlord", "wp_b_landlord", "adp_a", "mean", "stderr", "games", "deals",
            "seed"} <= out.keys()
    assert out["games"] == 6 and out["deals"] == 3 and out["seed"] == 3
    assert 0 <= out["wp_a_landlord"] <= 1 and 0 <= out["wp_b_landlord"] <= 1
    assert out["adp_a"] == pytest.approx(out["mean"])


def test_cli_agent_list_comes_from_the_registry(capsys):
    names = agents.baselines("doudizhu")
    assert cli.parse_args(["--game", "doudizhu"]).a == ("rule" if "rule" in names else "random")
    assert cli.parse_args(["--game", "gongzhu"]).a == "greed"
    with pytest.raises(SystemExit):
        cli.parse_args(["--game", "doudizhu", "--a", "greed"])  # a Gongzhu-only baseline
    err = capsys.readouterr().err
    assert "unknown agent 'greed' for doudizhu" in err and ", ".join(names) in err


# ---------------------------------------------------------------------------------- Mini Dou Di Zhu
def test_mini_rotation_lets_each_side_lead_with_each_hand():
    env = cardjax.make("mini_doudizhu")
    keys = jax.random.split(jax.random.PRNGKey(5), 6)
    states, a_seats, games = arena.duplicate_states(env, keys)
    assert games == 2 and np.all(np.asarray(a_seats) == [True, False])  # A at seat 0 throughout
    hands = np.asarray(states._hands).reshape(2, 6, 2, 6)
    leader = np.asarray(states.leader).reshape(2, 6)
    assert np.all(leader[0] == 0) and np.all(leader[1] == 1)  # A leads, then B leads
    assert np.array_equal(hands[1, :, 1], hands[0, :, 0])  # B leads with A's first hand
    assert np.array_equal(hands[1, :, 0], hands[0, :, 1])


def test_mini_match_reports_win_rates():
    env = cardjax.make("mini_doudizhu")
    r = arena.duplicate_match(env, LOW, HIGH, deals=16, seed=1, batch=16, progress=False,
                              per_deal=True)
    scores = np.asarray(r["per_game"])
    assert set(scores.ravel()) <= {-1.0, 1.0}
    assert r["wp_a"] == pytest.approx(np.mean(scores > 0))
    assert r["wp_a_first"] == pytest.approx(np.mean(scores[0] > 0))
    assert r["wp_b_first"] == pytest.approx(np.mean(scores[1] < 0))
    assert r["mean"] == pytest.approx(2 * r["wp_a"] - 1)


def test_opponents_of_one_program_play_their_own_games_in_one_compiled_match():
    """Opponents made into players of one shared act (a trainer's evaluation against several)
    play exactly their own matches (a random player's draws included), and the matches against
    all of them are one program: the second is not compiled again."""
    env = cardjax.make("mini_doudizhu")
    rnd = agents.get(env, "random")
    alone = [arena.duplicate_match(env, LOW, b, deals=12, seed=3, batch=12, progress=False,
                                   per_deal=True) for b in (HIGH, rnd)]
    shared = arena.one_program([HIGH, rnd])
    assert [b.name for b in shared] == [HIGH.name, "random"]
    assert shared[0].act is shared[1].act
    assert arena.make_play(env, LOW, shared[0]) is arena.make_play(env, LOW, shared[1])
    arena.compile_matches(env, LOW, shared, deals=12, seed=3, batch=12)
    assert sum(1 for play, _ in arena._COMPILED
               if play is arena.make_play(env, LOW, shared[0], arena.scheme(env).outcome)) == 1
    for b, want in zip(shared, alone):
        got = arena.duplicate_match(env, LOW, b, deals=12, seed=3, batch=12, progress=False,
                                    per_deal=True)
        assert got["per_game"] == want["per_game"] and got["b"] == want["b"]
    assert alone[0]["per_game"] != alone[1]["per_game"]  # the two opponents differ
    assert arena.one_program([rnd]) == [rnd]


def test_a_paired_match_is_the_two_matches_deal_by_deal():
    """A and B each against one opponent on the same deals: the difference is A's per-deal score
    less B's, its standard error that of those differences; the same player twice differs by
    exactly 0 on every deal."""
    env = cardjax.make("mini_doudizhu")
    r = arena.paired_match(env, LOW, HIGH, HIGH, deals=16, seed=1, batch=16, progress=False)
    d = np.asarray(r["a"]["per_deal"]) - np.asarray(r["b"]["per_deal"])
    assert r["a"]["b"] == r["b"]["b"] == HIGH.name and r["a"]["seed"] == r["b"]["seed"] == 1
    assert r["difference"]["deals"] == 16 and np.any(d != 0)
    assert r["difference"]["mean"] == pytest.approx(r["a"]["mean"] - r["b"]["mean"])
    assert r["difference"]["mean"] == pytest.approx(d.mean())
    assert r["difference"]["stderr"] == pytest.approx(np.std(d, ddof=1) / 4)
    same = arena.paired_match(env, LOW, LOW, HIGH, deals=16, seed=1, batch=16, progress=False)
    assert same["difference"] == {"mean": 0.0, "stderr": 0.0, "deals": 16}


def test_cli_paired(capsys):
    out = cli.main(["--game", "mini_doudizhu", "--a", "random", "--b", "random", "--paired",
                    "random", "--deals", "4", "--batch", "4", "--seed", "3", "--json",
                    "--no-progress"])
    printed = json.loads(capsys.readouterr().out)
    assert printed["difference"] == out["difference"] == {"mean": 0.0, "stderr": 0.0, "deals": 4}
    assert printed["opponent"] == "random" and "per_deal" not in printed["a"]
    assert printed["a"]["mean"] == out["a"]["mean"] == printed["b"]["mean"]
    for argv, message in ((["--a", "random", "--paired", "greed"], "give both --a and --b"),
                          (["--round-robin", "greed", "if", "--paired", "greed"], "choose one"),
                          (["--a", "greed", "--b", "if", "--paired", "nobody"],
                           "--paired: unknown agent 'nobody'")):
        with pytest.raises(SystemExit):
            cli.parse_args(argv)
        assert message in capsys.readouterr().err


# ---------------------------------------------------------------------------------- Tractor
def test_cli_tractor_defaults_to_the_rule_player_and_prints_its_metrics():
    # the match itself is played in tests/unit/test_agents_tractor.py; this checks the CLI plumbing
    args = cli.parse_args(["--game", "tractor"])
    assert args.a == "rule" and args.b == "random"
    assert arena.scheme(cardjax.make("tractor")).side == "team"
    r = {"deals": 4, "games": 8, "mean": 1.25, "stderr": 0.5,
         **tractor_metrics.tractor_metrics([2, 0, 1, -1], [False, True, True, False], [20, 90, 125, 130])}
    line = cli.summary_line(args, r)
    assert line.startswith("tractor: rule vs random over 4 deals (8 games): +1.250 +- 0.500")
    assert "win rate 0.750" in line and "leveling rate 0.750 (3 levels to 1)" in line
    assert "AAPD +32.5" in line and "rule 107.5, random 75.0 points" in line
