"""Tractor with whole-unit leads (cardjax.games.tractor_leads): the view's lead actions are
exactly the single-unit leads the env allows (checked against the env without throws, card by
card), a whole lead is the same transition as its cards and done, and players of the view play
the plain env the same game (and back)."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax import agents
from cardjax.games import tractor
from cardjax.games import tractor_cards as TC
from cardjax.games import tractor_leads as TL

ENV = cardjax.make("tractor")
UNITS_ONLY = cardjax.make("tractor", throws=False)  # a lead is one unit, built card by card
VIEW = TL.UnitLeads(ENV)

step = jax.jit(ENV.step)
step_units_only = jax.jit(UNITS_ONLY.step)
view_step = jax.jit(VIEW.step)
view_mask = jax.jit(VIEW.legal_mask)
cards_of = jax.jit(jax.vmap(TL.lead_cards, in_axes=(None, 0)))
decision_state = jax.jit(VIEW.decision_state)
env_action = jax.jit(VIEW.env_action)
FIELDS = ("trick", "_hands", "played", "led", "revealed", "lead_suit", "lead_n", "lead_k1",
          "lead_pairs", "lead_tractors", "current_player", "num_in_trick", "legal_action_mask",
          "hand_sizes", "penalty", "rewards", "phase")

HANDS = {  # seat 0 leads; the others hold a few cards
    "plain tractors": (["3♠ 3♠ 4♠ 4♠ 5♠ 5♠ 7♠ 7♠ 9♠ K♦ K♦ A♦ A♦ 6♣", "6♠ 8♦", "J♠ 9♦", "K♠ 4♣"],
                       "2", "H"),
    "trump runs through the level cards": (
        ["A♥ A♥ 2♠ 2♠ 2♦ 2♦ 2♥ 2♥ XJ XJ DJ 9♥ 9♥ 8♥ 8♥ 3♣", "6♠ 8♦", "J♠ 9♦", "K♠ 4♣"],
        "2", "H"),
    "no trump": (["A♣ A♣ 2♠ 2♠ 2♦ 2♦ XJ XJ DJ DJ 5♥ 5♥ 6♥ 6♥", "6♠ 8♦", "J♠ 9♦", "K♠ 4♣"],
                 "2", "NT"),
    "level inside a plain run": (["Q♠ Q♠ A♠ A♠ K♠ K♠ 4♦ 4♦ 3♦ 3♦ 5♦", "6♠ 8♦", "J♠ 9♦", "K♣ 4♣"],
                                 "K", "C"),
}


def unit_leads_card_by_card(state) -> set:
    """Every lead the env without throws lets the seat build and end (done): a search over the
    partial leads (as card multisets) through that env's own masks."""
    seat = int(state.current_player)
    found, seen, todo = set(), set(), [state]
    while todo:
        s = todo.pop()
        mask = np.asarray(s.legal_action_mask)
        part = tuple(np.asarray(s.trick[seat]).tolist())
        if mask[tractor.DONE]:
            found.add(part)
        for t in np.flatnonzero(mask[:tractor.NUM_TYPES]):
            nxt = step_units_only(s, int(t))
            key = tuple(np.asarray(nxt.trick[seat]).tolist())
            if key not in seen:
                seen.add(key)
                todo.append(nxt)
    return found


def view_leads(state) -> set:
    legal = np.flatnonzero(np.asarray(view_mask(state)))
    cards = np.asarray(cards_of(state, jnp.asarray(legal)))
    leads = [tuple(c.tolist()) for c in cards]
    assert len(set(leads)) == len(leads), "two actions name the same lead"
    return set(leads)


@pytest.mark.parametrize("name", sorted(HANDS))
def test_lead_actions_are_the_envs_unit_leads(name):
    hands, level, trump = HANDS[name]
    s = UNITS_ONLY.trick_state(hands, level=level, trump=trump)
    leads = view_leads(s)
    assert leads == unit_leads_card_by_card(s)
    n_units = {n: sum(1 for c in leads if sum(c) == n) for n in (1, 2, 4, 6, 8)}
    if name == "trump runs through the level cards":  # 8♥8♥9♥9♥; A♥A♥ 2♠2♠|2♦2♦ 2♥2♥ XJXJ
        assert n_units[4] == 6 and n_units[6] == 4 and n_units[8] == 2
    if name == "no trump":  # 2♠2♠ or 2♦2♦ below XJXJ DJDJ; 5♥5♥6♥6♥
        assert n_units[4] == 4 and n_units[6] == 2


def test_lead_actions_on_dealt_hands():
    """At the first lead of dealt hands (played by the rule player up to it)."""
    rule = agents.get(UNITS_ONLY, "rule")
    act = jax.jit(rule.act)
    for seed in range(3):
        s = UNITS_ONLY.init(jax.random.PRNGKey(seed))
        while int(s.phase) != tractor.PLAY:
            s = step_units_only(s, act(None, jax.random.PRNGKey(0), s))
        assert view_leads(s) == unit_leads_card_by_card(s)


def test_a_whole_lead_is_its_cards_then_done():
    """Every legal lead of the hand-built positions, and of random view games: the view's one
    step equals the env's card steps and done (but for the step count)."""
    starts = [ENV.trick_state(h, level=lv, trump=tr) for h, lv, tr in HANDS.values()]
    for s in starts:
        for a in np.flatnonzero(np.asarray(view_mask(s))):
            whole = view_step(s, int(a))
            e = s
            for t in np.repeat(np.arange(tractor.NUM_TYPES), np.asarray(TL.lead_cards(s, a))):
                e = step(e, int(t))
            e = step(e, tractor.DONE)
            for f in FIELDS:
                np.testing.assert_array_equal(np.asarray(getattr(whole, f)),
                                              np.asarray(getattr(e, f)), err_msg=f"{a} {f}")
            assert int(whole.step_count) == int(s.step_count) + 1
    assert int(TL.UNIT_PAIRS[TL.PAIR0]) == 1 and TL.NUM_ACTIONS == 66 + 54 + 4 * 66 + 279


@functools.partial(jax.jit, static_argnums=0)
def _policy(salt, state):
    """A deterministic view player: the legal action with the largest hash of (action, step)."""
    mask = VIEW.legal_mask(state)
    h = jax.random.uniform(jax.random.fold_in(jax.random.PRNGKey(salt), state.step_count),
                           (TL.NUM_ACTIONS,))
    return jnp.argmax(jnp.where(mask, h, -1.0)).astype(jnp.int32)


def test_a_view_player_plays_the_plain_env_the_same_game():
    """A player choosing view actions plays the plain env through decision_state / env_action
    (asked again at every card of its leads) and ends the same hand as in the view."""
    for seed in range(2):
        s = VIEW.init(jax.random.PRNGKey(seed))
        v, e, whole_leads = s, s, 0
        while not bool(v.terminated):
            a = _policy(seed, v)
            whole_leads += int(a) >= TL.PAIR0
            v = view_step(v, a)
            # the plain env: ask the player at every sub-step until the same seat's move is done
            while True:
                d = decision_state(e)
                b = env_action(e, _policy(seed, d.replace(step_count=v.step_count - 1)))
                e = step(e, b)
                if not bool((e.num_in_trick == 0) & (e.phase == tractor.PLAY)
                            & (jnp.sum(e.trick[e.current_player]) > 0)) or bool(e.terminated):
                    break
            for f in ("_hands", "played", "attacker_points", "defender_points", "current_player"):
                np.testing.assert_array_equal(np.asarray(getattr(v, f)), np.asarray(getattr(e, f)))
        assert whole_leads > 0
        np.testing.assert_array_equal(np.asarray(v.rewards), np.asarray(e.rewards))


def test_the_lifted_rule_player_plays_the_same_hands():
    """The rule player leads one unit: lifted to the view it names that unit, and plays the
    same hands in the view as in the env (it is deterministic)."""
    rule = agents.get(ENV, "rule")
    lifted = jax.jit(VIEW.lift(rule.act))
    act = jax.jit(rule.act)
    key = jax.random.PRNGKey(0)
    s = ENV.init(jax.random.PRNGKey(7))
    v, e = s, s
    units = 0
    while not bool(e.terminated):
        e = step(e, act(None, key, e))
        if not bool(e.terminated) and bool(TL.lead_start(v)) and not bool(TL.lead_start(e)) \
                and int(e.num_in_trick) == 0:
            continue  # the env is still building the lead the view makes in one step
        if bool(v.terminated):
            break
        a = lifted(None, key, v)
        assert int(a) >= 0 and bool(view_mask(v)[a])
        units += int(a) >= TL.PAIR0
        v = view_step(v, a)
        for f in ("_hands", "played", "current_player", "attacker_points"):
            np.testing.assert_array_equal(np.asarray(getattr(v, f)), np.asarray(getattr(e, f)))
    assert bool(v.terminated) and units > 0
    np.testing.assert_array_equal(np.asarray(v.rewards), np.asarray(e.rewards))


def test_unit_actions_only_at_a_trick_start():
    hands, level, trump = HANDS["plain tractors"]
    s = ENV.trick_state(hands, level=level, trump=trump)
    pair = TL.PAIR0 + TC.card_type("3♠")
    assert bool(view_mask(s)[pair])
    s1 = view_step(s, pair)  # seat 1 follows: the env's mask, no unit actions
    m = np.asarray(view_mask(s1))
    assert not m[TL.PAIR0:].any()
    np.testing.assert_array_equal(m[:tractor.NUM_ACTIONS], np.asarray(s1.legal_action_mask))
    # an illegal unit action is the env's illegal action (the seat loses, the hand ends)
    bad = view_step(s1, pair)
    np.testing.assert_array_equal(np.asarray(bad.rewards), np.asarray(step(s1, 999).rewards))
    with pytest.raises(ValueError, match="tractor"):
        TL.UnitLeads(cardjax.make("gongzhu"))
