"""Mini Dou Di Zhu: rules, env details and the exact solver (8832 deals, 70.7% for player 1)."""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax.games.mini_doudizhu import env as mdz
from cardjax.games.mini_doudizhu import solver as solver
from conftest import get_compiled, to_numpy

A = mdz.parse_action


@pytest.fixture(scope="module")
def c():
    return get_compiled("mini_doudizhu")


@pytest.fixture(scope="module")
def env(c):
    return c.env


def legal_strs(state):
    return [mdz.action_str(a) for a in np.flatnonzero(np.asarray(state.legal_action_mask))]


def play(c, state, moves):
    """Play move strings; each must be legal."""
    states = [state]
    for m in moves.split():
        a = A(m)
        assert bool(state.legal_action_mask[a]), (m, legal_strs(state))
        state = c.step(state, jnp.int32(a))
        states.append(state)
    return states


# ---------------------------------------------------------------------------- action layout
def test_action_layout():
    env = cardjax.make("mini_doudizhu")
    assert env.num_actions == 19 and env.num_players == 2 and env.teams == (0, 1)
    names = [env.action_to_str(a) for a in range(19)]
    assert names[:4] == ["1", "11", "111", "1111"]
    assert names[12:] == ["4", "44", "444", "4444", "B", "R", "pass"]
    assert len(set(names)) == 19
    for a in range(19):
        assert A(names[a]) == a
    for bad in ("BB", "11111", "5", "12"):
        with pytest.raises(ValueError):
            A(bad)
    with pytest.raises(ValueError):
        env.action_to_str(19)


def test_legal_moves_helper():
    assert mdz.legal_moves("11223BR") == ["1", "11", "2", "22", "3", "B", "R"]
    assert mdz.legal_moves("11223BR", "2") == ["3", "B", "R", "pass"]
    assert mdz.legal_moves("11223BR", "11") == ["22", "pass"]
    assert mdz.legal_moves("11223BR", "B") == ["R", "pass"]
    assert mdz.legal_moves("11223BR", "R") == ["pass"]
    assert mdz.legal_moves("4444", "333") == ["444", "pass"]
    assert mdz.legal_moves("4444", "1111") == ["4444", "pass"]  # no bombs: same count only
    assert mdz.legal_moves("4444", "22") == ["44", "pass"]


# ---------------------------------------------------------------------------- the env
def test_masks_leading_following_after_pass(c, env):
    s = env.init_from_deal(["1122BR3", "1233444"])
    assert int(s.current_player) == 0 and int(s.to_beat) == -1
    assert legal_strs(s) == ["1", "11", "2", "22", "3", "B", "R"]  # no pass when leading
    s1 = c.step(s, jnp.int32(A("11")))
    assert int(s1.current_player) == 1 and int(s1.to_beat) == A("11")
    assert legal_strs(s1) == ["33", "44", "pass"]
    s2 = c.step(s1, jnp.int32(A("pass")))
    # after a pass the other player (who made the last move) leads freely
    assert int(s2.current_player) == 0 and int(s2.to_beat) == -1
    assert legal_strs(s2) == ["2", "22", "3", "B", "R"]
    s3 = c.step(s2, jnp.int32(A("3")))
    assert legal_strs(s3) == ["4", "pass"]
    s4 = c.step(s3, jnp.int32(A("4")))
    assert legal_strs(s4) == ["B", "R", "pass"]
    s5 = c.step(s4, jnp.int32(A("R")))
    assert legal_strs(s5) == ["pass"]
    np.testing.assert_array_equal(np.asarray(s5.played), [[2, 0, 1, 0, 0, 1], [0, 0, 0, 1, 0, 0]])
    np.testing.assert_array_equal(np.asarray(s5._hands), [[0, 2, 0, 0, 1, 0], [1, 1, 2, 2, 0, 0]])
    assert not bool(s5.terminated) and int(s5.step_count) == 5


def test_leader_option_and_rotate(c, env):
    s = env.init_from_deal(["1122BR3", "1233444"], leader=1)
    assert int(s.current_player) == 1
    assert legal_strs(s) == ["1", "2", "3", "33", "4", "44", "444"]
    r = env.rotate(env.init_from_deal(["1122BR3", "1233444"]))
    np.testing.assert_array_equal(np.asarray(r._hands), mdz.check_deal(["1233444", "1122BR3"]))
    assert int(r.current_player) == 1


@pytest.mark.parametrize(
    "deal, moves, winner",
    [
        (["1111333", "2222BR4"], "333 pass 1111", 0),
        (["1112223", "4444BR3"], "1 R pass 4444 pass B pass 3", 1),
        (["1111223", "2334444"], "3 4 pass 444 pass 33 pass 2", 1),
    ],
)
def test_win_detection_and_rewards(c, env, deal, moves, winner):
    states = play(c, env.init_from_deal(deal), moves)
    for s in states[:-1]:
        assert not bool(s.terminated)
        np.testing.assert_array_equal(np.asarray(s.rewards), 0.0)
    end = states[-1]
    assert bool(end.terminated) and int(end.winner) == winner
    expect = np.where(np.arange(2) == winner, 1.0, -1.0)
    np.testing.assert_array_equal(np.asarray(end.rewards), expect)
    assert float(np.sum(np.asarray(end.rewards))) == 0.0
    assert np.asarray(end.legal_action_mask).all()
    assert int(np.asarray(end._hands[winner]).sum()) == 0
    again = c.step(end, jnp.int32(0))
    np.testing.assert_array_equal(np.asarray(again.rewards), 0.0)
    assert "wins" in env.render(end)


def test_observe_and_oracle(c, env):
    s = play(c, env.init_from_deal(["1122BR3", "1233444"]), "11 33")[-1]
    o0, o1 = np.asarray(c.observe(s, 0)), np.asarray(c.observe(s, 1))
    assert o0.shape == (39,) and env.observation_shape == (39,)
    np.testing.assert_array_equal(o0[:6], [0, 2, 1, 0, 1, 1])  # own hand
    assert o0[6] == 5  # opponent's cards
    np.testing.assert_array_equal(o0[7:13], [2, 0, 0, 0, 0, 0])  # played by self
    np.testing.assert_array_equal(o0[13:19], [0, 0, 2, 0, 0, 0])  # played by the opponent
    np.testing.assert_array_equal(np.flatnonzero(o0[19:37]), [A("33")])
    assert o0[37] == 0 and o0[38] == 1  # not leading; to act
    np.testing.assert_array_equal(o1[:6], [1, 1, 0, 3, 0, 0])
    assert o1[6] == 5 and o1[38] == 0
    np.testing.assert_array_equal(o1[7:13], o0[13:19])
    oo = np.asarray(c.observe_oracle(s, 0))
    assert oo.shape == (45,)
    np.testing.assert_array_equal(oo[:39], o0)
    np.testing.assert_array_equal(oo[39:], [1, 1, 0, 3, 0, 0])
    text = env.render(s)
    assert "seat 0: 223BR" in text and "played: 11" in text and "hidden: 1234" in text
    assert "to beat 33" in text


def test_sample_hidden_keeps_counts_and_is_hypergeometric(c, env):
    s = play(c, env.init_from_deal(["1122BR3", "1233444"]), "11 33 pass")[-1]
    seat = 1  # sees its own hand 1 2 444 and the played 11 (seat 0) and 33 (itself)
    keys = jax.random.split(jax.random.PRNGKey(0), 4000)
    w = to_numpy(c.batch_sample_hidden(keys, jax.tree_util.tree_map(
        lambda x: jnp.broadcast_to(x, (4000,) + x.shape), s), jnp.full(4000, seat)))
    np.testing.assert_array_equal(w._hands[:, 1], np.broadcast_to(np.asarray(s._hands[1]), (4000, 6)))
    assert (w._hands[:, 0].sum(1) == 5).all() and (w._kitty.sum(1) == 4).all()
    unseen = mdz.FULL - np.asarray(s._hands[1]) - np.asarray(s.played).sum(0)
    np.testing.assert_array_equal(w._hands[:, 0] + w._kitty, np.broadcast_to(unseen, (4000, 6)))
    assert (w._hands >= 0).all() and (w._kitty >= 0).all()
    # each unseen physical card goes to the opponent with probability 5/9
    mean = w._hands[:, 0].mean(0)
    np.testing.assert_allclose(mean, unseen * 5 / 9, atol=0.06)
    # the sampling seat's legal mask is untouched; the opponent's hand varies
    assert len({tuple(h) for h in w._hands[:, 0]}) > 10


def test_init_deals_match_solver_distribution(c):
    """Random deals from ``init`` are valid and distributed as ``solve``'s probabilities say:
    the leader's win rate over them is the solver's 70.7% (within sampling error)."""
    hands, probs, values = solver.solve()
    index = {h.tobytes(): i for i, h in enumerate(hands.astype(np.int8))}
    n = 20000
    states = jax.jit(jax.vmap(c.env.init))(jax.random.split(jax.random.PRNGKey(1), n))
    dealt = np.asarray(states._hands).astype(np.int8)
    assert (dealt.sum(-1) == 7).all() and (np.asarray(states._kitty).sum(-1) == 4).all()
    idx = np.array([index[h.tobytes()] for h in dealt])
    rate = (values[idx] > 0).mean()
    assert abs(rate - 0.7071) < 0.015, rate
    # the most likely deals show up about as often as predicted
    top = np.argsort(probs)[-1]
    assert abs((idx == top).mean() - probs[top]) < 5 * math.sqrt(probs[top] / n)


@pytest.mark.parametrize(
    "hands, leader",
    [
        (["1111222", "2333344"], 0),
        (["1111222", "2333344"], 1),
        (["1234BR1", "2223334"], 0),
        (["1122BR3", "1233444"], 0),
    ],
)
def test_env_follows_solver_to_predicted_winner(c, env, hands, leader):
    """Both seats play solver-optimal moves through the env; the predicted winner wins, also when
    the losing side plays any legal move (here: a random one)."""
    h = mdz.check_deal(hands)
    lead_wins = solver.position_wins(h[leader], h[1 - leader])
    expect = leader if lead_wins else 1 - leader
    rng = np.random.default_rng(0)
    for loser_random in (False, True):
        s = env.init_from_deal(h, leader=leader)
        while not bool(s.terminated):
            p = int(s.current_player)
            hs = np.asarray(s._hands)
            best = solver.optimal_actions(hs[p], hs[1 - p], int(s.to_beat))
            legal = np.flatnonzero(np.asarray(s.legal_action_mask))
            assert set(best) <= set(legal.tolist())
            a = int(rng.choice(legal)) if (loser_random and p != expect) else best[0]
            s = c.step(s, jnp.int32(a))
        assert int(s.winner) == expect


def test_env_agrees_with_solver_on_solved_deals(c, env):
    hands, _, values = solver.solve()
    rng = np.random.default_rng(3)
    picks = np.concatenate([rng.choice(np.flatnonzero(values > 0), 3, replace=False),
                            rng.choice(np.flatnonzero(values < 0), 3, replace=False)])
    for i in picks:
        s = env.init_from_deal(hands[i].astype(np.int32))
        while not bool(s.terminated):
            p = int(s.current_player)
            hs = np.asarray(s._hands)
            s = c.step(s, jnp.int32(solver.optimal_actions(hs[p], hs[1 - p], int(s.to_beat))[0]))
        assert int(s.winner) == (0 if values[i] > 0 else 1), mdz.hand_str(hands[i][0])


@pytest.mark.parametrize(
    "hands, match",
    [
        (["111122", "2333344"], "7 cards"),
        (["11112222", "333344B"], "7 cards"),
        (["1111122", "2333344"], "rank 1"),
        (["1111BB2", "2333344"], "rank B"),
        (["11112BR", "2333BR4"], "rank B"),
        (["1111X22", "2333344"], "unknown card"),
        (np.zeros((3, 6), np.int32), "shape"),
        (np.full((2, 6), 1.5), "integer"),
        (np.array([[4, 4, 0, 0, -1, 0], [0, 0, 4, 3, 0, 0]]), "non-negative"),
    ],
)
def test_bad_deals_raise(env, hands, match):
    with pytest.raises(ValueError, match=match):
        env.init_from_deal(hands)


def test_bad_leader_raises(env):
    with pytest.raises(ValueError, match="leader"):
        env.init_from_deal(["1111222", "2333344"], leader=2)


def test_init_from_deal_counts_equal_strings(env):
    a = env.init_from_deal(["1122BR3", "1233444"])
    b = env.init_from_deal(np.array([[2, 2, 1, 0, 1, 1], [1, 1, 2, 3, 0, 0]]))
    np.testing.assert_array_equal(np.asarray(a._hands), np.asarray(b._hands))
    np.testing.assert_array_equal(np.asarray(a._kitty), [1, 1, 1, 1, 0, 0])


# ---------------------------------------------------------------------------- the solver
def test_solve_deals_and_probabilities():
    hands, probs, values = solver.solve()
    assert hands.shape == (8832, 2, 6) and probs.shape == (8832,) and values.shape == (8832,)
    assert probs.dtype == np.float64
    assert len({h.tobytes() for h in hands}) == 8832
    assert (hands.sum(-1) == 7).all() and (hands.sum(1) <= mdz.FULL).all() and (hands >= 0).all()
    assert set(np.unique(values).tolist()) == {-1, 1}
    assert (probs > 0).all()
    assert abs(probs.sum() - 1.0) < 1e-12


def _direct_count(h0, h1):
    """Ordered dealings of the 18 physical cards giving seat 0 ``h0`` and seat 1 ``h1``."""
    ranks = mdz.CARD_RANK
    n = 0
    for s0 in itertools.combinations(range(18), 7):
        if (np.bincount(ranks[list(s0)], minlength=6) != h0).any():
            continue
        rest = [i for i in range(18) if i not in s0]
        for s1 in itertools.combinations(rest, 7):
            n += (np.bincount(ranks[list(s1)], minlength=6) == h1).all()
    return n


@pytest.mark.parametrize("deal", [("1111BR2", "2223333"), ("1234BR1", "2223334")])
def test_probability_agrees_with_direct_count(deal):
    hands, probs, _ = solver.solve()
    h = mdz.check_deal(list(deal))
    i = int(np.flatnonzero((hands == h).all(axis=(1, 2)))[0])
    n = _direct_count(h[0], h[1])
    assert n == solver.deal_count(h)
    assert probs[i] == pytest.approx(n / (math.comb(18, 7) * math.comb(11, 7)), rel=1e-12)


def test_first_player_win_rate():
    rate = solver.first_player_win_rate()
    assert abs(rate - 0.707) < 0.0005  # the paper's 70.7%
    assert solver.first_player_win_rate(exact=True) == Fraction(185659, 262548)  # 0.70714...
    hands, probs, values = solver.solve()
    assert rate == pytest.approx(float(probs @ (values > 0)), abs=1e-12)


@pytest.mark.parametrize(
    "me, opp, to_beat, wins",
    [
        ("1", "4444", None, True),  # the last card
        ("11", "4", None, True),  # a pair the opponent cannot beat empties the hand
        ("12", "4", None, False),  # any single is beaten by the 4, which empties its hand
        ("12", "33", None, False),  # 3 beats either single, then the other 3 leads
        ("1R", "44", None, True),  # R first (unbeatable), then the 1
        ("1R", "4B", None, True),  # R, pass, 1
        ("4", "11", "3", True),  # beats the 3 with its last card
        ("4", "11", "11", False),  # cannot beat a pair: passes, the opponent leads 11
        ("4", "11", "R", False),
        ("22", "4", "1", False),  # 2 beats the 1, but then the 4 beats the other 2
        ("22", "3", "11", True),  # 22 beats 11 and empties the hand
        ("112", "3", None, True),  # lead 11 (unbeatable pair), opponent passes, then 2
    ],
)
def test_solver_small_positions(me, opp, to_beat, wins):
    assert solver.position_wins(me, opp, to_beat) is wins


def test_solver_optimal_actions():
    assert [mdz.action_str(a) for a in solver.optimal_actions("11R", "4")] == ["11", "R"]  # not "1"
    assert [mdz.action_str(a) for a in solver.optimal_actions("112", "3")] == ["11"]
    # a lost position: every legal move
    assert [mdz.action_str(a) for a in solver.optimal_actions("12", "4")] == ["1", "2"]
    with pytest.raises(ValueError):
        solver.position_wins("", "1")
    with pytest.raises(ValueError):
        solver.position_wins("11111", "1")


def _brute_force_leader_wins(h0, h1):
    """An independent, deliberately plain negamax over tuples (no shared tables)."""
    jokers = {4, 5}

    @functools.lru_cache(maxsize=None)
    def win(me, opp, tb):
        for r in range(6):
            for n in range(1, me[r] + 1):
                if r in jokers and n > 1:
                    continue
                if tb is not None and not (n == tb[1] and r > tb[0]):
                    continue
                left = me[:r] + (me[r] - n,) + me[r + 1:]
                if sum(left) == 0 or not win(opp, left, (r, n)):
                    return True
        return tb is not None and not win(opp, me, None)

    return win(tuple(int(x) for x in h0), tuple(int(x) for x in h1), None)


def test_solver_agrees_with_brute_force():
    hands, _, values = solver.solve()
    rng = np.random.default_rng(7)
    for i in rng.choice(len(hands), 150, replace=False):
        assert _brute_force_leader_wins(hands[i, 0], hands[i, 1]) == (values[i] > 0), hands[i]
