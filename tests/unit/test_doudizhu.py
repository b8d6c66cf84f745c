"""The Dou Dizhu env: whole games against RLCard's engine, scoring, options, hidden information."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax.games.doudizhu import env as ddz
from cardjax.games.doudizhu.moves import action_index, hand_counts
from conftest import get_compiled

rl_game = pytest.importorskip("rlcard.games.doudizhu.game")
from rlcard.games.doudizhu.utils import cards2str  # noqa: E402


@pytest.fixture(scope="module")
def env():
    return cardjax.make("doudizhu")


@pytest.fixture(scope="module")
def step(env):
    return jax.jit(env.step)


def play(env, step, state, moves):
    for m in moves.split(","):
        state = step(state, action_index(m.strip()))
    return state


def test_whole_games_agree_with_rlcard(env, step):
    """RLCard deals and plays random games; the env replays them move by move from the same deal:
    at every step the same seat is to act with the same legal moves, and the same side wins."""
    rng = np.random.default_rng(0)
    legal_mask = get_compiled(env).legal_action_mask  # under jit (the property: ~25 ms eager)
    positions = 0
    for g in range(12):
        game = rl_game.DoudizhuGame()
        game.np_random = np.random.RandomState(100 + g)
        rl_state, pid = game.init_game()
        hands = [cards2str(p.current_hand) for p in game.players]
        landlord = game.round.landlord_id
        state = env.init_from_deal(hands, landlord=landlord)
        while not game.is_over():
            assert int(state.current_player) == pid
            legal = {ddz.ACTIONS[i] for i in np.flatnonzero(np.asarray(legal_mask(state)))}
            assert legal == set(rl_state["actions"]), (g, positions)
            move = sorted(legal)[rng.integers(len(legal))]
            rl_state, pid = game.step(move)
            state = step(state, action_index(move))
            positions += 1
        assert bool(state.terminated)
        landlord_won = game.winner_id == landlord if hasattr(game, "winner_id") else None
        winner = int(np.flatnonzero(np.asarray(state.cards_left) == 0)[0])
        if landlord_won is not None:
            assert (winner == landlord) == landlord_won
        assert float(state.rewards.sum()) == 0.0
    assert positions > 500


# Landlord (seat 0) holds bombs of 3s to 6s, the rocket and a pair of 7s.
BOMBS_DEAL = ["3333444455556666BR77", "88889999TTTTJJJJ7", "QQQQKKKKAAAA22227"]
BOMBS_GAME = ("3333,pass,pass,BR,pass,pass,4444,pass,pass,5555,pass,pass,6666,pass,pass,77")
# Seat 1 (a peasant) wins after the landlord's single opening move.
PEASANT_DEAL = ["33344455566677788899", "3456789TJQKABR222", "9TTTJJJQQQKKKAAA2"]
PEASANT_GAME = "3,BR,pass,pass,3456789TJQKA,pass,pass,222"


@pytest.mark.parametrize("reward, spring, expected", [
    ("adp", False, [64, -32, -32]),  # 5 bombs/rockets: m = 32; landlord 2m
    ("adp", True, [128, -64, -64]),  # the peasants never played: spring doubles
    ("wp", False, [1, -0.5, -0.5]),
    ("logadp", False, [6, -3, -3]),
])
def test_bombs_rocket_and_spring_scoring(reward, spring, expected):
    env = cardjax.make("doudizhu", reward=reward, spring=spring)
    state = play(env, jax.jit(env.step), env.init_from_deal(BOMBS_DEAL), BOMBS_GAME)
    assert bool(state.terminated) and int(state.bombs) == 5
    np.testing.assert_allclose(np.asarray(state.rewards), expected)


@pytest.mark.parametrize("spring, expected", [(False, [-4, 2, 2]), (True, [-8, 4, 4])])
def test_peasants_win_and_landlord_spring(spring, expected):
    env = cardjax.make("doudizhu", spring=spring)
    state = play(env, jax.jit(env.step), env.init_from_deal(PEASANT_DEAL), PEASANT_GAME)
    assert bool(state.terminated) and int(state.landlord_moves) == 1 and int(state.bombs) == 1
    np.testing.assert_allclose(np.asarray(state.rewards), expected)


def test_two_passes_give_the_lead_back(env, step):
    state = play(env, step, env.init_from_deal(PEASANT_DEAL), "3,BR,pass")
    assert int(state.to_beat) == action_index("BR") and int(state.current_player) == 0
    state = step(state, action_index("pass"))
    assert int(state.current_player) == 1 and int(state.to_beat) == -1
    mask = np.asarray(state.legal_action_mask)
    assert not mask[ddz.PASS]  # a leader may not pass
    assert mask[action_index("3456789TJQKA")] and mask[action_index("222")]


def test_bottom_cards_join_the_landlord():
    env = cardjax.make("doudizhu")
    hands = ["3333444455556666B", "88889999TTTTJJJJ7", "QQQQKKKKAAAA22227"]
    state = env.init_from_deal(hands, bottom="R77", landlord=0)
    np.testing.assert_array_equal(np.asarray(state._hands[0]), hand_counts(BOMBS_DEAL[0]))
    np.testing.assert_array_equal(np.asarray(state.bottom), hand_counts("R77"))
    assert np.asarray(state.cards_left).tolist() == [20, 17, 17]


def test_bidding_auction():
    env = cardjax.make("doudizhu", bidding=True)
    assert env.num_actions == ddz.NUM_MOVES + 4
    step = jax.jit(env.step)
    hands = ["3333444455556666B", "88889999TTTTJJJJ7", "QQQQKKKKAAAA22227"]
    state = env.init_from_deal(hands, bottom="R77", first_bidder=1)
    assert bool(state.bidding) and int(state.current_player) == 1
    assert not np.asarray(state.bottom).any()  # not shown during the auction
    mask = np.asarray(state.legal_action_mask)
    assert mask[ddz.BID_PASS:].all() and not mask[: ddz.NUM_MOVES].any()
    state = step(state, ddz.BID_PASS + 1)  # seat 1 bids 1
    assert not np.asarray(state.legal_action_mask)[ddz.BID_PASS + 1]  # must bid higher
    state = step(state, ddz.BID_PASS)  # seat 2 passes
    state = step(state, ddz.BID_PASS + 2)  # seat 0 bids 2: the last bid, seat 0 is landlord
    assert not bool(state.bidding) and int(state.landlord) == 0 and int(state.bid) == 2
    assert int(state.current_player) == 0 and int(state.cards_left[0]) == 20
    np.testing.assert_array_equal(np.asarray(state.bottom), hand_counts("R77"))
    state = play(env, step, state, BOMBS_GAME)
    np.testing.assert_allclose(np.asarray(state.rewards), [128, -64, -64])  # x the bid of 2

    void = env.init_from_deal(hands, bottom="R77", first_bidder=2)
    for _ in range(3):
        void = step(void, ddz.BID_PASS)
    assert bool(void.terminated) and not np.asarray(void.rewards).any()

    three = step(env.init_from_deal(hands, bottom="R77", first_bidder=2), ddz.BID_PASS + 3)
    assert int(three.landlord) == 2 and int(three.current_player) == 2 and not bool(three.bidding)


@pytest.mark.parametrize("hands, kwargs, message", [
    (["333", "444", "555"], {}, "hand sizes"),
    (np.zeros((2, 15), int), {}, "shape"),
    (["3333444455556666BR77", "88889999TTTTJJJJ7", "QQQQKKKKAAAA22228"], {}, "54 cards once"),
    (["33333444455556666BR7", "88889999TTTTJJJJ7", "QQQQKKKKAAAA22227"], {}, "more than four"),
    (["3333444455556666BR77", "88889999TTTTJJJJ7", "QQQQKKKKAAAA2227Z"], {}, "unknown rank"),
    (["3333444455556666B", "88889999TTTTJJJJ7", "QQQQKKKKAAAA22227"], {"bottom": "R7"},
     "3 cards"),
    (BOMBS_DEAL, {"landlord": 3}, "landlord"),
])
def test_bad_deals_raise(env, hands, kwargs, message):
    with pytest.raises(ValueError, match=message):
        env.init_from_deal(hands, **kwargs)


def test_sample_hidden_is_consistent(env):
    """Random mid-game positions: the seat's hand, every count and the landlord's unplayed bottom
    cards are kept; the cards add up to the deck."""
    keys = jax.random.split(jax.random.PRNGKey(4), 16)

    @jax.jit
    def positions(keys):
        def body(s, k):
            a = jax.vmap(cardjax.random_action)(jax.random.split(k, 16), s.legal_action_mask)
            return jax.vmap(env.step)(s, a), None
        s, _ = jax.lax.scan(body, jax.vmap(env.init)(keys), jax.random.split(keys[0], 12))
        seat = jnp.arange(16) % 3
        worlds = jax.vmap(env.sample_hidden)(jax.random.split(keys[1], 16), s, seat)
        return s, worlds, seat

    s, w, seat = jax.device_get(positions(keys))
    for i in range(16):
        if s.terminated[i]:
            continue
        p = seat[i]
        np.testing.assert_array_equal(w._hands[i, p], s._hands[i, p])
        np.testing.assert_array_equal(w._hands[i].sum(1), s._hands[i].sum(1))
        total = w._hands[i].sum(0) + s.played[i].sum(0)
        np.testing.assert_array_equal(total, ddz.DECK)
        lord = s.landlord[i]
        assert np.all(w._hands[i, lord] >= np.maximum(s.bottom[i] - s.played[i, lord], 0))
        mask = np.asarray(ddz.moves.legal_mask(w._hands[i, s.current_player[i]], s.to_beat[i]))
        np.testing.assert_array_equal(w.legal_action_mask[i], mask)


def test_deal_is_jax_permutation_dealt_in_order():
    """``deal_counts`` (no sort) deals exactly what ``jax.random.permutation`` shuffles, 17, 17,
    17 and 3 cards, over many keys; a JAX release that changed the permutation shows up here."""
    keys = jax.random.split(jax.random.key(11), 4000)
    got = np.asarray(jax.jit(jax.vmap(ddz.deal_counts))(keys))
    order = np.asarray(jax.jit(jax.vmap(lambda k: jax.random.permutation(k, 54)))(keys))
    ranks = ddz.RANK_OF_CARD[order]
    for h, (lo, hi) in enumerate([(0, 17), (17, 34), (34, 51), (51, 54)]):
        want = np.stack([np.bincount(r[lo:hi], minlength=15) for r in ranks])
        np.testing.assert_array_equal(got[:, h], want)


@pytest.mark.parametrize("bidding", [False, True])
def test_batched_random_play_reads_the_legal_set_it_does_not_store(bidding):
    """The state keeps no legal set: in a batch of random games (vmapped, so a follow reads a few
    words and a lead builds the set), every random action is the one sampled from the whole set,
    and is_legal agrees with the set on that action and on random ids."""
    from cardjax import legal_words

    env, n = cardjax.make("doudizhu", bidding=bidding), 24

    def body(s, key):
        k_act, k_ids = jax.random.split(key)
        keys = jax.random.split(k_act, n)
        a = jax.vmap(env.random_action)(keys, s)
        ref = jax.vmap(lambda k, s: legal_words.sample(k, s.legal_words))(keys, s)
        ids = jnp.concatenate([a[:, None], jax.random.randint(k_ids, (n, 8), 0, env.num_actions)],
                              axis=1)
        legal = jax.vmap(lambda s, i: jax.vmap(lambda a: env.is_legal(s, a))(i))(s, ids)
        in_set = jax.vmap(legal_words.contains)(s.legal_words, ids)
        return jax.vmap(env.step)(s, a), (a, ref, legal, in_set, s.terminated)

    s0 = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(21), n))
    _, (a, ref, legal, in_set, done) = jax.jit(
        lambda s: jax.lax.scan(body, s, jax.random.split(jax.random.PRNGKey(22), 90)))(s0)
    np.testing.assert_array_equal(np.asarray(a), np.asarray(ref))
    np.testing.assert_array_equal(np.asarray(legal), np.asarray(in_set))
    assert np.asarray(legal)[..., 0].all() and np.asarray(done)[-1].all()
