"""The exact Mini Dou Di Zhu players of Whitehouse et al. (figure 3): equation (1), determinized
minimax, Bayesian inference, information-set expectimax (cardjax/games/mini_doudizhu/exact.py and
its value tables, exact_tables.py)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from cardjax.games.mini_doudizhu import exact as mx
from cardjax.games.mini_doudizhu import exact_tables as xt
from cardjax.games.mini_doudizhu import env as mdz
from cardjax.games.mini_doudizhu import solver as solver

A = mdz.parse_action
H = mdz.parse_hand
EPS = xt.EPS


def test_cheating_against_itself_is_the_solver():
    """Both sides optimal: player 1 wins the solver's 70.71%, exactly, whatever the tie-break."""
    hands, _, _ = mx.deals()
    exact = solver.first_player_win_rate(exact=True)
    for eps in (EPS, 0.0):
        w = mx.play(mx.Cheating(eps), mx.Cheating(eps), hands)
        assert mx.win_rate(w) == exact
    assert abs(float(exact) - 0.7071) < 1e-4


def test_equation_1_keeps_the_minimax_order():
    V, _ = xt.minimax_tables(EPS)
    V0, _ = xt.minimax_tables(0.0)
    on = ~np.isnan(V0)
    assert set(np.unique(V0[on])) == {-1.0, 1.0}
    np.testing.assert_array_equal(np.sign(V[on]), V0[on])
    assert np.abs(V[on] - V0[on]).max() < 0.03  # a small correction, far from flipping a sign
    # the plain values are the solver's, on every deal
    hands, _, values = solver.solve()
    np.testing.assert_array_equal(V0[xt.pair_index(hands[:, 0], hands[:, 1]), xt.LEAD], values)


def test_equation_1_prefers_the_line_with_more_chances_for_the_opponent_to_go_wrong():
    """12 against 23, leading: both leads lose to perfect play.  After 1 the opponent has three
    replies (2, 3, pass) and two of them keep its win; after 2 it has two (3, pass) and only
    one does.  Equation (1) plays 2; the plain tie-break plays the lowest action, 1."""
    e = EPS
    # negamax values worked out by hand; (1 + e) is a one-move win worth 1 + eps * 1
    after_2 = (1 + e) ** 2 + e * ((1 + e) ** 2 - (1 + e)) / 2  # the opponent to move, facing 2
    after_1 = (1 + e) ** 2 + e * (2 * (1 + e) ** 2 - (1 + e)) / 3  # facing 1
    assert xt.minimax_value("23", "1", "2") == pytest.approx(after_2, abs=1e-15)
    assert xt.minimax_value("23", "2", "1") == pytest.approx(after_1, abs=1e-15)
    assert -after_2 > -after_1
    root = -after_2 + e * (-after_2 - after_1) / 2
    assert xt.minimax_value("12", "23") == pytest.approx(root, abs=1e-15)
    assert xt.minimax_action("12", "23") == A("2")
    assert xt.minimax_action("12", "23", eps=0.0) == A("1")
    assert xt.minimax_value("12", "23", eps=0.0) == -1.0
    # a won position: equation (1) only ever picks among the winning moves
    for me, other in (("1122BR3", "1233444"), ("1111222", "2333344"), ("1234BR1", "2223334")):
        if solver.position_wins(me, other):
            assert xt.minimax_action(me, other) in solver.optimal_actions(me, other)


def _random_positions(n, seed=0):
    rng = np.random.default_rng(seed)
    deck = np.repeat(np.arange(6), mdz.FULL)
    out = []
    while len(out) < n:
        cards = rng.permutation(deck)
        a, b = rng.integers(1, 8, size=2)
        x = np.bincount(cards[:a], minlength=6)
        y = np.bincount(cards[a:a + b], minlength=6)
        tb = int(rng.integers(-1, 18))
        out.append((x, y, tb))
    return out


def test_determinized_with_the_true_hand_only_is_cheating():
    for x, y, tb in _random_positions(300):
        for eps in (EPS, 0.0):
            assert xt.determinized_action(x, tb, [y], [1], eps=eps) == \
                xt.minimax_action(x, y, tb, eps=eps)
    # a weighted vote: the heavier determinization wins, an equal vote goes to the lower id
    assert xt.minimax_action("12", "3") != xt.minimax_action("12", "23")
    a3, a23 = xt.minimax_action("12", "3"), xt.minimax_action("12", "23")
    assert xt.determinized_action("12", None, ["3", "23"], [1, 3]) == a23
    assert xt.determinized_action("12", None, ["3", "23"], [3, 1]) == a3
    assert xt.determinized_action("12", None, ["3", "23"], [2, 2]) == min(a3, a23)


def _consistent_hands(unseen, n):
    return [np.array(h) for h in itertools.product(*(range(int(u) + 1) for u in unseen))
            if sum(h) == n]


def test_no_inference_weights_are_the_deal_of_the_unseen_cards():
    # I was dealt 1111223, led 2, and the opponent beat it with 4
    hands, p, w = mx.posterior(mx.Determinized(), "111123", ["2", "4"])
    unseen = mdz.FULL - H("111123") - H("24")
    assert unseen.sum() == 10
    expect = {tuple(h): math.prod(math.comb(int(u), int(k)) for u, k in zip(unseen, h))
              for h in _consistent_hands(unseen, 6)}
    got = {tuple(h): (pp, ww) for h, pp, ww in zip(hands, p, w)}
    assert set(got) == set(expect)  # every hand that fits, and nothing else
    total = sum(expect.values())
    assert total == math.comb(10, 6)  # the kitty takes the other 4 cards
    for h, (pp, ww) in got.items():
        assert ww == expect[h] and pp == pytest.approx(expect[h] / total, abs=1e-15)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)


class _Lowest:
    """A test opponent: the lowest legal action that plays cards, pass only when it must."""

    def spawn(self, own0, other0, seat, opponent=None):
        return _LowestRows(own0, other0, seat)


class _LowestRows(mx._Rows):
    def __init__(self, own0, other0, seat):
        self._setup(own0, other0, seat)

    def act(self):
        mask = mdz.legal_mask(xt.HANDS[self.own], np.where(self.slot == xt.LEAD, -1, self.slot),
                              xp=np)
        return np.argmax(mask, axis=1)  # pass (18) is last

    def observe(self, actions):
        self._advance(np.asarray(actions, np.int64))


def test_correct_inference_posterior_by_hand():
    """I was dealt 1111223 and led 2; the opponent, who plays its lowest legal move, answered 4:
    so it holds no 3.  Its 7 cards came from 22 333 4444 B R without the 3s, i.e. 22 4444 B R
    less one card (4 hands).  Now it holds 6 of the 10 unseen cards 22 333 444 B R, each hand
    weighted by the ways to deal it from them."""
    det = mx.Determinized(inference="correct")
    hands, p, w = mx.posterior(det, "111123", ["2", "4"], opponent=_Lowest())
    got = {mdz.hand_str(h): (Fraction(int(ww), int(w.sum())), pp) for h, pp, ww in zip(hands, p, w)}
    # unseen now 22 333 444 B R; C(2, h2) C(3, h3) C(3, h4) C(1, hB) C(1, hR)
    expect = {
        "2444BR": Fraction(2, 7),  # C(2,1) C(3,3) = 2  (it started 2 4444 B R)
        "2244BR": Fraction(3, 7),  # C(2,2) C(3,2) = 3  (22 444 B R)
        "22444R": Fraction(1, 7),  # 1               (22 4444 R)
        "22444B": Fraction(1, 7),  # 1               (22 4444 B)
    }
    assert set(got) == set(expect)
    for h, (f, pp) in got.items():
        assert f == expect[h] and pp == pytest.approx(float(expect[h]), abs=1e-15)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    # the model's own history-free check: each kept hand (as it was) answers 2 with 4
    for h in hands:
        before = h + H("4")
        assert mdz.legal_moves(before, "2")[0] == "4"
    # no inference on the same history keeps the hands with 3s as well
    h0, p0, _ = mx.posterior(mx.Determinized(), "111123", ["2", "4"])
    assert len(h0) > len(hands) and any(h[2] > 0 for h in h0)


def test_inference_with_a_wrong_model_keeps_the_fewest_mismatches():
    """With a model that no hand explains, the posterior keeps the hands with the fewest
    mismatches instead of emptying."""
    det = mx.Determinized(inference=_Lowest())
    # I lead 2, the opponent answers R: the lowest-move model would not (it holds 3s, 4s or B:
    # 7 of 22 333 4444 B R), so every hand has one mismatch and nothing is ruled out
    h1, p1, _ = mx.posterior(det, "111123", ["2", "R"])
    h0, p0, _ = mx.posterior(mx.Determinized(), "111123", ["2", "R"])
    np.testing.assert_array_equal(h1, h0)
    np.testing.assert_allclose(p1, p0, rtol=0, atol=1e-15)
    # I pass, it leads 3: the model leads 3 only without a 2; those hands have one mismatch,
    # the others two
    h2, p2, w2 = mx.posterior(det, "111123", ["2", "R", "pass", "3"])
    h3, p3, w3 = mx.posterior(mx.Determinized(), "111123", ["2", "R", "pass", "3"])
    keep = h3[:, 1] == 0
    assert 0 < keep.sum() < len(h3)
    np.testing.assert_array_equal(h2, h3[keep])
    np.testing.assert_array_equal(w2, w3[keep])
    assert p2.sum() == pytest.approx(1.0, abs=1e-12)


def test_correct_inference_never_rules_out_the_true_hand():
    hands, _, _ = mx.deals()
    sub = hands[::97]
    seen = []

    def on_act(seat, inst, rows, actions, cur):
        if seat == 0:
            hyp, prob, _ = inst.weights()
            true = xt.hand_code(cur[:, 1])
            seen.append((prob * (hyp == true[:, None])).sum(1))

    for opp in (mx.Expectimax(), mx.Determinized(), mx.Determinized(inference="incorrect")):
        seen.clear()
        mx.play(mx.Determinized(inference="correct"), opp, sub, on_act=on_act)
        assert min(float(s.min()) for s in seen) > 0
        assert max(float(s.max()) for s in seen) == pytest.approx(1.0)


def test_expectimax_with_the_opponents_hand_known_is_cheating():
    """kitty=0: the unseen cards are the opponent's hand, one state per information set."""
    V, D = xt.minimax_tables(EPS)
    VM, VO, DM = xt.expectimax_tables(EPS, kitty=0)
    on = ~np.isnan(V)
    np.testing.assert_allclose(VM[on], V[on], rtol=0, atol=1e-13)
    np.testing.assert_array_equal(DM[on], D[on])
    # the opponent's nodes: minus its own value of the swapped position
    swap = xt.pair_index(xt.PY, xt.PX)
    on_o = ~np.isnan(VO)
    np.testing.assert_allclose(VO[on_o], -V[swap][on_o], rtol=0, atol=1e-13)
    for x, y, tb in _random_positions(50, seed=1):
        assert xt.expectimax_action(x, y, tb, kitty=0) == xt.minimax_action(x, y, tb)
        assert xt.expectimax_value(x, y, tb, kitty=0) == pytest.approx(xt.minimax_value(x, y, tb))


def test_expectimax_value_by_hand():
    """I hold 12 and lead; the opponent holds one of the 5 unseen cards 22344 (4 in the kitty).
    Leading 1 loses to every card (it plays it and wins, or passes and lets me win: it plays).
    Leading 2: a 2 cannot beat it (2/5: it passes, I play 1 and win), a 3 or 4 wins (3/5)."""
    e = EPS
    lead1 = -1 + e * (-1 + (1 + e)) / 2  # min(-1, 1+e) + e * mean(-1, 1+e)
    lead2 = (2 / 5) * (1 + e) ** 2 + (3 / 5) * lead1  # a 2 passes: my 1 is a one-move win
    value = max(lead1, lead2) + e * (lead1 + lead2) / 2
    assert xt.expectimax_value("12", "22344") == pytest.approx(value, abs=1e-15)
    assert xt.expectimax_action("12", "22344") == A("2")
    # the opponent's node after my 2 (I hold 1 now), to me
    assert xt.expectimax_value("1", "22344", to_move="opponent", to_beat="2") == \
        pytest.approx(lead2, abs=1e-15)


def test_one_game_act_matches_the_lockstep_players():
    """act(player, hand, history) replays what play() did, move by move (nested models too)."""
    hands, _, _ = mx.deals()
    sub = hands[5::1103][:8]
    pairs = [(mx.Determinized(inference="correct"), mx.Determinized(inference="incorrect")),
             (mx.Determinized(inference="incorrect"), mx.Determinized(inference="correct")),
             (mx.Expectimax(), mx.Determinized()), (mx.Cheating(), mx.Determinized(inference="correct"))]
    for p1, p2 in pairs:
        log = {i: [] for i in range(len(sub))}

        def on_act(seat, inst, rows, actions, cur):
            for r, a in zip(rows, actions):
                log[int(r)].append((int(a), cur[np.flatnonzero(rows == r)[0]].copy()))

        mx.play(p1, p2, sub, on_act=on_act)
        for i, moves in log.items():
            hist = []
            for t, (a, cur) in enumerate(moves):
                seat = t % 2
                me, opp = (p1, p2) if seat == 0 else (p2, p1)
                other = cur[1 - seat] if isinstance(me, mx.Cheating) else None
                assert mx.act(me, cur[seat], hist, other_hand=other, opponent=opp) == a
                hist.append(a)


def test_pinned_cells_of_the_matrix():
    """A few exact cells of the figure-3 matrix (benchmarks/whitehouse_mini_exact_2026-11-25.json)."""
    hands, counts, total = mx.deals()
    assert total == math.comb(18, 7) * math.comb(11, 7)
    cells = {
        ("cheat", "det"): 0.9193,
        ("det", "det"): 0.5557,
        ("expectimax", "expectimax"): 0.6628,
    }
    for (a, b), rate in cells.items():
        r = mx.win_rate(mx.play(mx.PLAYERS[a](EPS), mx.PLAYERS[b](EPS), hands))
        assert abs(float(r) - rate) < 5e-5, (a, b, float(r))


def test_bad_input():
    with pytest.raises(ValueError, match="7-card starting hand"):
        mx.act(mx.Expectimax(), "11112222", [])
    with pytest.raises(ValueError, match="unknown card"):
        mx.act(mx.Expectimax(), "1111225", [])
    with pytest.raises(ValueError, match="6 rank counts"):
        mx.act(mx.Expectimax(), [1, 2, 3, 1, 0], [])
    with pytest.raises(ValueError, match="7-card starting hand"):
        mx.act(mx.Expectimax(), [4, 4, 0, 0, 0, -1], [])
    with pytest.raises(ValueError, match="7-card starting hand"):
        mx.act(mx.Expectimax(), [5, 2, 0, 0, 0, 0], [])
    with pytest.raises(ValueError, match="integers"):
        mx.act(mx.Expectimax(), np.array([1.5, 2, 0, 0, 0, 0]), [])
    with pytest.raises(ValueError, match="7-card starting hand"):
        mx.act(mx.Expectimax(), "111122", ["1", "2"])  # five 1s with the one I played
    with pytest.raises(ValueError, match="does not beat"):
        mx.act(mx.Expectimax(), "112234", ["2", "1"])
    with pytest.raises(ValueError, match="leader may not pass"):
        mx.act(mx.Expectimax(), "1122334", ["pass"])
    with pytest.raises(ValueError, match="other_hand"):
        mx.act(mx.Cheating(), "1122334", [])
    with pytest.raises(ValueError, match="opponent"):
        mx.act(mx.Determinized(inference="correct"), "1122334", [])
    with pytest.raises(ValueError, match="infinite"):
        mx.act(mx.Determinized(inference="correct"), "1122334", [],
               opponent=mx.Determinized(inference="correct"))
    with pytest.raises(ValueError, match="inference"):
        mx.Determinized(inference="sometimes")
    with pytest.raises(ValueError, match="18-card deck"):
        xt.minimax_value("11111", "2")
    with pytest.raises(ValueError, match="18-card deck"):
        xt.minimax_value("1111", "1")
    with pytest.raises(ValueError, match="1..7 cards"):
        xt.minimax_value("11223344", "B")
    with pytest.raises(ValueError, match="opponent"):
        xt.expectimax_value("12", "2234")  # 4 unseen: the opponent would hold nothing
    with pytest.raises(ValueError, match="weight"):
        xt.determinized_action("12", None, ["3"], [0])
    with pytest.raises(ValueError, match="8832"):
        mx.win_rate(np.zeros(10, np.int8))
    with pytest.raises(ValueError, match="incorrect must be one of"):
        mx.Determinized(inference="incorrect", incorrect="greedy")


def test_the_incorrect_model_is_an_option():
    """``incorrect`` names the model of "incorrect inference"; cheating minimax by default."""
    assert mx.Determinized(EPS, "incorrect").model(None) == mx.Cheating(EPS)
    assert mx.player("det_inc", EPS, "expectimax").model(None) == mx.Expectimax(EPS)
    assert mx.player("det_inc", EPS, "cheat_plain").model(None) == mx.Cheating(0.0)
    assert mx.player("det_inc", EPS, "det").model(None) == mx.Determinized(EPS)
    assert mx.player("det", EPS) == mx.Determinized(EPS)
    assert "model: expectimax" in mx.player("det_inc", EPS, "expectimax").name


@pytest.fixture
def few_deals(monkeypatch):
    """The first 240 deals only, with their weights (the commands' figures on a subset)."""
    hands, counts, total = mx.deals()
    sub = (hands[:240], counts[:240], int(counts[:240].sum()))
    monkeypatch.setattr(mx, "deals", lambda: sub)
    return sub


def test_mini_inference_command_on_a_subset(few_deals, capsys):
    """``cardjax whitehouse mini-inference``: each model's gain is its row's win rate less det's,
    both as play() gives them; identification only grows with the decisions, and the correct
    model always keeps the true hand (identified at the end of most games)."""
    from cardjax.commands import whitehouse

    hands, counts, total = few_deals
    out = whitehouse.main(["mini-inference", "--models", "cheat", "expectimax", "--quiet"])
    won = lambda a, b: mx.play(a, b, hands) == 0  # noqa: E731
    for model in ("cheat", "expectimax"):
        inc = won(mx.player("det_inc", EPS, model), mx.Expectimax(EPS))
        det = won(mx.Determinized(EPS), mx.Expectimax(EPS))
        gain = out["incorrect_models"][model]["gain_points"]["expectimax"]
        assert gain["weighted"] == pytest.approx(
            round(100 * (counts[inc].sum() - counts[det].sum()) / total, 2))
        assert gain["per_deal"] == pytest.approx(round(100 * (inc.mean() - det.mean()), 2))
    for r in out["identification_det_cor"].values():
        shares = [x["weighted"] for x in r["by_own_decision"]]
        assert shares == sorted(shares) and shares[-1] <= r["last_decision"]["weighted"]
        assert shares[0] < shares[-1] <= r["game_over"]["weighted"] <= 1
    assert "paper: about +10" in capsys.readouterr().out
    with pytest.raises(SystemExit):  # equation (1) must keep the minimax order
        whitehouse.main(["mini-inference", "--eps", "0.5"])
