"""Tractor with whole-unit leads (cardjax.games.tractor.leads): the view's lead actions are
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
from cardjax.games.tractor import env as tractor
from cardjax.games.tractor import cards as TC
from cardjax.games.tractor import leads as TL

ENV = cardjax.make("tractor")
UNITS_ONLY = cardjax.make("tractor", throws=False)  # a lead is one unit, built card by card
VIEW = TL.UnitLeads(ENV)

step = jax.jit(ENV.step)
step_units_only = jax.jit(UNITS_ONLY.step)
lead_card = jax.jit(ENV.lead_card)
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
    step equals the env's card steps and done (but for the step count); each card step equals
    ``env.lead_card``, the lift's step."""
    starts = [ENV.trick_state(h, level=lv, trump=tr) for h, lv, tr in HANDS.values()]
    for s in starts:
        for a in np.flatnonzero(np.asarray(view_mask(s))):
            whole = view_step(s, int(a))
            e = s
            for t in np.repeat(np.arange(tractor.NUM_TYPES), np.asarray(TL.lead_cards(s, a))):
                card = lead_card(e, int(t))  # the lift's step while a lead is built
                e = step(e, int(t))
                jax.tree_util.tree_map(np.testing.assert_array_equal, card, e)
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


# ------------------------------------------------------------------------------------ throws
THROWS = TL.UnitLeads(ENV, throws=True)
throws_mask = jax.jit(THROWS.legal_mask)
throws_step = jax.jit(THROWS.step)
throw_safe = jax.jit(TL.throw_safe)
unit_of_throws = jax.jit(functools.partial(TL.unit_of, throws=True))
THROW_HAND = (["A♠ A♠ K♠ Q♠ 3♠ K♦ K♦ A♦ A♦ 6♣ 7♣", "6♠ 8♦", "J♠ 9♦", "K♠ 4♣"], "2", "H")


def test_throws_a_suits_boss_cards_and_its_whole_suit():
    """Seat 0 (level 2, hearts trump) holds A♠A♠ K♠ Q♠ 3♠, the tractor K♦K♦A♦A♦ and 6♣ 7♣: its
    boss spades (A♠A♠ and K♠: no unseen spade above them) are a throw that stands; its whole
    spades may fail (unseen cards beat Q♠ and 3♠) and does (seat 1's 6♠ beats 3♠, which alone is
    played); its clubs may fail but stand (only 4♣ is out); the diamonds are one unit."""
    hands, level, trump = THROW_HAND
    s = ENV.trick_state(hands, level=level, trump=trump)
    m = np.asarray(throws_mask(s))
    assert m.shape == (TL.NUM_ACTIONS_THROWS,)
    np.testing.assert_array_equal(m[:TL.NUM_ACTIONS], np.asarray(view_mask(s)))
    spades, diamonds, clubs = 0, 2, 3  # effective suits (hearts: 1, trump: 4)
    offered = np.flatnonzero(m[TL.THROW0:])
    assert offered.tolist() == [spades, 5 + spades, 5 + clubs]
    cards = np.asarray(TL.throw_cards(s))
    types = lambda text: sorted(TC.card_type(c) for c in text.split())  # noqa: E731
    assert np.repeat(np.arange(54), cards[spades]).tolist() == types("K♠ A♠ A♠")
    assert np.repeat(np.arange(54), cards[5 + spades]).tolist() == types("3♠ Q♠ K♠ A♠ A♠")
    assert np.repeat(np.arange(54), cards[5 + diamonds]).tolist() == types("K♦ K♦ A♦ A♦")
    safe = np.asarray(throw_safe(s))
    assert safe[spades] and not safe[5 + spades] and not safe[5 + clubs]
    boss = throws_step(s, TL.THROW0 + spades)
    np.testing.assert_array_equal(np.asarray(boss.trick[0]), cards[spades])
    failed = throws_step(s, TL.THROW0 + 5 + spades)
    assert np.flatnonzero(np.asarray(failed.trick[0])).tolist() == types("3♠")
    stood = throws_step(s, TL.THROW0 + 5 + clubs)
    np.testing.assert_array_equal(np.asarray(stood.trick[0]), cards[5 + clubs])
    for a in TL.THROW0 + offered:  # each throw names itself, and is its cards then done
        assert int(unit_of_throws(s, jnp.asarray(TL.lead_cards(s, a, True)))) == a
        e = s
        for t in np.repeat(np.arange(tractor.NUM_TYPES), np.asarray(TL.lead_cards(s, a, True))):
            e = step(e, int(t))
        e = step(e, tractor.DONE)
        for f in FIELDS:
            np.testing.assert_array_equal(np.asarray(getattr(throws_step(s, a), f)),
                                          np.asarray(getattr(e, f)), err_msg=f"{a} {f}")
    assert int(TL.unit_of(s, jnp.asarray(cards[spades]))) == -1  # not a unit without throws
    # a view player's throw in the plain env: the next card at each sub-step, then done
    e, b = s, -1
    while b != tractor.DONE:
        b = int(jax.jit(THROWS.env_action)(e, TL.THROW0 + spades))
        assert int(jax.jit(THROWS.decision_state)(e).step_count) == int(s.step_count)
        e = step(e, b)
    for f in FIELDS:
        np.testing.assert_array_equal(np.asarray(getattr(e, f)), np.asarray(getattr(boss, f)))


@jax.jit
def _random_throw_hands(key):
    """8 hands of random view play with throws: at each lead, how many throws were offered,
    of them boss-card throws and throws marked safe, how many of those failed, and at how many
    throw candidates :func:`one_unit` and :func:`unit_of` disagree."""
    def one(key):
        s = THROWS.init(key)

        def body(c):
            s, k, st = c
            k, k1 = jax.random.split(k)
            start = TL.lead_start(s)
            mask = THROWS.legal_mask(s)[TL.THROW0:] & start
            safe = TL.throw_safe(s) & mask
            # each throw stepped from here (does a safe one stand?), and the random move played:
            # one step in the program, vmapped over the eleven actions
            moves = jnp.append(TL.THROW0 + jnp.arange(TL.NUM_THROWS),
                               THROWS.random_action(k1, s))
            after = jax.vmap(lambda a: THROWS.step(s, a))(moves)
            stood = jnp.all(after.trick[:TL.NUM_THROWS, s.current_player]
                            == jax.vmap(lambda a: TL.lead_cards(s, a, True))(moves[:-1]), axis=1)
            # one unit by the pair runs alone, as unit_of names it
            cards = TL.throw_cards(s)
            named = jax.vmap(lambda c: TL.unit_of(s, c) >= 0)(cards)
            quick = jax.vmap(lambda c, e: TL.one_unit(s, c, e))(cards, jnp.arange(10) % 5)
            differ = jnp.sum((named != quick) & (jnp.sum(cards, axis=1) > 0) & start)
            st = st + jnp.stack([jnp.sum(mask), jnp.sum(mask[:5]), jnp.sum(safe),
                                 jnp.sum(safe & ~stood), differ])
            return jax.tree_util.tree_map(lambda x: x[-1], after), k, st

        return jax.lax.while_loop(lambda c: ~c[0].terminated, body,
                                  (s, key, jnp.zeros(5, jnp.int32)))[2]

    return jnp.sum(jax.vmap(one)(jax.random.split(key, 8)), axis=0)


def test_throws_marked_safe_never_fail_in_random_play():
    offered, boss, safe, failed, differ = np.asarray(_random_throw_hands(jax.random.PRNGKey(3)))
    assert offered > 20 and boss > 0 and safe >= boss
    assert failed == 0 and differ == 0


def test_a_lifted_player_names_a_throw_it_builds():
    """A plain-env player that leads the boss spades card by card is lifted to the throw action
    (and to -1 without throws); the rule player, which leads one unit, is lifted alike."""
    hands, level, trump = THROW_HAND
    s = ENV.trick_state(hands, level=level, trump=trump)
    boss = TL.lead_cards(s, TL.THROW0, True)

    def thrower(params, key, state):  # the next boss spade not yet on the table, then done
        rest = boss - state.trick[state.current_player] > 0
        return jnp.where(jnp.any(rest), jnp.argmax(rest), tractor.DONE).astype(jnp.int32)

    key = jax.random.PRNGKey(0)
    assert int(jax.jit(THROWS.lift(thrower))(None, key, s)) == TL.THROW0
    assert int(jax.jit(VIEW.lift(thrower))(None, key, s)) == -1
    rule = agents.get(ENV, "rule")
    a = int(jax.jit(THROWS.lift(rule.act))(None, key, s))
    assert a == int(jax.jit(VIEW.lift(rule.act))(None, key, s)) >= 0
    with pytest.raises(ValueError, match="whole-unit"):
        from cardjax.nets.dmc.adapters.tractor import Options

        Options(throws=True)
