"""The DMC extensions on the toy game (``tests/toygame``): each research idea's self-play, targets
and losses, checked against values worked out by hand from the games the actors played, which
are short enough to replay here in plain Python (six cards, three tricks).

Each program is built once per module and shared: ``BASE`` (trick rewards, the rule player's card
flagged as advice), ``TRICK`` (the same games, with the ShengJi+ report's per-trick targets,
counterfactual alternatives from exact rewards and rollouts, and imitation), ``EXACT``
(counterfactual targets and exact rewards), ``AFTER`` (the same, each alternative with a rest of
its own from the state after it), ``UNFORCED`` (``train_forced=False``) and
``LAMBDA0`` (lambda-returns with ``lam=0``); the prior player's and the oracle's tests build
their own.  Tractor's own parts of these ideas (its consequence and advice rows, its
trick-ending and rollout rewards) are tested in ``test_dmc_tractor.py``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from cardjax.train import dmc
from conftest import assert_update_lowers_loss
import toygame
from toygame import env as toy_rules

TINY = dict(num_envs=8, width=8, depth=1, head_width=8, head_depth=1, minibatch=16, lr=1e-3)
R = 0.5  # trick_reward
G = 0.9  # gamma
BASE = {**TINY, "trick_reward": R, "advice": True, "gamma": G}
TRICK = {**BASE, "discount": "trick", "target": "trick", "lam": 1.0, "counterfactual": 1.0,
         "rollouts": True, "imitation": 1.0}
EXACT = {**BASE, "counterfactual": 1.0, "exact_rewards": True}
AFTER = {**EXACT, "after_states": 2}
ROLLED = {**BASE, "discount": "trick", "counterfactual": 1.0, "rollouts": True, "after_states": 2,
          "after_rollouts": True}
UNFORCED = {**BASE, "train_forced": False}
LAMBDA0 = {**BASE, "lam": 0.0}
CARDS = toy_rules.NUM_CARDS


@pytest.fixture(scope="module", autouse=True)
def toy():
    """The toy game registered (its card and its DMC adapter) for this module only."""
    with toygame.registered() as env:
        yield env


@pytest.fixture(scope="module")
def params():
    """Untrained networks of the ``BASE`` shapes (every program here reads the same features)."""
    return dmc.make_train(dmc.Config.for_game("toy", **BASE)).init(jax.random.PRNGKey(3)).params


@pytest.fixture(scope="module")
def played(params):
    """``{name: (decisions, stats, train)}``: one self-play batch of each program, from the same
    params and key."""
    out = {}
    for name, fields in (("base", BASE), ("trick", TRICK), ("exact", EXACT), ("after", AFTER),
                         ("rolled", ROLLED),
                         ("unforced", UNFORCED), ("lambda", LAMBDA0)):
        train = dmc.make_train(dmc.Config.for_game("toy", **fields))
        d, stats = jax.device_get(train.self_play(params, jax.random.PRNGKey(9)))
        out[name] = (d, stats, train)
    return out


# ----------------------------------------------------------------------- the games, by hand
def rule_card(hand: set, led: int) -> int:
    """The rule player's card (toygame.players.rule_move): lead the highest; follow with the
    lowest card that takes the trick, else the lowest."""
    if led < 0:
        return max(hand)
    taking = [c for c in hand if c > led]
    return min(taking) if taking else min(hand)


def replay(d, b: int) -> list[dict]:
    """Game ``b`` of a batch of decisions, step by step: who acted, with which hands, the card
    led to the trick (-1 when leading), the card played, the rule player's card, and the reward
    vector after the step (the trick to its winner, the win at the end)."""
    hands = [set(np.flatnonzero(d.obs[t, b, :CARDS] > 0).tolist()) for t in (0, 1)]
    seat, led, tricks, steps = 0, -1, [0, 0], []
    for t in range(toy_rules.Toy.max_steps):
        card = int(d.action[t, b]) % CARDS
        assert card in hands[seat], (b, t)
        row = dict(t=t, seat=seat, hand=set(hands[seat]), other=set(hands[1 - seat]), led=led,
                   card=card, rule=rule_card(hands[seat], led), reward=[0.0, 0.0])
        hands[seat].discard(card)
        if led < 0:
            led, seat = card, 1 - seat
        else:
            winner = seat if card > led else 1 - seat
            tricks[winner] += 1
            row["reward"][winner], row["reward"][1 - winner] = R, -R
            led, seat = -1, winner
        steps.append(row)
    won = int(np.argmax(tricks))
    final = [1.0 if s == won else -1.0 for s in (0, 1)]
    steps[-1]["reward"] = [r + f for r, f in zip(steps[-1]["reward"], final)]
    for row in steps:
        row["final"] = final
    return steps


def returns(steps: list[dict]) -> list[float]:
    """Each decision's Monte-Carlo return: its seat's rewards from its step on, gamma per step."""
    return [sum(G ** (u - t) * steps[u]["reward"][steps[t]["seat"]] for u in range(t, 6))
            for t in range(6)]


def trick_reward_of(card: int, led: int) -> float:
    return R if card > led else -R


def games(d):
    return [replay(d, b) for b in range(d.action.shape[1])]


# ------------------------------------------------------------------------------------ tests
def test_targets_are_the_returns_and_the_advised_cards_carry_the_flag(played):
    """``BASE``: every decision's target is its seat's discounted return (the trick rewards and
    the win), every action row is its card plus 8 where the card is the rule player's."""
    d, stats, _ = played["base"]
    assert np.all(d.weight == 1.0) and int(stats["decisions"]) == 6 * TINY["num_envs"]
    for b, steps in enumerate(games(d)):
        np.testing.assert_allclose(d.target[:, b], returns(steps), rtol=1e-6)
        assert [int(d.action[t, b]) for t in range(6)] == \
            [s["card"] + CARDS * (s["card"] == s["rule"]) for s in steps]


def test_trick_target_is_the_rest_of_the_trick_and_the_discounted_outcome(played):
    """``target="trick"`` (the ShengJi+ report's (4.4)): the same games; a decision's target is
    its own trick's rest and the final reward discounted once per later trick."""
    base, trick = played["base"][0], played["trick"][0]
    for name in ("obs", "action", "weight", "role"):
        np.testing.assert_array_equal(getattr(base, name), getattr(trick, name))
    for b, steps in enumerate(games(trick)):
        want = []
        for s in steps:
            k, seat = s["t"] // 2, s["seat"]
            rest = sum(steps[u]["reward"][seat] for u in range(s["t"], 2 * k + 2))
            rest -= steps[-1]["final"][seat] * (k == 2)  # the outcome is not the trick's
            want.append(rest + G ** (2 - k) * s["final"][seat])
        np.testing.assert_allclose(trick.target[:, b], want, rtol=1e-6)
    assert np.any(np.abs(trick.target - base.target) > 0.01)


def test_counterfactual_alternatives_move_the_target_by_their_own_trick_reward(played):
    """``counterfactual`` with ``rollouts``: at a follow before the last trick every other card
    in hand is trained, its target the taken card's moved by the difference of their exact trick
    rewards; at a lead before the last trick the same, with the trick reward when the other seat
    answers as the rule player (from its hidden hand); nothing in the last trick.  A learner step
    on them lowers the loss of the taken cards, the alternatives and the imitation together."""
    d, stats, train = played["trick"]
    alt = d.extra["alt_weight"] > 0
    assert int(stats["alternatives"]) == alt.sum() == 6 * TINY["num_envs"]  # 2 + 2 + 1 + 1
    for b, steps in enumerate(games(d)):
        for s in steps:
            t = s["t"]
            got = {int(a) % CARDS: (float(x), int(a)) for a, x, ok in zip(
                d.extra["alt_action"][t, b], d.extra["alt_target"][t, b], alt[t, b]) if ok}
            others = s["hand"] - {s["card"]} if t < 4 else set()
            assert set(got) == others, (b, t)
            for c, (target, row) in got.items():
                if s["led"] >= 0:  # exact
                    delta = trick_reward_of(c, s["led"]) - trick_reward_of(s["card"], s["led"])
                else:  # the rule player's answer
                    def lead(card):
                        return -R if rule_card(s["other"], card) > card else R

                    delta = lead(c) - lead(s["card"])
                assert target == pytest.approx(d.target[t, b] + delta, abs=1e-6), (b, t, c)
                assert row == c + CARDS * (c == s["rule"])
    state = train.init(jax.random.PRNGKey(0))
    rows = alt.any(axis=-1).reshape(-1)
    flat = lambda x: jnp.asarray(x.reshape((-1,) + x.shape[2:])[rows])  # noqa: E731
    batch = dmc.Batch(flat(d.obs), flat(d.action), flat(d.target),
                      {k: flat(v) for k, v in d.extra.items()})
    assert_update_lowers_loss(train, state, 0, batch)


def test_imitation_shows_the_rule_players_card_first_and_its_loss_ranks_it_first(played, params):
    """``imitation``: at every decision with a choice (the first two tricks) the rule player's
    card (its row flagged) first, then the other cards in hand; the large-margin loss alone, on a
    fixed batch of those decisions, brings the network to rank the rule player's card first at
    (nearly) all of them, where it began near chance."""
    d, stats, train = played["trick"]
    im_action, im_weight = d.extra["im_action"], d.extra["im_weight"]
    shown = im_weight[..., 0] > 0
    assert int(stats["demonstrations"]) == shown.sum() == 4 * TINY["num_envs"]
    for b, steps in enumerate(games(d)):
        for s in steps:
            t = s["t"]
            assert shown[t, b] == (t < 4)
            if t < 4:
                valid = im_weight[t, b] > 0
                assert im_action[t, b, 0] == s["rule"] + CARDS
                assert sorted(im_action[t, b, 1:][valid[1:]].tolist()) == \
                    sorted(s["hand"] - {s["rule"]})
    rows = shown.reshape(-1)
    flat = lambda x: jnp.asarray(x.reshape((-1,) + x.shape[2:])[rows])  # noqa: E731
    batch = dmc.Batch(flat(d.obs), flat(d.action), flat(d.target),
                      {"im_action": flat(im_action), "im_weight": flat(im_weight)})
    heavy = dmc.Config.for_game("toy", **{**BASE, "advice": True, "imitation": 1e3})
    only_imitation = dmc.make_learner(heavy, train.game, train.net, optax.adam(3e-2),
                                      dmc.extension.build(heavy.composition, heavy, train.game))
    table = jnp.asarray(train.game.action_features)

    def ranked_first(p):
        q = train.net.apply(p, batch.obs, table[batch.extra["im_action"]])
        others = jnp.where(batch.extra["im_weight"][:, 1:] > 0, q[:, 1:], -jnp.inf)
        return float(jnp.mean(q[:, 0] > jnp.max(others, axis=1)))

    p = dmc.role_params(params, 0)
    before = ranked_first(p)
    opt, weights = optax.adam(3e-2).init(p), jnp.ones(batch.obs.shape[0])
    update = jax.jit(only_imitation.update)
    for _ in range(200):
        p, opt, _ = update(p, opt, batch, weights)
    assert before < 0.8 and ranked_first(p) >= 0.95


def test_exact_rewards_leave_the_network_the_rest_of_the_return(played, toy, params):
    """``exact_rewards``: a follow before the last trick learns its return less its card's trick
    reward, and each of its alternatives the same rest; every other decision its return.  The
    greedy player adds the same rewards to Q (``q_values``' exact scale)."""
    d, _, train = played["exact"]
    alt = d.extra["alt_weight"] > 0
    assert alt.sum() == 3 * TINY["num_envs"]  # the follows of the first two tricks: 2 + 1
    for b, steps in enumerate(games(d)):
        want = returns(steps)
        for s in steps:
            if s["led"] >= 0 and s["t"] < 5:
                want[s["t"]] -= trick_reward_of(s["card"], s["led"])
        np.testing.assert_allclose(d.target[:, b], want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(d.extra["alt_target"][alt],
                               np.broadcast_to(d.target[..., None], alt.shape)[alt])
    from cardjax.nets.dmc import acting

    s = toy.init_from_deal([[1, 4, 6], [2, 3, 7]])
    s = jax.jit(toy.step)(s, 4)  # seat 1 to follow the 4 with 2, 3 or 7
    idx, valid, q0 = acting.q_values(train.net, train.game, params, s, 3)
    _, _, q1 = acting.q_values(train.net, train.game, params, s, 3, 1.0)
    got = dict(zip(np.asarray(idx)[np.asarray(valid)], np.asarray(q1 - q0)[np.asarray(valid)]))
    assert got == pytest.approx({2: -R, 3: -R, 7: R}, abs=1e-6)


def test_after_states_give_each_alternative_the_value_of_the_state_it_leaves(played, toy,
                                                                            params):
    """``after_states``: the same games and targets as ``EXACT``; an alternative's target is
    the taken card's moved by gamma times the difference of the values of the states after
    each card (the best Q of the seat to lead there, negated for the other seat), worked out
    here by stepping the deal and asking the network of each state."""
    from cardjax.nets.dmc import acting

    (exact, _, _), (d, stats, train) = played["exact"], played["after"]
    for name in ("obs", "action", "target", "weight"):
        np.testing.assert_array_equal(getattr(exact, name), getattr(d, name))
    alt = d.extra["alt_weight"] > 0
    np.testing.assert_array_equal(alt, exact.extra["alt_weight"] > 0)
    assert int(stats["after_valued"]) == alt.sum() and int(stats["after_missed"]) == 0
    step = jax.jit(toy.step)

    def value(state, seat):
        _, valid, q = acting.q_values(train.net, train.game, params, state, 3, 1.0)
        v = float(np.max(np.asarray(q)[np.asarray(valid)]))
        return v if int(state.current_player) == seat else -v

    moved = 0
    for b, steps in enumerate(games(d)):
        state = toy.init_from_deal([steps[0]["hand"], steps[1]["hand"]])
        for s in steps:
            t, seat = s["t"], s["seat"]
            for a, target, ok in zip(d.extra["alt_action"][t, b], d.extra["alt_target"][t, b],
                                     alt[t, b]):
                if ok:
                    delta = G * (value(step(state, int(a) % CARDS), seat)
                                 - value(step(state, s["card"]), seat))
                    assert target == pytest.approx(d.target[t, b] + delta, abs=1e-5), (b, t)
                    moved += abs(delta) > 1e-4
            state = step(state, s["card"])
    assert moved > 0


def test_after_rollouts_give_each_led_card_the_value_of_the_state_its_trick_leaves(played,
                                                                                toy, params):
    """``after_rollouts``: a lead's alternative (its trick played out by the rule player's
    answer) moves the taken card's target by its own trick reward and by gamma times the value
    of the state after its answered trick less that after the taken card's (the best Q of the
    seat to lead there, negated for the other seat); a follow's by its exact trick reward and
    the states after each card, as ``after_states`` alone; nothing is missed."""
    from cardjax.nets.dmc import acting

    d, stats, train = played["rolled"]
    alt = d.extra["alt_weight"] > 0
    assert int(stats["after_valued"]) == alt.sum() and int(stats["after_missed"]) == 0
    step = jax.jit(toy.step)

    def value(state, seat):
        if bool(state.terminated):
            return 0.0
        _, valid, q = acting.q_values(train.net, train.game, params, state, 3)
        v = float(np.max(np.asarray(q)[np.asarray(valid)]))
        return v if int(state.current_player) == seat else -v

    def after(state, card, led):
        nxt = step(state, card)
        if led >= 0:
            return nxt
        answer = rule_card(set(np.flatnonzero(np.asarray(nxt.legal_action_mask)).tolist()), card)
        return step(nxt, answer)

    leads = 0
    for b, steps in enumerate(games(d)):
        state = toy.init_from_deal([steps[0]["hand"], steps[1]["hand"]])
        for s in steps:
            t, seat, led = s["t"], s["seat"], s["led"]
            for a, target, ok in zip(d.extra["alt_action"][t, b], d.extra["alt_target"][t, b],
                                     alt[t, b]):
                if not ok:
                    continue
                c = int(a) % CARDS
                if led >= 0:
                    delta = trick_reward_of(c, led) - trick_reward_of(s["card"], led)
                else:
                    def lead(card):
                        return -R if rule_card(s["other"], card) > card else R

                    delta = lead(c) - lead(s["card"])
                    leads += 1
                delta += G * (value(after(state, c, led), seat)
                              - value(after(state, s["card"], led), seat))
                assert target == pytest.approx(d.target[t, b] + delta, abs=1e-5), (b, t, c)
            state = step(state, s["card"])
    assert leads >= 2 * TINY["num_envs"]  # the first two tricks' leads
    with pytest.raises(ValueError, match="after_rollouts gives"):
        dmc.Config.for_game("toy", **{**ROLLED, "after_states": 0})
    with pytest.raises(ValueError, match="needs --discount trick"):
        dmc.Config.for_game("toy", **{**ROLLED, "discount": "step"})


def test_without_forced_decisions_the_last_trick_is_not_trained(played):
    """``train_forced=False``: the same games, and the decisions without a choice (the last
    trick's, one card in hand) weigh 0 with target 0; the others keep their targets."""
    base, unforced = played["base"][0], played["unforced"][0]
    np.testing.assert_array_equal(base.obs, unforced.obs)
    np.testing.assert_array_equal(unforced.weight[:4], 1.0)
    np.testing.assert_array_equal(unforced.weight[4:], 0.0)
    np.testing.assert_array_equal(unforced.target[4:], 0.0)
    np.testing.assert_array_equal(unforced.target[:4], base.target[:4])


def test_lambda_zero_targets_are_the_seats_next_q(played, params):
    """``lam = 0``: the same games; a decision's target is its seat's rewards until that seat's
    next decision, then the actors' Q of that decision where it was a choice, or that decision's
    own target where it was forced (one card left); a seat's last decision keeps its return."""
    base, (lam0, _, train) = played["base"][0], played["lambda"]
    np.testing.assert_array_equal(base.action, lam0.action)
    table = jnp.asarray(train.game.action_features)
    T, B = lam0.action.shape
    q = np.asarray(train.net.apply(dmc.role_params(params, 0), lam0.obs.reshape(T * B, -1),
                                   table[lam0.action.reshape(-1)][:, None, :])).reshape(T, B)
    for b, steps in enumerate(games(lam0)):
        want = returns(steps)
        for t in reversed(range(6)):
            seat = steps[t]["seat"]
            later = [u for u in range(t + 1, 6) if steps[u]["seat"] == seat]
            if later:
                u = later[0]
                rest = q[u, b] if len(steps[u]["hand"]) > 1 else want[u]
                want[t] = sum(G ** (v - t) * steps[v]["reward"][seat] for v in range(t, u)) \
                    + G ** (u - t) * rest
        np.testing.assert_allclose(lam0.target[:, b], want, rtol=1e-5, atol=1e-6)


def test_a_prior_player_makes_the_decisions_it_is_given(toy, params):
    """Warm start (``init_from``): with ``prior_share`` 1 every decision of iteration 0 is the
    prior's (the ``low`` player: the lowest card in hand), about half of them halfway through
    ``prior_iterations``, none from then on.  The trainer loads no player: its caller passes
    it."""
    from cardjax import agents

    cfg = dmc.Config.for_game("toy", **{**BASE, "num_envs": 64, "init_from": "low",
                                        "prior_iterations": 4, "prior_share": 1.0})
    with pytest.raises(ValueError, match="pass the prior player"):
        dmc.make_train(cfg)
    train = dmc.make_train(cfg, prior=agents.load(toy, "low"))
    key = jax.random.PRNGKey(3)
    d, stats = jax.device_get(train.self_play(params, key, jnp.int32(0)))
    assert stats["prior_rate"] == 1.0
    for steps in games(d):
        assert all(s["card"] == min(s["hand"]) for s in steps)
    _, half = jax.device_get(train.self_play(params, key, jnp.int32(2)))
    assert 0.4 < half["prior_rate"] < 0.6
    _, later = jax.device_get(train.self_play(params, key, jnp.int32(4)))
    assert later["prior_rate"] == 0.0
    with pytest.raises(ValueError, match="go together"):
        dmc.Config.for_game("toy", init_from="low")


def test_oracle_guiding_shows_the_other_hand_to_a_falling_share(toy):
    """``oracle_iterations``: the features end with the oracle block, the other seat's hand, at
    every decision of iteration 0 (where it holds a card), at about half of them halfway, and
    zeros from then on (the block stays in the network's input)."""
    cfg = dmc.Config.for_game("toy", **{**BASE, "num_envs": 64, "oracle_iterations": 4})
    train = dmc.make_train(cfg)
    params = train.init(jax.random.PRNGKey(3)).params
    for iteration, share in ((0, 1.0), (2, 0.5), (4, 0.0)):
        d, stats = jax.device_get(train.self_play(params, jax.random.PRNGKey(4),
                                                  jnp.int32(iteration)))
        assert d.obs.shape[-1] == toy_rules.OBS_SIZE + CARDS and stats["oracle_shown"] == share
        shown = 0
        for b, steps in enumerate(games(d)):
            for s in steps:
                block = d.obs[s["t"], b, toy_rules.OBS_SIZE:] > 0
                assert not block.any() or set(np.flatnonzero(block)) == s["other"], (b, s["t"])
                shown += bool(block.any())
        held = 5 * 64  # decisions where the other seat holds a card: all but the last
        if share in (0.0, 1.0):
            assert shown == share * held
        else:
            assert 0.4 < shown / held < 0.6


def test_an_advice_bonus_makes_the_players_moves_the_rule_players(toy, params):
    """``advice_bonus``: added to the Q of the advised card when choosing.  A large one makes an
    untrained network's every move the rule player's; none makes some differ; the bonus needs a
    game with advice, and must be >= 0."""
    from cardjax.agents import dmc as dmc_agent
    from toygame.players import rule_move

    cfg = dmc.Config.for_game("toy", **BASE)
    keys = jax.random.split(jax.random.PRNGKey(5), 64)
    states = jax.vmap(toy.init)(keys)
    step = jax.jit(jax.vmap(toy.step))
    players = [jax.jit(jax.vmap(dmc_agent.agent_from_params(toy, params, cfg.replace(
        advice_bonus=bonus)).act, in_axes=(None, None, 0))) for bonus in (1e3, 0.0)]
    same = [0, 0]
    for _ in range(6):
        want = np.asarray(jax.vmap(rule_move)(states))
        acts = [np.asarray(p(params, None, states)) for p in players]
        same = [n + int(np.sum(a == want)) for n, a in zip(same, acts)]
        states = step(states, jnp.asarray(acts[0]))
    assert same[0] == 6 * 64 and same[1] < 6 * 64
    with pytest.raises(ValueError, match="advice_bonus needs"):
        dmc.Config.for_game("toy", advice_bonus=0.5)
    with pytest.raises(ValueError, match="advice_bonus must be >= 0"):
        dmc.Config.for_game("toy", advice=True, advice_bonus=-1.0)


def test_a_lookahead_scores_the_last_card_of_a_trick_by_the_state_it_leaves(toy, params):
    """``lookahead``: where every card's trick reward is known (the follow), the player plays
    the card of the best known reward plus gamma times the value of the state it leaves (the
    best Q of the seat to lead there, negated for the other seat), worked out here by stepping
    each card; elsewhere (the leads) the card the plain player plays.  One game at a time and a
    batch choose alike, and a width of one is the plain player."""
    from cardjax.agents import dmc as dmc_agent
    from cardjax.nets.dmc import acting

    cfg = dmc.Config.for_game("toy", **EXACT)
    train = dmc.make_train(cfg)
    net, game = train.net, train.game

    def player(width):
        return dmc_agent.agent_from_params(toy, params, cfg, lookahead=width).act

    plain, ahead, one = (jax.jit(jax.vmap(player(w), in_axes=(None, None, 0))) for w in (0, 3, 1))
    single = jax.jit(player(3))
    step = jax.jit(toy.step)

    def value(state, seat):
        if bool(state.terminated):
            return 0.0
        _, valid, q = acting.q_values(net, game, params, state, 3, 1.0)
        v = float(np.max(np.asarray(q)[np.asarray(valid)]))
        return v if int(state.current_player) == seat else -v

    states = jax.vmap(toy.init)(jax.random.split(jax.random.PRNGKey(11), 16))
    looked = differ = 0
    for _ in range(6):
        a_plain, a_ahead = np.asarray(plain(params, None, states)), np.asarray(
            ahead(params, None, states))
        np.testing.assert_array_equal(np.asarray(one(params, None, states)), a_plain)
        for b in range(16):
            s = jax.tree_util.tree_map(lambda x: x[b], states)
            assert int(single(params, None, s)) == a_ahead[b]
            reward, exact = game.counterfactual(s)
            legal = np.flatnonzero(np.asarray(s.legal_action_mask))
            if bool(s.terminated) or len(legal) < 2 or not np.all(np.asarray(exact)[legal]):
                assert a_ahead[b] == a_plain[b]
                continue
            seat = int(s.current_player)
            scores = {int(a): float(reward[a]) + G * value(step(s, int(a)), seat)
                      for a in legal}
            assert scores[int(a_ahead[b])] == pytest.approx(max(scores.values()), abs=1e-5)
            looked += 1
            differ += a_ahead[b] != a_plain[b]
        states = jax.vmap(toy.step)(states, jnp.asarray(a_ahead))
    assert looked >= 16 and differ > 0  # the first two tricks' follows of every game
    with pytest.raises(ValueError, match="lookahead must be a whole number"):
        dmc_agent.agent_from_params(toy, params, cfg, lookahead=-1)


def test_margin_loss_by_hand():
    """DQfD's margin: how far the best other candidate plus the margin rises above slot 0."""
    from cardjax.train.dmc.extensions.imitation import margin_loss

    q = jnp.asarray([[1.0, 0.95, 0.5], [1.0, 0.2, 0.85], [0.0, 3.0, 1.0], [0.0, 3.0, 1.0]])
    valid = jnp.asarray([[1, 1, 1], [1, 1, 1], [1, 0, 1], [0, 1, 1]], bool)
    np.testing.assert_allclose(margin_loss(q, valid, 0.1), [0.05, 0.0, 1.1, 0.0], atol=1e-6)
