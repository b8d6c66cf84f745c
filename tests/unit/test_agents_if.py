"""Mr If (``cardjax.games.gongzhu.mr_if``): its rules on hand-built positions, legality, what it
reads, and its margin over Mr Random.

Every single-position check goes through one jitted ``act`` (one compile for the module).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from cardjax import agents, cards
from cardjax.eval.arena import duplicate_match
from cardjax.games.gongzhu import env as gzm
from conftest import play_cards

SUITS = "SHDC"


@pytest.fixture(scope="module")
def mr_if(gongzhu):
    return agents.get(gongzhu, "if")


@pytest.fixture(scope="module")
def act(mr_if):
    jitted = jax.jit(mr_if.act)
    return lambda state: int(jitted(None, jax.random.PRNGKey(0), state))


def deal(hands, lacks=("", "", "", "")):
    """``owner`` from partial hands (card strings): the other cards are given out in order (the
    suits some seat lacks first) to the first seat with room, never to a seat in a suit of
    ``lacks[seat]`` (letters, e.g. ``"D"``)."""
    owner = np.full(52, -1, np.int32)
    for seat, hand in enumerate(hands):
        owner[cards.parse_cards(hand)] = seat
    lacked = [SUITS[c // 13] in "".join(lacks) for c in range(52)]
    for c in sorted(np.flatnonzero(owner < 0), key=lambda c: not lacked[c]):
        room = [s for s in range(4)
                if np.sum(owner == s) < 13 and SUITS[c // 13] not in lacks[s]]
        owner[c] = room[0]
    return gzm.owner_from_hands([np.flatnonzero(owner == s) for s in range(4)])


def position(env, hands, moves="", lacks=("", "", "", ""), leader=0):
    state = env.init_from_deal(deal(hands, lacks), leader)
    return play_cards(env, state, moves)[-1]


def test_void_dumps_pig_on_opponent(gongzhu, act):
    # Seat 0 leads D5; seat 1 has no diamonds and holds SQ and high hearts: the pig goes first.
    s = position(gongzhu, ["D5", "SQ HA HK SA C2"], "D5", lacks=("", "D", "", ""))
    assert act(s) == cards.card_index("SQ")


def test_void_dumps_highest_heart_without_pig(gongzhu, act):
    s = position(gongzhu, ["D5 SQ", "HK H9 S2 C2", "", "D6"], "D5", lacks=("", "D", "", ""))
    assert act(s) == cards.card_index("HK")


def test_ducks_under_current_winner(gongzhu, act):
    s = position(gongzhu, ["C9", "C2 C7 C8 CJ CK"], "C9")
    assert act(s) == cards.card_index("C8")


def test_dumps_pig_under_spade_ace(gongzhu, act):
    s = position(gongzhu, ["SA", "SQ S3 S5"], "SA")
    assert act(s) == cards.card_index("SQ")


def test_keeps_pig_when_partner_wins(gongzhu, act):
    # Seat 0 leads SA, seat 1 follows; seat 2 (seat 0's partner) keeps SQ and plays S6.
    s = position(gongzhu, ["SA", "S2", "SQ S5 S6"], "SA S2")
    assert act(s) == cards.card_index("S6")


def test_never_leads_pig(gongzhu, act):
    s = position(gongzhu, ["SQ SA SK S2 HA HK DA DK CA CK C10 DJ H2"], "")
    assert act(s) != cards.card_index("SQ")


def test_does_not_lead_spade_honours_while_pig_out(gongzhu, act):
    # Seat 0: SA SK and hearts/high cards only, besides S3 -> leads S3 (or anything but SA/SK).
    s = position(gongzhu, ["SA SK S3 HA HK HQ HJ DA DK CA CK CQ CJ"], "")
    assert act(s) not in (cards.card_index("SA"), cards.card_index("SK"), cards.card_index("SQ"))


def test_gives_sheep_to_partner_but_not_to_opponent(gongzhu, act):
    # Seat 0 leads C5, seat 1 wins with CA, seat 2 follows; seat 3 (void in clubs) is last.
    hands = ["C5", "CA", "C3", "DJ HA D2"]
    s = position(gongzhu, hands, "C5 CA C3", lacks=("", "", "", "C"))
    assert act(s) == cards.card_index("DJ")  # partner (seat 1) certainly wins
    s = position(gongzhu, ["CA", "C5", "C3", "DJ HA D2"], "CA C5 C3", lacks=("", "", "", "C"))
    assert act(s) == cards.card_index("HA")  # opponent wins: the highest heart, never DJ


def test_forced_win_last_plays_highest(gongzhu, act):
    s = position(gongzhu, ["D2", "D3", "D4", "DA DK"], "D2 D3 D4", lacks=("", "", "", ""))
    assert act(s) == cards.card_index("DA")


def test_forced_win_not_with_pig(gongzhu, act):
    # Seat 1 holds only SK SQ in spades after S2 is led: it wins with SK, not with its own pig.
    s = position(gongzhu, ["S2", "SK SQ"], "S2", lacks=("", "S", "", ""))
    assert act(s) == cards.card_index("SK")


def test_takes_sheep_with_sure_winner(gongzhu, act):
    # Seat 0 leads D5, seat 1 plays DJ; seat 2 holds DA (no out diamond beats it) and D2.
    s = position(gongzhu, ["D5", "DJ", "DA D2"], "D5 DJ", lacks=("", "", "D", ""))
    assert act(s) == cards.card_index("DA")


@pytest.fixture(scope="module")
def mixed_games(gongzhu, mr_if):
    """64 games with Mr If at seats 0 and 2 against Mr Random, every state and action kept."""
    env, rnd = gongzhu, agents.get(gongzhu, "random")

    @jax.jit
    def run(key):
        first = jax.vmap(env.init)(jax.random.split(key, 64))

        def body(s, k):
            keys = jax.random.split(k, 64)
            a_if = jax.vmap(mr_if.act, in_axes=(None, 0, 0))(None, keys, s)
            a_rnd = jax.vmap(rnd.act, in_axes=(None, 0, 0))(None, keys, s)
            a = jnp.where(s.current_player % 2 == 0, a_if, a_rnd)
            return jax.vmap(env.step)(s, a), (s, a_if)

        return jax.lax.scan(body, first, jax.random.split(jax.random.PRNGKey(1), 52))

    return run(jax.random.PRNGKey(2024))


def test_actions_always_legal(mixed_games):
    last, (states, a_if) = mixed_games
    legal = np.take_along_axis(np.asarray(states.legal_action_mask), np.asarray(a_if)[..., None],
                               axis=-1)[..., 0]
    assert legal.all()  # over 52 x 64 positions, If's seats and Random's alike
    assert np.all(np.asarray(last.terminated))


def test_reads_only_what_its_seat_knows(gongzhu, mr_if, mixed_games):
    """Re-dealing the cards the seat to act has not seen never changes Mr If's card."""
    _, (states, a_if) = mixed_games
    flat = jax.tree_util.tree_map(lambda x: np.asarray(x)[5:50:4].reshape((-1,) + x.shape[2:]),
                                  states)
    a_if = np.asarray(a_if)[5:50:4].reshape(-1)
    n = a_if.shape[0]

    @jax.jit
    def resampled_actions(key, s):
        worlds = jax.vmap(gongzhu.sample_hidden)(jax.random.split(key, n), s, s.current_player)
        return jax.vmap(mr_if.act, in_axes=(None, None, 0))(None, key, worlds)

    for i in range(2):
        np.testing.assert_array_equal(resampled_actions(jax.random.PRNGKey(i), flat), a_if)


@pytest.mark.slow
def test_beats_random(gongzhu, mr_if):
    r = duplicate_match(gongzhu, mr_if, agents.get(gongzhu, "random"), deals=128, seed=3,
                        progress=False)
    assert r["mean"] > 3 * r["stderr"], r
    assert r["mean"] > 100, r
