"""The Tractor rule player, the Tractor duplicate scheme (team swap) and its metrics.

Compiled functions are built once per module and always used on batches of ``B`` games, so one
compile of the vmapped rule player and one of the vmapped step serve every test.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax import agents
from cardjax.eval import arena
from cardjax.games.tractor import metrics as tractor_metrics
from cardjax.games.tractor import env as T
from cardjax.games.tractor import state_facts
from cardjax.games.tractor import cards as TC
from cardjax.games.tractor import helpers as TH
from cardjax.games.tractor import moves as tm

B = 4


@pytest.fixture(scope="module")
def env():
    return cardjax.make("tractor")


@pytest.fixture(scope="module")
def rule(env):
    return agents.get(env, "rule")


@pytest.fixture(scope="module")
def act(rule):
    return jax.jit(jax.vmap(rule.act, in_axes=(None, 0, 0)))


@pytest.fixture(scope="module")
def step(env):
    return jax.jit(jax.vmap(env.step))


def stack(states):
    """A batch of B states from up to B (the last one repeated)."""
    states = list(states) + [states[-1]] * (B - len(states))
    return jax.tree_util.tree_map(lambda *x: jnp.stack(x), *states)


def with_mask(state):
    return state.replace(legal_action_mask=TH._mask_jit(state))


def choose(act, states):
    keys = jax.random.split(jax.random.PRNGKey(0), B)
    return np.asarray(act(None, keys, states))


def play(step, states, moves):
    """Apply per-game move lists (card strings, 'done'); every move must be legal."""
    for i in range(max(len(m) for m in moves)):
        acts = []
        for g in range(B):
            m = moves[min(g, len(moves) - 1)]
            a = T.DONE if m[i] == "done" else TC.card_type(m[i])
            assert bool(states.legal_action_mask[g, a]), (g, i, m[i])
            acts.append(a)
        states = step(states, jnp.asarray(acts, jnp.int32))
    return states


# ---------------------------------------------------------------------------- whole hands
def test_only_legal_sub_actions_over_whole_hands(env, act, step):
    """Four hands under jit(vmap): games 0, 1 rule at every seat; 2, 3 rule at seats 0 and 2
    against random.  Every sub-action the rule player picks is legal, every hand ends normally
    (phase OVER, all 200 points accounted for) and the rule player acts in every phase."""
    rand = jax.jit(jax.vmap(cardjax.random_action))
    keys = jax.random.split(jax.random.PRNGKey(11), B)
    s = jax.vmap(env.init)(keys)
    rule_seat = np.array([[1, 1, 1, 1], [1, 1, 1, 1], [1, 0, 1, 0], [1, 0, 1, 0]], bool)
    rows = np.arange(B)
    phases_seen = set()
    key = jax.random.PRNGKey(5)
    for _ in range(T.NUM_ACTIONS * 10):
        term = np.asarray(s.terminated)
        if term.all():
            break
        key, k1, k2 = jax.random.split(key, 3)
        a_rule = choose(act, s)
        a_rand = np.asarray(rand(jax.random.split(k2, B), s.legal_action_mask))
        cp = np.asarray(s.current_player)
        mine = rule_seat[rows, cp] & ~term
        mask = np.asarray(s.legal_action_mask)
        assert mask[rows, a_rule][mine].all(), "the rule player chose an illegal sub-action"
        phases_seen |= set(np.asarray(s.phase)[mine].tolist())
        s = step(s, jnp.asarray(np.where(mine, a_rule, a_rand), jnp.int32))
    assert np.asarray(s.terminated).all()
    assert (np.asarray(s.phase) == T.OVER).all()  # no hand was ended by an illegal action
    total = np.asarray(s.attacker_points + s.defender_points + s.kitty_points)
    assert (total == 200).all()
    assert (np.asarray(s.hand_sizes) == 0).all()
    assert {T.DECLARE, T.BURY, T.CHAODI, T.PLAY} <= phases_seen


# ---------------------------------------------------------------------------- declaring
def decl_position(env, hand, decl=None):
    """Seat 0 to act in the declaration phase holding ``hand`` (level 2); ``decl`` = (seat,
    kind, suit) of the standing declaration."""
    s = env.init_from_deal(list(range(54)) * 2, 2, 3)
    h = TC.parse_counts(hand)
    seat, kind, suit = decl if decl else (-1, 0, tm.NT)
    s = s.replace(_hands=s._hands.at[0].set(jnp.asarray(h, jnp.int8)), turn=jnp.int32(20),
                  current_player=jnp.int32(0), decl_seat=jnp.int32(seat),
                  decl_kind=jnp.int32(kind), decl_suit=jnp.int32(suit), trump=jnp.int32(suit))
    return with_mask(s)


def test_declares_the_level_card_of_its_longest_suit(env, act):
    hearts = "A♥ 9♥ 7♥ 3♠ 4♣"
    states = stack([
        decl_position(env, "2♥ " + hearts),  # hearts longest, holds 2♥: declare it
        decl_position(env, "2♥ 2♥ " + hearts),  # the pair is stronger: declare the pair
        decl_position(env, "2♠ " + hearts),  # its level card is not of the longest suit
        decl_position(env, "2♥ 2♥ " + hearts, decl=(1, 1, 3)),  # overcall an opponent's 2♣
    ])
    got = choose(act, states)
    assert got.tolist() == [T.DECL_SINGLE + 1, T.DECL_PAIR + 1, T.PASS, T.DECL_PAIR + 1]
    partner = stack([decl_position(env, "2♥ 2♥ " + hearts, decl=(2, 1, 3))])
    assert choose(act, partner)[0] == T.PASS  # never overcall the partner


# ---------------------------------------------------------------------------- burying
def test_buries_low_side_cards_and_voids_short_suits(env, act, step):
    # level 2, trump ♠; 8 low non-point side cards, trumps and point cards to keep
    hand = "A♠ 3♠ 2♥ K♥ 5♦ T♣ 4♥ 6♥ 7♥ 8♥ 9♥ 9♦ J♦ 3♣"
    s = env.trick_state([hand, "", "", ""], 2, "S")
    s = with_mask(s.replace(phase=jnp.int32(T.BURY), burier=jnp.int32(0), buried=jnp.int32(0)))
    states = stack([s])
    buried = []
    for _ in range(8):
        a = choose(act, states)
        assert bool(states.legal_action_mask[0, a[0]])
        buried.append(TC.type_str(a[0]))
        states = step(states, jnp.asarray(a))
    assert buried[:3] == ["3♣", "9♦", "J♦"]  # the short suits first, lowest first
    assert sorted(buried) == sorted("4♥ 6♥ 7♥ 8♥ 9♥ 9♦ J♦ 3♣".split())
    assert int(states.phase[0]) == T.CHAODI
    assert choose(act, states)[0] == T.PASS  # chaodi: pass


# ---------------------------------------------------------------------------- tricks
def test_feeds_points_to_a_winning_partner_and_ruffs_point_tricks(env, act, step):
    """Level 2, trump ♠, seat 0 leads, seat 1 follows, seat 2 (the rule player) is to act.
    G0, G1: A♥ then 3♥: the partner holds the trick with the top heart, and seat 2 feeds its best
    point card (in suit; then void in ♥, from a side suit).  G2, G3: seat 1 takes the lead's card
    with a higher heart and seat 2, void in ♥, ruffs with its lowest trump when the trick holds
    points (K♥ A♥), but not when it holds none (4♥ 6♥): it plays its lowest side card."""
    west = "5♥ 7♦ 8♦ 6♦"
    g0 = env.trick_state(["A♥ 8♣", "3♥ 9♣", "K♥ T♥ 4♥ 6♣", west], 2, "S")
    g1 = env.trick_state(["A♥ 8♣", "3♥ 9♣", "K♦ 5♣ 3♣ 4♠", west], 2, "S")
    ruffer = "9♠ 3♠ 4♣ T♣"
    g2 = env.trick_state(["K♥ 8♣", "A♥ 9♣", ruffer, west], 2, "S")
    g3 = env.trick_state(["4♥ 8♣", "6♥ 9♣", ruffer, west], 2, "S")
    states = play(step, stack([g0, g1, g2, g3]),
                  [["A♥", "done", "3♥"], ["A♥", "done", "3♥"], ["K♥", "done", "A♥"],
                   ["4♥", "done", "6♥"]])
    assert np.asarray(states.current_player).tolist() == [2, 2, 2, 2]
    got = [TC.type_str(a) for a in choose(act, states)]
    assert got == ["T♥", "K♦", "3♠", "4♣"]


def test_leads_a_side_tractor_then_done(env, act, step):
    """Seat 0 holds Q♥Q♥J♥J♥ (a tractor) and low cards: it leads the whole tractor, card by card,
    then 'done'; the lead stands as one unit."""
    s = env.trick_state(["Q♥ Q♥ J♥ J♥ 3♣ 4♦", "A♥ 9♥ 5♣ 6♣ 7♣ 8♣", "K♥ 4♥ 5♦ 6♦ 7♦ 8♦",
                         "T♥ 7♥ 9♣ T♣ J♣ Q♣"], 2, "S")
    states = stack([s])
    picked = []
    for _ in range(5):
        a = choose(act, states)
        picked.append(int(a[0]))
        states = step(states, jnp.asarray(a))
    assert sorted(TC.type_str(t) for t in picked[:4]) == ["J♥", "J♥", "Q♥", "Q♥"]
    assert picked[4] == T.DONE
    assert int(states.lead_k1[0]) == 2 and int(states.current_player[0]) == 1


# ---------------------------------------------------------------------------- the arena
def test_team_swap_holds_the_same_deal_with_the_teams_swapped(env):
    keys = jax.random.split(jax.random.PRNGKey(9), 3)
    states, a_seats, games = arena.duplicate_states(env, keys)
    assert games == 2
    a = np.asarray(a_seats).reshape(2, 3, 4)
    assert (a[0] == [True, False, True, False]).all() and (a[1] == ~a[0]).all()
    for leaf in jax.tree_util.tree_leaves(states):
        x = np.asarray(leaf).reshape((2, 3) + leaf.shape[1:])
        assert np.array_equal(x[0], x[1])  # deal, level, dealer, everything the same
    deals = np.asarray(states._deal).reshape(2, 3, 108)
    assert len({tuple(d) for d in deals[0]}) == 3  # three different deals


def test_metrics_on_a_hand_made_result():
    # games x deals; A's level reward, whether A attacked, the attackers' final score
    scores = np.array([[2, 0, -1, -1], [1, 3, 0, 1]])
    a_attacks = np.array([[False, True, False, True], [True, False, True, False]])
    attack = np.array([[20, 90, 125, 60], [130, 0, 85, 75]])
    # the hand-made scores follow the standard level table
    att_gain, def_gain = (np.asarray(x) for x in state_facts.level_change(jnp.asarray(attack)))
    assert np.array_equal(scores, np.where(a_attacks, att_gain - def_gain, def_gain - att_gain))
    r = tractor_metrics.tractor_metrics(scores, a_attacks, attack)
    # A won: defending 20 (yes), attacking 90 (yes), defending 125 (no), attacking 60 (no),
    # attacking 130 (yes), defending 0 (yes), attacking 85 (yes), defending 75 (yes)
    assert r["win_rate"] == pytest.approx(6 / 8)
    assert r["level_up_rate"] == pytest.approx(4 / 8)  # 90 and 85 win but gain no level
    assert r["levels_a"] == 7 and r["levels_b"] == 2
    assert r["leveling_rate"] == pytest.approx(7 / 9)
    assert r["a_attack_points"] == pytest.approx((90 + 60 + 130 + 85) / 4)
    assert r["b_attack_points"] == pytest.approx((20 + 125 + 0 + 75) / 4)
    assert r["aapd"] == pytest.approx((365 - 220) / 4)
    none = tractor_metrics.tractor_metrics([0, 0], [True, False], [90, 100])
    assert np.isnan(none["leveling_rate"]) and none["win_rate"] == 0.5


def test_rule_beats_random_in_a_duplicate_match(env, rule):
    """Measured over 512 deals (seed 1): win rate 0.94, leveling rate 0.99, AAPD +115, mean
    +1.44 levels per hand; 24 deals must give a clear margin."""
    rnd = agents.get(env, "random")
    deals = 24
    r = arena.duplicate_match(env, rule, rnd, deals=deals, seed=3, batch=deals, progress=False,
                              per_deal=True)
    assert r["games"] == 2 * deals
    assert r["leveling_rate"] > 0.85 and r["win_rate"] > 0.75 and r["aapd"] > 50
    assert r["mean"] > 0.8
    # the scores agree with the level table applied to the recorded outcome: no hand ended on an
    # illegal action, and the roles swap within every deal (fixed dealer)
    scores = np.asarray(r["per_game"])
    out = r["per_game_outcome"]
    att, pts = np.asarray(out["a_attacks"]), np.asarray(out["attack_score"])
    assert (att[0] != att[1]).all()
    gain_att, gain_def = (np.asarray(x) for x in state_facts.level_change(jnp.asarray(pts)))
    a_gain = np.where(att, gain_att, gain_def)
    b_gain = np.where(att, gain_def, gain_att)
    assert np.array_equal(scores, a_gain - b_gain)
    assert r == {**r, **tractor_metrics.tractor_metrics(scores, att, pts)}
