"""Deep Monte Carlo for Tractor (ShengJi+): the adapter (cardjax.nets.dmc.adapters.tractor), the
non-lockstep roles of the trainer, its command (cardjax train shengji) and the loaded player.

Tiny sizes (4 hands per iteration, 16-wide nets, two candidate pools).  Compiled programs are
shared: one training step for the module (``dmc.cached_train`` keeps it across the ``main``
calls), one learner, one greedy self-play loop, one plain-env step (``get_compiled``) and one rule
player (:func:`rule_act`); the rest runs eagerly on small arrays.
"""

from __future__ import annotations


import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax.agents import dmc as dmc_agent
from cardjax.games.tractor import metrics as tractor_metrics
from cardjax.games.tractor import env as tractor
from cardjax.games.tractor import state_facts
from cardjax.games.tractor import tricks
from cardjax.games.tractor import cards as TC
from cardjax.games.tractor import moves as tm
from cardjax.games.tractor import observe as tractor_observe
from cardjax.checkpoint import Checkpoints
from cardjax.nets.dmc.adapters import tractor as adapter
from cardjax.nets.dmc.adapters.tractor import actions as tractor_actions
from cardjax.nets.dmc.adapters.tractor import features as tractor_features
from cardjax.nets.dmc.adapters.tractor import rewards as tractor_rewards
from cardjax.train import dmc
from cardjax.commands.train import shengji
from conftest import assert_update_lowers_loss, get_compiled, read_metrics, straight_and_resumed


# k_fast 64: the batched scorers pack 64 candidates a game in a pass, and past that score every
# slot; packing gives the numbers of scoring every slot, and the tiny runs take one pass.
TINY = {"num_envs": 4, "width": 16, "depth": 1, "head_width": 16, "head_depth": 2,
        "minibatch": 256, "replay": 1, "k_fast": 64}
TINY_FLAGS = [x for k, v in TINY.items() for x in (f"--{k}", str(v))] + [
    "--eval_deals", "0", "--no-progress"]
TIMING = {"seconds", "elapsed_s", "games_per_s", "frames_per_s"}
PHASE = 54 + 13 + 5 + 4  # offset of the phase one-hot in Tractor's observe
G = 0.95


@functools.cache
def rule_act():
    """The rule player's ``act`` on the plain env, jitted once for the module (it is
    deterministic: call it with ``None`` for the params and the key)."""
    return jax.jit(cardjax.agents.get(cardjax.make("tractor"), "rule").act)


def tractor_game(env, point_reward=0.0, oracle=False, dynamic=False, trick_facts=False,
                 consequences=False, leads="cards", throws=False):
    """The adapter's game for ``env`` with these options (the others off)."""
    cfg = dmc.Config.for_game("tractor", point_reward=point_reward, oracle_iterations=int(oracle),
                              encoding="dynamic" if dynamic else "static", trick_facts=trick_facts,
                              consequences=consequences, leads=leads, throws=throws)
    return adapter.make_game(cfg, env)


# ------------------------------------------------------------------------------- return targets
def test_returns_tractor_like_episode():
    """Seats 0-3 declare (pass), seat 0 buries twice, then a trick 1, 2, 3, 0 that the team
    {1, 3} wins with 20 points (+-0.2 with 0.01 per point) and that ends the hand: the team
    {0, 2} gains 1 level (+-1).  gamma 0.95 per decision (per env step); step 10 is padding."""
    T = 11
    seats = np.array([0, 1, 2, 3, 0, 0, 1, 2, 3, 0, 1], np.int32)
    rewards = np.zeros((T, 1, 4), np.float32)
    rewards[9, 0] = [-0.2, 0.2, -0.2, 0.2]  # the trick ends at seat 0's card (step 9)
    final = np.array([1.0, -1.0, 1.0, -1.0], np.float32)
    rewards[9, 0] += final  # ... and the hand with it
    alive = np.ones((T, 1), bool)
    alive[10] = False
    targets, weights = dmc.returns(jnp.asarray(rewards), jnp.asarray(seats[:, None]),
                                   jnp.asarray(alive), jnp.asarray([True]), G)
    targets, weights = np.asarray(targets)[:, 0], np.asarray(weights)[:, 0]
    # the decision at step t of seat s: gamma^(9 - t) * (trick reward + level reward) of s
    expect = [G ** (9 - t) * (rewards[9, 0, s]) for t, s in enumerate(seats[:10])]
    np.testing.assert_allclose(targets[:10], expect, rtol=1e-6)
    assert targets[0] == pytest.approx(G ** 9 * 0.8)  # seat 0: -0.2 + 1
    assert targets[1] == pytest.approx(-(G ** 8) * 0.8)  # seat 1: +0.2 - 1
    assert targets[9] == pytest.approx(0.8) and targets[10] == 0
    np.testing.assert_array_equal(weights, [1] * 10 + [0])


def test_returns_per_trick_rewards_discount_per_decision():
    """Two tricks paying different teams: each seat's target adds its team's signed trick
    rewards and its final reward, each discounted by the decisions (steps) between."""
    T = 8
    seats = np.array([0, 1, 2, 3, 1, 2, 3, 0], np.int32)
    rewards = np.zeros((T, 1, 4), np.float32)
    rewards[3] = [0.1, -0.1, 0.1, -0.1]  # team {0, 2} took 10 points
    rewards[7] = [-0.25 - 2, 0.25 + 2, -0.25 - 2, 0.25 + 2]  # 25 points and 2 levels to {1, 3}
    targets, _ = dmc.returns(jnp.asarray(rewards), jnp.asarray(seats[:, None]),
                             jnp.ones((T, 1), bool), jnp.asarray([True]), G)
    targets = np.asarray(targets)[:, 0]
    assert targets[0] == pytest.approx(G ** 3 * 0.1 + G ** 7 * -2.25)
    assert targets[1] == pytest.approx(G ** 2 * -0.1 + G ** 6 * 2.25)
    assert targets[4] == pytest.approx(G ** 3 * 2.25)  # seat 1 after the first trick
    assert targets[7] == pytest.approx(-2.25)


def test_returns_discount_per_trick():
    """``discount="trick"``: gamma applies only after the steps that end a trick; the decisions
    before the first trick ends (declaration, burial) get the returns undiscounted."""
    seats = np.array([0, 1, 2, 3, 0, 1, 2, 3], np.int32)
    ticks = np.array([0, 0, 0, 0, 0, 1, 0, 1], bool)  # tricks end at steps 5 and 7
    rewards = np.zeros((8, 1, 4), np.float32)
    rewards[5] = [0.1, -0.1, 0.1, -0.1]
    rewards[7] = [1.0, -1.0, 1.0, -1.0]
    targets, _ = dmc.returns(jnp.asarray(rewards), jnp.asarray(seats[:, None]),
                             jnp.ones((8, 1), bool), jnp.asarray([True]), G,
                             jnp.asarray(ticks[:, None]))
    targets = np.asarray(targets)[:, 0]
    np.testing.assert_allclose(targets, [0.1 + G, -0.1 - G, 0.1 + G, -0.1 - G, 0.1 + G,
                                         -0.1 - G, 1.0, -1.0], rtol=1e-6)


def test_returns_report_trick_target():
    """The report's target (4.4): a decision gets its own trick's rewards -- from its step to
    the trick's end, a failed throw's penalty included -- plus the final outcome times gamma
    per trick after its trick; later tricks' points do not count.  Two declarations, then two
    tricks (ending at steps 5 and 9); the hand's outcome (2 levels to {1, 3}) comes with the
    last trick's points; step 10 is padding."""
    T = 11
    seats = np.array([0, 1, 0, 1, 2, 3, 1, 2, 3, 0, 0], np.int32)
    ticks = np.zeros(T, bool)
    ticks[[5, 9]] = True
    team = np.array([1.0, -1.0, 1.0, -1.0], np.float32)  # + for {0, 2}
    rewards = np.zeros((T, 1, 4), np.float32)
    rewards[2] = -0.1 * team  # seat 0's failed throw: 10 points to {1, 3}
    rewards[5] = 0.15 * team  # {0, 2} take the first trick's 15 points
    outcome = np.zeros((T, 1, 4), np.float32)
    outcome[9] = -2.0 * team
    rewards[9] = -0.3 * team + outcome[9]  # {1, 3} take 30 points and the hand
    alive = np.ones((T, 1), bool)
    alive[10] = False
    targets, weights = dmc.returns(
        jnp.asarray(rewards), jnp.asarray(seats[:, None]), jnp.asarray(alive),
        jnp.asarray([True]), G, jnp.asarray(ticks[:, None]), outcome=jnp.asarray(outcome))
    targets = np.asarray(targets)[:, 0]
    first = 0.05 - 2 * G  # seat 0's team: -0.1 + 0.15 in trick 1, then the hand lost
    expect = [first, -first, first, -0.15 + 2 * G, 0.15 - 2 * G, -0.15 + 2 * G,
              2.3, -2.3, 2.3, -2.3, 0.0]
    np.testing.assert_allclose(targets, expect, rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(weights)[:, 0], [1] * 10 + [0])
    with pytest.raises(ValueError, match="ticks and lam"):
        dmc.returns(jnp.asarray(rewards), jnp.asarray(seats[:, None]), jnp.asarray(alive),
                    jnp.asarray([True]), G, outcome=jnp.asarray(outcome))


# -------------------------------------------------------------------------------- the adapter
def test_action_table():
    t = tractor_actions.action_table()
    assert t.shape == (66, 88) and t.dtype == bool
    np.testing.assert_array_equal(t[:, :66], np.eye(66, dtype=bool))
    for card, suit, rank, five, ten in [("5♠", 0, 3, 1, 0), ("T♥", 1, 8, 0, 1),
                                        ("K♦", 2, 11, 0, 1), ("A♣", 3, 12, 0, 0),
                                        ("XJ", 4, 13, 0, 0), ("DJ", 4, 14, 0, 0)]:
        row = t[TC.card_type(card)]
        assert np.flatnonzero(row[66:71]).tolist() == [suit]
        assert np.flatnonzero(row[71:86]).tolist() == [rank]
        assert row[86:].tolist() == [five, ten]
    assert not t[54:, 66:].any()  # done, pass, declarations: their one-hot only


def test_dynamic_action_table_matches_the_features():
    """Row ``a + 66 * (5 * level + trump)``: a card's one-hot at its place in the dynamic
    encoding -- where ``to_dynamic`` puts that card in the features --, its effective suit
    (plain suits in SUIT_ORDER, trump 5th), its order and points; other actions their one-hot."""
    t = tractor_actions.dynamic_action_table()
    assert t.shape == (13 * 5 * 66, 89) and t.dtype == bool
    env = cardjax.make("tractor")
    game = tractor_game(env, dynamic=True)
    s = env.trick_state(["A♠ 4♥ 5♦", "3♦", "3♣", "3♠"], 4, "H", leader=0, dealer=0)
    rows = np.asarray(game.action_rows(s))
    assert rows.tolist() == list(range(66 * (5 * 2 + 1), 66 * (5 * 2 + 2)))
    hand = np.asarray(game.features(s))[:54]
    for card, suit, order, five in [("A♠", 0, 14, 0), ("4♥", 4, 16, 0), ("5♦", 1, 5, 1)]:
        a = TC.card_type(card)
        row = t[rows[a]]
        place = tm.DYN[2, 1, a]
        assert np.flatnonzero(row[:66]).tolist() == [place] and hand[place] == 100
        assert np.flatnonzero(row[66:71]).tolist() == [suit]
        assert np.flatnonzero(row[71:87]).tolist() == [order - 3]
        assert row[87:].tolist() == [five, 0]
    for a in range(54, 66):
        assert np.flatnonzero(t[rows[a]]).tolist() == [a]
    assert game.num_actions == 66 and tractor_game(env).num_actions == 66


def test_trick_facts():
    """The features' tail: unseen cards, the seat holding the trick relative to the acting seat
    and the points on the table, hand-checked through a trick at level 4, hearts trump."""
    env = cardjax.make("tractor")
    step = get_compiled(env).step
    s = env.trick_state(["A♠ 4♥ 5♦", "K♠ 3♦", "3♣ 2♣", "3♠ 9♠"], 4, "H", leader=0, dealer=0)
    facts = lambda s: np.asarray(tractor_features.trick_facts(s))  # noqa: E731
    f = facts(s)  # seat 0 leads: nothing is held yet
    assert f.shape == (59,) and f[54:].tolist() == [0, 0, 0, 0, 0]
    assert f[:54].sum() * 2 == 108 - 3 and f[TC.card_type("A♠")] == 0.5
    s = step(step(s, TC.card_type("A♠")), 54)  # lead A♠, done
    f = facts(s)  # seat 1 to play; seat 0 (previous) holds it
    assert f[54:58].tolist() == [0, 0, 0, 1] and f[58] == 0
    assert f[TC.card_type("A♠")] == 0.5 and f[TC.card_type("K♠")] == 0.5
    s = step(s, TC.card_type("K♠"))
    f = facts(s)  # seat 2: its partner (seat 0) holds the trick, 10 points on the table
    assert f[54:58].tolist() == [0, 0, 1, 0] and f[58] == pytest.approx(10 / 200)
    s = step(s, TC.card_type("2♣"))  # seat 2 discards
    f = facts(s)  # seat 3: seat 0 (next after it) still holds the trick
    assert f[54:58].tolist() == [0, 1, 0, 0] and f[58] == pytest.approx(10 / 200)
    dyn = np.asarray(tractor_features.trick_facts(s, dynamic=True))
    np.testing.assert_array_equal(dyn[:54], f[:54][np.argsort(tm.DYN[2, 1])])
    np.testing.assert_array_equal(dyn[54:], f[54:])


def test_consequences_say_who_holds_the_trick_after_each_completing_card():
    """Level 2, spades trump: seat 0 leads 5♥, seat 1 plays K♥, seat 2 3♥; seat 3's A♥ takes
    the trick, its 4♥ or a plain discard leaves it to its partner (seat 1), a trump (a level
    card too) would take it; the same for seat 2's choice; a lead completes nothing."""
    env = cardjax.make("tractor")
    step = get_compiled(env).step
    card = TC.card_type
    s = env.trick_state(["5♥ 6♣", "K♥ 7♣", "3♥ Q♥", "A♥ 4♥"], 2, "S", leader=0, dealer=0)
    assert np.all(np.asarray(state_facts.completing_holders(s)) == -1)  # a lead
    s = step(step(s, card("5♥")), tractor.DONE)
    s = step(s, card("K♥"))
    h = np.asarray(state_facts.completing_holders(s))  # seat 2 to play, seat 1's K♥ holds it
    assert h[card("Q♥")] == 1 and h[card("3♥")] == 1 and h[card("9♠")] == 2
    assert h[card("A♥")] == 2  # a higher heart than K takes it
    s = step(s, card("3♥"))
    h = np.asarray(state_facts.completing_holders(s))
    assert (h[card("A♥")], h[card("4♥")], h[card("9♠")], h[card("9♦")]) == (3, 1, 3, 1)
    assert h[card("2♦")] == 3  # a level card is trump: a ruff
    game = tractor_game(env, consequences=True)
    codes = np.asarray(tractor_features.consequence_codes(s))  # 1 self, 2 partner, 3 opponent
    assert (codes[card("A♥")], codes[card("4♥")], codes[tractor.DONE]) == (1, 2, 0)
    rows = np.asarray(game.action_rows(s))
    table = np.asarray(game.action_features)
    base = tractor_actions.action_table()
    assert table.shape == (4 * base.shape[0], base.shape[1] + 3)
    np.testing.assert_array_equal(table[rows[card("A♥")]], np.r_[base[card("A♥")], 1, 0, 0])
    np.testing.assert_array_equal(table[rows[card("4♥")]], np.r_[base[card("4♥")], 0, 1, 0])
    np.testing.assert_array_equal(table[rows[tractor.DONE]], np.r_[base[tractor.DONE], 0, 0, 0])


def test_security_says_whether_the_next_seat_may_still_take_the_trick():
    """Level 2, spades trump, 5♥ led by seat 0.  Seat 1's A♥ holds the trick safely (no heart
    above it), its K♥ holds it at risk (seat 1 has not seen the other A♥), a club leaves it to
    the leader; once seat 2 has shown a heart void even A♥ may be ruffed.  Then A♥ led and 4♥
    followed: seat 2's 3♥ leaves the trick to its partner, safely until seat 3 shows a heart
    void (trumps are unseen).  The last seat is always safe."""
    env = cardjax.make("tractor")
    step = get_compiled(env).step
    card = TC.card_type
    hands = ["5♥ A♥ 6♣", "A♥ K♥ 7♣ 4♥", "3♥ Q♥", "K♠ 4♣"]
    s = env.trick_state(hands, 2, "S", leader=0, dealer=0)
    s1 = step(step(s, card("5♥")), tractor.DONE)
    codes = np.asarray(tractor_features.consequence_codes(s1, security=True))
    assert (codes[card("A♥")], codes[card("K♥")], codes[card("7♣")]) == (1, 4, 3)
    assert list(np.asarray(tractor_features.consequence_codes(s1))[[card("A♥"), card("K♥")]]) == [1, 1]
    void = s1.replace(voids=s1.voids.at[2, 1].set(True))
    assert np.asarray(tractor_features.consequence_codes(void, security=True))[card("A♥")] == 4
    s2 = step(step(step(s, card("A♥")), tractor.DONE), card("4♥"))
    assert np.asarray(tractor_features.consequence_codes(s2, security=True))[card("3♥")] == 2
    void = s2.replace(voids=s2.voids.at[3, 1].set(True))
    assert np.asarray(tractor_features.consequence_codes(void, security=True))[card("3♥")] == 5
    s3 = step(s2, card("3♥"))  # seat 3 is last: what holds is safe
    assert np.asarray(tractor_features.consequence_codes(s3, security=True))[card("K♠")] == 1
    game = tractor_game(env, consequences=True)
    cfg = dmc.Config.for_game("tractor", encoding="static", trick_facts=False,
                              consequences=True, security=True)
    secure = adapter.make_game(cfg, env)
    assert secure.action_features.shape == (6 * tractor_actions.action_table().shape[0],
                                            game.action_features.shape[1] + 2)
    with pytest.raises(ValueError, match="security needs consequences"):
        dmc.Config.for_game("tractor", security=True)


def test_advice_flags_the_rule_players_follow():
    """Level 2, spades trump, 5♥ led, K♥ followed by an opponent of seat 2: seat 2 (3♥ A♥) takes
    it with A♥ (no heart above it, no void shown); if it plays 3♥ instead, seat 3 (A♥ 4♥), last
    with its partner's K♥ holding the trick, feeds the low 4♥ rather than overtake.  The advised
    card's row is its row with the advice flag; no other card, no lead, carries it.  Units,
    consequences and advice together: the flag's copy sits above every other code."""
    env = cardjax.make("tractor")
    step = get_compiled(env).step
    card = TC.card_type
    s = env.trick_state(["5♥ 6♣", "K♥ 7♣", "3♥ A♥", "A♥ 4♥"], 2, "S", leader=0, dealer=0)
    cfg = dmc.Config.for_game("tractor", encoding="static", trick_facts=False, advice=True)
    game = adapter.make_game(cfg, env)
    base = tractor_actions.action_table()
    table, rows = np.asarray(game.action_features), jax.jit(game.action_rows)
    assert table.shape == (2 * base.shape[0], base.shape[1] + 1)
    assert not np.any(np.asarray(tractor_features.rule_advice(env, s)))  # a lead: no advice
    s = step(step(step(s, card("5♥")), tractor.DONE), card("K♥"))
    assert np.flatnonzero(np.asarray(tractor_features.rule_advice(env, s))).tolist() == [card("A♥")]
    s = step(s, card("3♥"))
    assert np.flatnonzero(np.asarray(tractor_features.rule_advice(env, s))).tolist() == [card("4♥")]
    r = np.asarray(rows(s))
    np.testing.assert_array_equal(table[r[card("4♥")]], np.r_[base[card("4♥")], 1])
    np.testing.assert_array_equal(table[r[card("A♥")]], np.r_[base[card("A♥")], 0])
    cfg = dmc.Config.for_game("tractor", consequences=True, leads="units", advice=True)
    full = adapter.make_game(cfg, env)
    f = np.asarray(full.action_features)
    half = f.shape[0] // 2
    r = np.asarray(jax.jit(full.action_rows)(s))
    assert r[card("4♥")] >= half and r[card("A♥")] < half
    assert f[r[card("4♥")], -1] and not f[r[card("A♥")], -1]
    np.testing.assert_array_equal(f[r[card("4♥")], :-1], f[r[card("4♥")] - half, :-1])


def test_decision_kinds_and_the_lambda_returns_of_follows():
    """The adapter's kinds of decision: before the tricks, a lead's card, a follow's.  Under
    ``lam_kinds`` the lambda-returns record which decisions take them, and the value they
    bootstrap from is the network's Q of the move taken plus its exactly known step reward:
    not the advice bonus the actors chose by."""
    from cardjax.train.dmc.extensions import lambda_returns

    env = cardjax.make("tractor")
    step = get_compiled(env).step
    card = TC.card_type
    s = env.trick_state(["5♥ 6♣", "K♥ 7♣", "3♥ A♥", "A♥ 4♥"], 2, "S", leader=0, dealer=0)
    game = adapter.make_game(dmc.Config.for_game("tractor"), env)
    kinds = [adapter.DECISION_KINDS[int(game.kind(x))] for x in (
        env.init(jax.random.PRNGKey(0)), s, step(s, card("5♥")),
        step(step(s, card("5♥")), tractor.DONE))]
    assert kinds == ["pre_round", "lead", "lead", "follow"]
    cfg = dmc.Config.for_game("tractor", lam=0.5, lam_kinds="follow, lead")
    assert cfg.lam_kinds == "follow, lead"
    fake = game._replace(kind=lambda x: x)  # each "state" is its kind
    hooks = lambda_returns.build(lambda_returns.Options(0.5, "follow"), cfg, fake, {})
    row = hooks.record(None, dict(
        q_net=jnp.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]]), q=jnp.full((3, 2), 9.0),
        known=jnp.array([[0.0, 0.05], [0.0, 0.0], [0.01, 0.0]]), slot=jnp.array([1, 0, 0]),
        states=jnp.array([2, 1, 0])))
    np.testing.assert_allclose(np.asarray(row["q"]), [0.25, 0.3, 0.51], rtol=1e-6)
    assert np.asarray(row["lam_where"]).tolist() == [True, False, False]
    with pytest.raises(ValueError, match="unknown kinds of decision \\['follows'\\] for "
                       "tractor; known: \\['pre_round', 'lead', 'follow'\\]"):
        dmc.Config.for_game("tractor", lam=0.5, lam_kinds="follows")
    with pytest.raises(ValueError, match="its DMC adapter names none"):
        dmc.Config.for_game("doudizhu", lam=0.5, lam_kinds="follow")


def test_consequences_equal_stepping_each_card():
    """On positions of rule-player games, every legal card that completes a follow leads to the
    holder :func:`state_facts.completing_holders` says, once stepped."""
    env = cardjax.make("tractor")
    step, act = get_compiled(env).step, rule_act()
    holders = jax.jit(state_facts.completing_holders)

    @jax.jit
    def winner(t):  # the rules' whole-trick code over the complete plays
        eff, order, slot = tm.context(t.level, t.trump)
        plays = tm.pad(t.trick.astype(jnp.int32).at[t.current_player].set(0))
        return tricks.trick_winner(plays, t.leader, t.lead_tractors, t.lead_pairs, eff, order,
                                   slot)

    checked = 0
    s = env.init(jax.random.PRNGKey(3))
    while not bool(s.terminated):
        h = np.asarray(holders(s))
        legal = np.asarray(s.legal_action_mask)[:tractor.NUM_TYPES]
        for c in np.flatnonzero(legal & (h >= 0))[:3]:
            t = step(s, int(c))
            got = int(t.last_winner) if int(s.num_in_trick) == 3 else int(winner(t))
            assert int(t.last_winner if int(s.num_in_trick) == 3 else t.holder) == got
            assert got == h[c]
            checked += 1
        s = step(s, act(None, None, s))
    assert checked > 100


def test_unit_leads_rows_say_the_unit_and_whether_no_unseen_card_beats_it():
    """Level 2, hearts trump, seat 0 to lead, whole-unit leads: a pair's feature row is its
    card's with the pair flag, a tractor's is its top card's with its length's flag; the lead
    consequence (1, "I hold the trick") marks the leads no unseen card beats -- A♦A♦, K♦K♦ and
    K♦ (seat 0 holds both A♦), not Q♠ (A♠ unseen) nor 3♠3♠4♠4♠ (5♠5♠ may be out) -- and none
    in diamonds once an opponent has shown a diamond void.  In dynamic features the rows
    follow the hand's level and trump."""
    from cardjax.games.tractor import leads as TL

    env = cardjax.make("tractor")
    card = TC.card_type
    s = env.trick_state(["A♦ A♦ K♦ K♦ Q♠ 3♠ 3♠ 4♠ 4♠", "6♠ 8♣", "J♠ 9♣", "K♠ 4♣"], 2, "H")
    game = tractor_game(env, consequences=True, leads="units")
    assert game.view and game.plain_env is env and game.num_actions == TL.NUM_ACTIONS
    table, rows = np.asarray(game.action_features), np.asarray(game.action_rows(s))
    base = tractor_actions.action_table()
    assert table.shape == (4 * tractor_actions.UNIT_ROWS, base.shape[1] + 4 + 3)
    tractor_id = int(TL.unit_of(s, TC.parse_counts("3♠ 3♠ 4♠ 4♠")))
    assert tractor_id >= TL.TRACTOR0 and TL.UNIT_PAIRS[tractor_id] == 2

    def row(a):
        return table[rows[a]]

    pair, single, tr, boss = (np.eye(4)[0], np.zeros(4), np.eye(4)[1], [1, 0, 0])
    np.testing.assert_array_equal(row(TL.PAIR0 + card("A♦")), np.r_[base[card("A♦")], pair, boss])
    np.testing.assert_array_equal(row(TL.PAIR0 + card("K♦")), np.r_[base[card("K♦")], pair, boss])
    np.testing.assert_array_equal(row(card("K♦")), np.r_[base[card("K♦")], single, boss])
    np.testing.assert_array_equal(row(card("Q♠")), np.r_[base[card("Q♠")], single, 0, 0, 0])
    np.testing.assert_array_equal(row(tractor_id), np.r_[base[card("4♠")], tr, 0, 0, 0])
    void = s.replace(voids=s.voids.at[1, 2].set(True))  # seat 1 is void in diamonds
    assert not np.asarray(tractor_features.lead_boss(void))[TL.PAIR0 + card("A♦")]
    dyn = tractor_game(env, consequences=True, leads="units", dynamic=True)
    d_rows = np.asarray(dyn.action_rows(s))
    assert d_rows[TL.PAIR0 + card("A♦")] == (
        TL.PAIR0 + card("A♦") + tractor_actions.UNIT_ROWS * (5 * 0 + 1) + 65 * tractor_actions.UNIT_ROWS)
    assert np.asarray(dyn.action_features)[d_rows[tractor_id]][
        tm.DYN[0, 1, card("4♠")]]  # the top card at its dynamic place


def test_throw_rows_say_the_throw_its_suit_and_whether_it_may_fail():
    """With throws (level 2, hearts trump, seat 0 to lead A♠A♠ K♠ Q♠ 3♠ K♦K♦A♦A♦ 6♣ 7♣): the boss
    spades' row is the spades column with the boss-throw flag and the lead consequence 1 ("I
    hold the trick"); the whole spades' and clubs' rows carry the whole-suit flag and no
    consequence (unseen cards could make them fail); the units' rows are as without throws,
    widened by the two flags.  In dynamic features a throw's row is its suit's place in the
    hand's order of the plain suits."""
    from cardjax.games.tractor import leads as TL

    env = cardjax.make("tractor")
    s = env.trick_state(["A♠ A♠ K♠ Q♠ 3♠ K♦ K♦ A♦ A♦ 6♣ 7♣", "6♠ 8♦", "J♠ 9♦", "K♠ 4♣"], 2,
                        "H")
    game = tractor_game(env, consequences=True, leads="units", throws=True)
    plain = tractor_game(env, consequences=True, leads="units")
    assert game.num_actions == TL.NUM_ACTIONS_THROWS
    rows_per = tractor_actions.UNIT_ROWS + TL.NUM_THROWS
    base = tractor_actions.action_table()
    table, rows = np.asarray(game.action_features), np.asarray(game.action_rows(s))
    assert table.shape == (4 * rows_per, base.shape[1] + 4 + 2 + 3)
    mask = np.asarray(game.env.legal_mask(s))
    spades, clubs = 0, 3
    assert np.flatnonzero(mask[TL.THROW0:]).tolist() == [spades, 5 + spades, 5 + clubs]
    n = tractor.NUM_ACTIONS

    def throw_row(place, kind, code):
        x = np.zeros(table.shape[1], table.dtype)
        x[n + place] = x[base.shape[1] + 4 + kind] = 1
        if code:
            x[base.shape[1] + 6 + code - 1] = 1
        return x

    np.testing.assert_array_equal(table[rows[TL.THROW0 + spades]], throw_row(spades, 0, 1))
    np.testing.assert_array_equal(table[rows[TL.THROW0 + 5 + spades]], throw_row(spades, 1, 0))
    np.testing.assert_array_equal(table[rows[TL.THROW0 + 5 + clubs]], throw_row(clubs, 1, 0))
    p_table, p_rows = np.asarray(plain.action_features), np.asarray(plain.action_rows(s))
    for a in np.flatnonzero(mask[:TL.NUM_ACTIONS]):  # the units: the same rows, two flags wider
        x, y = table[rows[a]], p_table[p_rows[a]]
        np.testing.assert_array_equal(x[:base.shape[1] + 4], y[:base.shape[1] + 4])
        np.testing.assert_array_equal(x[base.shape[1] + 6:], y[base.shape[1] + 4:])
        assert not x[base.shape[1] + 4:base.shape[1] + 6].any()
    dyn = tractor_game(env, consequences=True, leads="units", throws=True, dynamic=True)
    d_rows, d_table = np.asarray(dyn.action_rows(s)), np.asarray(dyn.action_features)
    place = int(np.argsort(tm.SUIT_ORDER[1])[clubs])  # hearts trump: the plain suits' order
    assert d_rows[TL.THROW0 + 5 + clubs] == tractor_actions.UNIT_ROWS + 5 + place + rows_per * (5 * 0 + 1)
    assert d_table[d_rows[TL.THROW0 + 5 + clubs], n + place]


def test_trick_ending_rewards_are_the_swings_of_stepping_each_card():
    """The last seat's counterfactual step rewards equal the point swing of playing each card
    (hand-built: 5♥ led, the partner's K♥ and 3♥ on the table, 15 points); other seats, and the
    hand's last trick, have none."""
    env = cardjax.make("tractor")
    step = get_compiled(env).step
    card = TC.card_type
    s = env.trick_state(["5♥ 6♣", "K♥ 7♣", "3♥ Q♥", "A♥ T♥"], 2, "S", leader=0, dealer=0)
    s = step(step(s, card("5♥")), tractor.DONE)
    r, exact = map(np.asarray, tractor_rewards.trick_ending_rewards(step(s, card("K♥")), 0.01))
    assert not exact.any()  # seat 2 is not the last to play
    s = step(step(s, card("K♥")), card("3♥"))
    r, exact = map(np.asarray, tractor_rewards.trick_ending_rewards(s, 0.01))
    assert exact[:54].all() and not exact[54:].any()  # every card; legality is the mask's
    for c in (card("A♥"), card("T♥")):
        assert exact[c]
        swing = np.asarray(state_facts.point_swing(s, step(s, c)))[3]
        assert r[c] == pytest.approx(0.01 * swing)
    # the partner's K♥ holds the trick: the T♥ gives it 10 more points than taking it with the A♥
    assert r[card("A♥")] == pytest.approx(0.15, rel=1e-5)
    assert r[card("T♥")] == pytest.approx(0.25, rel=1e-5)
    assert not exact[tractor.DONE] and not exact[tractor.PASS]
    last = env.trick_state(["5♥", "K♥", "3♥", "A♥"], 2, "S", leader=0, dealer=0)
    last = step(step(step(step(last, card("5♥")), tractor.DONE), card("K♥")), card("3♥"))
    assert not np.asarray(tractor_rewards.trick_ending_rewards(last, 0.01)[1]).any()  # the kitty's trick


def play_trick_out(step, act, s, card):
    """The point swing of the seat to act when it plays ``card`` and the later seats play the
    trick out as the rule player (stepping the env one move at a time)."""
    x = step(s, card)
    while int(x.trick_no) == int(s.trick_no) and not bool(x.terminated):
        x = step(x, act(None, None, x))
    return int(np.asarray(state_facts.point_swing(s, x))[int(s.current_player)])


def test_rollout_rewards_play_the_trick_out_with_the_rule_player():
    """``rollouts``: at the second and third seats, each legal card's trick points when the later
    seats play on as the rule player.  Hand-built: 5♥ led; the second seat's 7♥ takes 5 points
    (the third seat keeps its Q♥, the last feeds 4♥ to its partner's 7♥), its K♥ 15; after the
    K♥ the third seat's 3♥ and Q♥ both give the 15 away.  The last seat and the hand's last
    trick have none; on a whole random hand every value equals playing the trick out, and so
    does the state each rollout leaves (``rollout_ends``: the next trick's leader to lead)."""
    env = cardjax.make("tractor")
    step, card, rule = get_compiled(env).step, TC.card_type, rule_act()
    rollout = jax.jit(lambda s: tractor_rewards.rollout_rewards(env, s, 0.01))
    s = env.trick_state(["5♥ 6♣ 8♦", "7♥ K♥ 9♣", "3♥ Q♥ 2♣", "A♥ 4♥ 9♦"], 2, "S", leader=0,
                        dealer=0)
    s = step(step(s, card("5♥")), tractor.DONE)

    def values(s):
        r, valid = map(np.asarray, rollout(s))
        return {int(c): round(float(r[c]), 6) for c in np.flatnonzero(valid)}

    assert values(s) == {card("7♥"): 0.05, card("K♥"): 0.15}
    s = step(s, card("K♥"))
    assert values(s) == {card("3♥"): -0.15, card("Q♥"): -0.15}
    assert values(step(s, card("3♥"))) == {}  # the last seat: its points are exact instead
    last = env.trick_state(["5♥", "K♥", "3♥", "A♥"], 2, "S", leader=0, dealer=0)
    assert values(step(step(last, card("5♥")), tractor.DONE)) == {}  # the kitty's trick
    ends = jax.jit(lambda s: tractor_rewards.rollout_ends(env, s, 0.01))
    s, checked = env.init(jax.random.PRNGKey(5)), 0
    while not bool(s.terminated):
        r, valid, cards, end = jax.device_get(ends(s))
        for c, v in values(s).items():
            assert v == pytest.approx(0.01 * play_trick_out(step, rule, s, c), abs=1e-6)
            x = step(s, c)
            while int(x.trick_no) == int(s.trick_no):
                x = step(x, rule(None, None, x))
            j = list(cards).index(c)
            assert jax.tree_util.tree_all(jax.tree_util.tree_map(
                lambda a, b: np.array_equal(np.asarray(a)[j], np.asarray(b)), end, x))
            checked += 1
        s = step(s, rule(None, None, s))
    assert checked > 40
    cfg = dmc.Config.for_game("tractor", rollouts=True)
    with pytest.raises(ValueError, match="rollouts feed the counterfactual targets"):
        adapter.make_game(cfg, env)


def test_step_rewards_pay_trick_points_to_teams():
    env = cardjax.make("tractor")
    game = tractor_game(env, point_reward=0.01)
    s = env.init(jax.random.PRNGKey(0)).replace(dealer=jnp.int32(1))  # attackers: seats 0, 2
    after = s.replace(attacker_points=jnp.int32(25))
    np.testing.assert_allclose(game.step_rewards(s, after), [0.25, -0.25, 0.25, -0.25])
    after = s.replace(defender_points=jnp.int32(10), penalty=jnp.int32(10))  # throw penalty
    np.testing.assert_allclose(game.step_rewards(s, after), [0.0, 0.0, 0.0, 0.0])
    done = s.replace(defender_points=jnp.int32(30),
                     rewards=jnp.array([-2.0, 2.0, -2.0, 2.0]))
    np.testing.assert_allclose(game.step_rewards(s, done), [-2.3, 2.3, -2.3, 2.3], rtol=1e-6)
    # features: the observation x 200 as uint8, exactly
    f = game.features(after)
    assert f.dtype == jnp.uint8
    np.testing.assert_array_equal(np.asarray(f, np.float32) / 200,
                                  np.asarray(env.observe(after, after.current_player)))
    assert game.oracle is None and not game.lockstep and game.num_roles == 4
    assert bool(game.tick(s, s.replace(trick_no=s.trick_no + 1))) and not bool(game.tick(s, s))
    oracle = tractor_game(env, oracle=True)
    extra = np.asarray(oracle.oracle(s))
    cards = int(np.asarray(s._hands).sum() + np.asarray(s._kitty).sum())  # dealt so far
    assert extra.shape == (5 * 54,) and cards >= 1 and extra.sum() == 100 * cards  # x 200 / 2


def test_oracle_features_shown_only_where_kept():
    """Oracle guiding: ``observe`` appends the hidden cards where ``keep`` is True, zeros where
    it is False and everywhere for a player (``keep`` None)."""
    env = cardjax.make("tractor")
    game = tractor_game(env, oracle=True)
    states = jax.tree_util.tree_map(lambda x: jnp.stack([x, x]), env.init(jax.random.PRNGKey(1)))
    shown = np.asarray(dmc.observe(game, states, jnp.array([True, False])))
    played = np.asarray(dmc.observe(game, states))
    n = tractor_observe.OBS_SIZE
    assert shown.shape == played.shape == (2, n + 5 * 54) and shown.dtype == np.uint8
    np.testing.assert_array_equal(shown[:, :n], played[:, :n])
    assert shown[0, n:].sum() > 0 and shown[1, n:].sum() == 0 and played[:, n:].sum() == 0


# ------------------------------------------------------------------------- training, end to end
@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """2 iterations in one go, and 1 iteration + --resume to 2."""
    return straight_and_resumed(shengji.main, TINY_FLAGS, tmp_path_factory.mktemp("sj"),
                                iterations=2)


@pytest.fixture(scope="module")
def final_state(runs):
    cfg = dmc.Config.from_dict({**shengji.TRAIN_DEFAULTS, **TINY})
    train = dmc.cached_train(cfg)
    ckpt = Checkpoints(runs[0])
    state = ckpt.restore(jax.eval_shape(train.init, jax.random.PRNGKey(0)))
    ckpt.close()
    return train, state


@pytest.mark.slow
def test_resume_equals_uninterrupted_run(runs):
    straight, split = runs
    a, b = read_metrics(straight), read_metrics(split)
    assert [r["iteration"] for r in a] == [r["iteration"] for r in b] == [1, 2]
    for ra, rb in zip(a, b):
        assert {k: v for k, v in ra.items() if k not in TIMING} == \
            {k: v for k, v in rb.items() if k not in TIMING}
    pa, cfg = dmc_agent.load_params(straight)
    pb, _ = dmc_agent.load_params(split)
    assert cfg.game == "tractor" and cfg.gamma == 0.95 and cfg.max_steps == 620
    for x, y in zip(jax.tree_util.tree_leaves(pa), jax.tree_util.tree_leaves(pb)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    assert jax.tree_util.tree_leaves(pa)[0].shape[0] == 4  # one network per phase
    for r in a:
        assert r["frames"] == r["decisions"] > 0 and r["frames_per_s"] > 0
        assert r["truncated"] == 0 and r["overflow"] == 0 and r["max_legal"] <= 66
        assert r["decisions_declare"] == 104 * 4  # 104 declaration turns per hand
        assert r["decisions_bury"] >= 8 * 4 and r["decisions_bury"] % 8 == 0
        assert r["decisions_play"] >= 100 * 4
        assert sum(r[f"decisions_{n}"] for n in ("declare", "bury", "chaodi", "play")) \
            == r["decisions"]
        assert min(r[f"loss_{n}"] for n in ("declare", "bury", "chaodi", "play")) \
            <= r["loss"] <= max(r[f"loss_{n}"] for n in ("declare", "bury", "chaodi", "play"))


@pytest.mark.slow
def test_unit_leads_runs_resume_exactly_and_play_the_plain_env(tmp_path):
    """Whole-unit leads and throws, with the rule player's moves as a fading prior and its
    follows as advice (with a bonus, imitated, Boltzmann exploration), the consequence features
    and the counterfactual targets (their alternatives in the replay buffer, the last seat's
    with rests of their own): 1 iteration + --resume give the run of 2, which trains
    alternatives; the prior's leads are named as whole
    units; the trained player plays the plain env (its leads and throws card by card, its
    follows with the consequence features it was trained with) legally to the end of a hand, one
    state at a time, and the arena's batched path chooses its moves at states of every phase of
    that hand; a run with a setting in its player word builds."""
    small = {**TINY, "num_envs": 2, "consequences": "true", "counterfactual": 1.0,
             "after_states": 16, "leads": "units", "throws": "true", "init_from": "rule", "prior_iterations": 4,
             "prior_share": 1.0,
             "advice": "true", "advice_bonus": 0.5, "imitation": 1.0, "temperature": 0.05}
    flags = [x for k, v in small.items() for x in (f"--{k}", str(v))] + TINY_FLAGS[-3:]
    straight, split = straight_and_resumed(shengji.main, flags, tmp_path, iterations=2)
    a, b = read_metrics(straight), read_metrics(split)
    assert [r["iteration"] for r in a] == [r["iteration"] for r in b] == [1, 2]
    for ra, rb in zip(a, b):
        assert {k: v for k, v in ra.items() if k not in TIMING} == \
            {k: v for k, v in rb.items() if k not in TIMING}
    assert all(r["alternatives"] > 0 for r in a)
    assert all(r["after_valued"] > 0 and r["after_missed"] == 0 for r in a)
    assert a[0]["prior_rate"] > 0.99  # every lead the rule player made was named as a unit
    assert all(r["demonstrations"] > 50 for r in a)  # the follows with a choice
    assert all(r["decisions_play"] < 100 * 2 for r in a)  # fewer decisions than cards
    env = cardjax.make("tractor")
    me = cardjax.agents.compiled(dmc_agent.load(env, straight))
    step, s, moves = get_compiled(env).step, env.init(jax.random.PRNGKey(2)), 0
    seen, chosen = [], []
    while not bool(s.terminated):  # one state at a time, as at the table
        a = me.act(me.params, None, s)
        assert np.asarray(s.legal_action_mask)[int(a)], f"move {moves}: illegal action {int(a)}"
        if moves % 29 == 0:
            seen.append(s)
            chosen.append(int(a))
        s, moves = step(s, a), moves + 1
    assert np.all(np.asarray(s.hand_sizes) == 0) and moves > 100
    # the arena's batched path (the whole batch scored at once) chooses the same moves
    batch = jax.tree_util.tree_map(lambda *x: np.stack(x), *jax.device_get(seen))  # no eager op
    phases = set(np.asarray(batch.phase).tolist())
    assert len(seen) >= 8 and {tractor.DECLARE, tractor.PLAY} <= phases
    together = jax.jit(jax.vmap(me.act, in_axes=(None, None, 0)))(me.params, None, batch)
    assert np.asarray(together).tolist() == chosen
    # a run with a setting in its word builds a player of the same moves (traced, not compiled:
    # test_pretrained_player_takes_its_bonus_as_a_setting plays one)
    ruled = cardjax.agents.load(env, f"{straight}:advice_bonus=1000")
    shape = jax.eval_shape(ruled.act, ruled.params, jax.random.PRNGKey(0), s)
    assert shape.shape == () and jnp.issubdtype(shape.dtype, jnp.integer)
    with pytest.raises(ValueError, match="unknown options \\['depth'\\]"):
        cardjax.agents.load(env, f"{straight}:depth=3")


def play_hands(env, me, hands: int):
    """``me`` in all four seats of ``hands`` hands (the arena's vmapped path): the final states,
    whether every action was legal, and the steps."""
    act = jax.vmap(me.act, in_axes=(None, 0, 0))

    @jax.jit
    def play(params, keys):
        states = jax.vmap(env.init)(keys)

        def body(c):
            s, ok, n = c
            a = act(params, keys, s)
            legal = jnp.take_along_axis(s.legal_action_mask, a[:, None], axis=1)[:, 0]
            ok = ok & jnp.all(legal | s.terminated)
            return jax.vmap(env.step)(s, a), ok, n + 1

        return jax.lax.while_loop(lambda c: ~jnp.all(c[0].terminated) & (c[2] < 700), body,
                                  (states, jnp.bool_(True), 0))

    return play(me.params, jax.random.split(jax.random.PRNGKey(2), hands))


@pytest.mark.slow
def test_decision_roles_are_phases(final_state):
    """The buffer (the last iteration's decisions) stores each decision's role = the phase of
    its state (read from the stored observation's phase one-hot), and the declaration
    decisions' targets are the seats' final level rewards, undiscounted (the report's targets
    under the default ``discount="trick"``): one value per team, opposite for the two teams."""
    train, state = final_state
    buf = jax.device_get(jax.tree_util.tree_map(lambda x: x[0], state.buffer))  # [T, B]
    assert buf.obs.dtype == np.uint8 and buf.obs.shape == (620, 4, tractor_observe.OBS_SIZE + 59)
    w = buf.weight > 0
    phase = np.argmax(buf.obs[..., PHASE:PHASE + 5], axis=-1)
    assert np.all(buf.obs[..., PHASE:PHASE + 5].max(axis=-1)[w] == 200)
    np.testing.assert_array_equal(buf.role[w], np.minimum(phase[w], 3))
    # the actions are stored as rows of the dynamic table: their level and trump are the
    # state's, and a card played or buried is in the hand, at its dynamic place
    level = np.argmax(buf.obs[..., 54:67], axis=-1)
    trump = np.argmax(buf.obs[..., 67:72], axis=-1)
    np.testing.assert_array_equal(buf.action[w] // 66, (5 * level + trump)[w])
    card = w & (buf.role > 0) & (buf.action % 66 < 54)
    place = tractor_actions.dynamic_action_table()[buf.action[card], :54].argmax(axis=-1)
    assert card.sum() > 100 and np.all(buf.obs[card][np.arange(card.sum()), place] > 0)
    for b in range(4):
        n = int(w[:, b].sum())
        assert np.all(w[:n, b]) and not np.any(w[n:, b])
        assert np.all(buf.role[:104, b] == 0) and buf.role[104, b] == 1
        # seats 0..3 in turn from the first receiver: teammates share their final reward
        t = buf.target[:104, b]
        assert t[0] == t[2] == -t[1] == -t[3]
        np.testing.assert_array_equal(t, np.where(np.arange(104) % 2 == 0, t[0], t[1]))
        assert set(np.unique(np.abs(t)).tolist()) <= {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0}


@pytest.mark.slow
def test_the_greedy_player_adds_a_completing_cards_trick_points(final_state):
    """A player trained with ``exact_rewards`` adds each candidate's known trick points to its Q
    (``q_values``' exact scale) at a last-seat follow, 0.01 a point for its team.  (The
    extension's self-play and targets: test_dmc_extensions.py, on the toy game.)"""
    _, state = final_state
    cfg = dmc.Config.from_dict({**shengji.TRAIN_DEFAULTS, **TINY, "counterfactual": 1.0,
                                "exact_rewards": True})
    ex_train = dmc.make_train(cfg)  # built, not compiled: the players' programs only
    env = cardjax.make("tractor")
    card = TC.card_type
    s = env.trick_state(["5♥ 6♣", "7♥ 7♣", "3♥ Q♥", "A♥ 4♥ 9♦"], 2, "S", leader=0, dealer=0)
    step = get_compiled(env).step  # the module's
    s = step(step(step(step(s, card("5♥")), tractor.DONE), card("7♥")), card("Q♥"))
    game, net = ex_train.game, ex_train.net
    from cardjax.nets.dmc import acting

    @jax.jit
    def scored(params, s):  # Q without and with the known rewards, in one program
        idx, valid, q0 = acting.q_values(net, game, params, s, 66)
        return idx, valid, acting.q_values(net, game, params, s, 66, 1.0)[2] - q0

    idx, valid, diff = scored(state.params, s)
    got = dict(zip(np.asarray(idx)[np.asarray(valid)], np.asarray(diff)[np.asarray(valid)]))
    # seat 3's A♥ takes the 5 points for its team, 4♥ leaves them to seat 2 (0.01 a point)
    assert got[card("A♥")] == pytest.approx(0.05, abs=1e-6)
    assert got[card("4♥")] == pytest.approx(-0.05, abs=1e-6)
    with pytest.raises(SystemExit):
        shengji.parse_args(["--exact_rewards", "maybe"])


def test_pretrained_player_takes_its_bonus_as_a_setting():
    """``tractor-pretrained`` follows as the rule player (its advice bonus); with
    ``:advice_bonus=0`` its network's own follows differ at some; an unknown setting is refused
    by name."""
    env = cardjax.make("tractor")
    step = get_compiled(env).step  # the module's (init: the env's own, compiled already)
    rule = cardjax.agents.get(env, "rule")
    players = [cardjax.agents.load(env, w) for w in
               ("tractor-pretrained", "tractor-pretrained:advice_bonus=0")]

    @jax.jit
    def acts(params, s):  # the three players in one program: the two share the network's work
        return [p.act(params, None, s) for p in players] + [rule.act(rule.params, None, s)]

    s, same, follows = env.init(jax.random.PRNGKey(3)), [0, 0], 0
    while not bool(s.terminated):
        a = [int(x) for x in acts(players[0].params, s)]
        if int(s.phase) == tractor.PLAY and int(s.num_in_trick) > 0:
            follows += 1
            same = [n + (x == a[2]) for n, x in zip(same, a[:2])]
        s = step(s, a[0])
    assert follows > 50 and same[0] == follows and same[1] < follows
    with pytest.raises(ValueError, match="unknown options \\['depth'\\] for a DMC player"):
        cardjax.agents.load(env, "tractor-pretrained:depth=3")


@pytest.mark.slow
def test_each_role_learns_only_its_decisions(final_state):
    """``learn`` on a buffer whose decisions all belong to role ``bury``: the other networks
    (and their optimizer states) do not move, and bury's update equals one ``update`` on its
    decisions (minibatch >= their number)."""
    train, state = final_state
    data = jax.tree_util.tree_map(lambda x: x[:1], state.buffer)
    keep = (np.asarray(data.role) == 3) & (np.asarray(data.weight) > 0)
    keep &= np.cumsum(keep.reshape(-1)).reshape(keep.shape) <= 200  # one minibatch
    data = data.replace(role=jnp.where(keep, 1, 3).astype(jnp.int32),
                        weight=jnp.where(keep, 1.0, 0.0))
    data = data.replace(weight=data.weight * (data.role == 1))
    p, o, m = train.learn(state.params, state.opt_state, data, jax.random.PRNGKey(3))
    for r in (0, 2, 3):
        for x, y in zip(jax.tree_util.tree_leaves(dmc.role_params(p, r)),
                        jax.tree_util.tree_leaves(dmc.role_params(state.params, r))):
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    assert m["loss_declare"] == m["loss_chaodi"] == m["loss_play"] == 0.0
    rows = keep.reshape(-1)
    flat = jax.tree_util.tree_map(lambda x: np.asarray(x).reshape((-1,) + x.shape[3:]), data)
    batch = tuple(jnp.asarray(x[rows]) for x in (flat.obs, flat.action, flat.target))
    p1, o1 = dmc.role_params(state.params, 1), dmc.role_params(state.opt_state, 1)
    ref, _, loss = train.update(p1, o1, batch, jnp.ones(batch[2].shape[0]))
    assert float(m["loss_bury"]) == pytest.approx(float(loss), rel=1e-4)
    for x, y in zip(jax.tree_util.tree_leaves(dmc.role_params(p, 1)),
                    jax.tree_util.tree_leaves(ref)):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-4, atol=1e-6)


@pytest.mark.slow
def test_a_learner_step_lowers_the_loss(final_state):
    train, state = final_state
    buf = jax.tree_util.tree_map(lambda x: np.asarray(x[0]).reshape((-1,) + x.shape[3:]),
                                 state.buffer)
    rows = (buf.weight > 0) & (buf.role == 3)  # the trick-play decisions
    batch = tuple(jnp.asarray(x[rows]) for x in (buf.obs, buf.action, buf.target))
    assert_update_lowers_loss(train, state, 3, batch)


@pytest.mark.slow
def test_loaded_agent_plays_legal_moves_to_the_end(runs):
    """The greedy player (the arena's vmapped path) in all four seats of two hands: every
    action it picks is legal, and the hands end with every card played."""
    env = cardjax.make("tractor")
    me = dmc_agent.load(env, runs[0], worlds=4)
    assert me.name == "shengji"
    final, ok, n = play_hands(env, me, 2)
    assert bool(ok) and int(n) < 700
    assert np.all(np.asarray(final.terminated)) and np.all(np.asarray(final.hand_sizes) == 0)
    assert np.all(np.asarray(final.phase) == tractor.OVER)


# ------------------------------------------------------------------------------------------ CLI
@pytest.mark.parametrize("flag", ["--num_envs=0", "--epsilon=1.5", "--throw_penalty=5",
                                  "--discount=hand",
                                  "--gamma=0", "--k=-3", "--point_reward=-1",
                                  "--oracle_iterations=x", "--eval_deals=-1",
                                  "--encoding=sorted", "--trick_facts=maybe", "--lam=1.5",
                                  "--target=hand", "--train_forced=sometimes",
                                  "--leads=throws", "--security=maybe",
                                  "--after_states=-1"])
def test_cli_rejects_bad_flags(flag, capsys):
    with pytest.raises(SystemExit):
        shengji.parse_args([flag])
    assert "error" in capsys.readouterr().err


def test_cli_defaults_and_leveling_rate():
    args = shengji.parse_args(["--throw_penalty", "10", "--oracle_iterations", "50"])
    cfg = dmc.Config.from_dict({**shengji.TRAIN_DEFAULTS, "throw_penalty": 10,
                                "oracle_iterations": 50})
    assert cfg.game == "tractor" and cfg.gamma == 0.95 and cfg.options.throw_penalty == 10
    assert cfg.options.encoding == "dynamic" and shengji.parse_args(["--encoding", "static"]).encoding \
        == "static"
    assert cfg.options.trick_facts and shengji.parse_args(["--trick_facts", "No"]).trick_facts is False
    assert cfg.lam == 1.0 and shengji.parse_args(["--lam", "0.8"]).lam == 0.8  # Monte-Carlo
    with pytest.raises(ValueError, match="lam"):
        dmc.Config.for_game("tractor", lam=-0.1)
    # a run saved before these options was trained on the static features without the facts
    old = {k: v for k, v in cfg.to_dict().items() if k not in ("encoding", "trick_facts")}
    assert dmc.Config.from_dict(old).options.encoding == "static"
    assert not dmc.Config.from_dict(old).options.trick_facts
    with pytest.raises(ValueError, match="encoding"):
        dmc.Config.for_game("tractor", encoding="sorted")
    assert cfg.target == "return" and shengji.parse_args(["--target", "trick"]).target == "trick"
    assert cfg.train_forced and shengji.parse_args(["--train_forced", "false"]).train_forced \
        is False
    assert dmc.Config.from_dict(old).target == "return"
    for bad in ({"discount": "step"}, {"lam": 0.8}):  # the report's target discounts per trick
        with pytest.raises(ValueError, match="target 'trick'"):
            dmc.Config.for_game("tractor", target="trick", **bad)
    with pytest.raises(ValueError, match="per-trick target .* has none"):
        dmc.Config.for_game("tractor", target="trick", counterfactual=1.0, after_states=4)
    with pytest.raises(ValueError, match="after_states must be in \\[0, 16\\], got 17"):
        dmc.Config.for_game("tractor", counterfactual=1.0, after_states=17)
    # the Tractor adapter's options and the trick targets are refused for other games
    with pytest.raises(ValueError, match="unknown config keys \\['encoding'\\] for doudizhu"):
        dmc.Config.for_game("doudizhu", encoding="dynamic")
    assert args.throw_penalty == 10 and args.oracle_iterations == 50 and args.gamma is None
    with pytest.raises(ValueError, match="unknown config keys \\['point_reward'\\] for gongzhu"):
        dmc.Config.for_game("gongzhu", point_reward=0.01)
    for bad in ({"discount": "trick"}, {"oracle_iterations": 5}):
        with pytest.raises(ValueError, match="doudizhu's DMC adapter"):
            dmc.Config.for_game("doudizhu", **bad)
    # A's level rewards [games][deals]: A gains 2 + 1, B gains 1 + 2 -> 1/2
    rate, se = tractor_metrics.leveling_rate([[2, -1, 0], [1, 0, -2]])
    assert rate == pytest.approx(0.5) and se > 0
    assert tractor_metrics.leveling_rate([[1, 2]]) == (1.0, 0.0)
