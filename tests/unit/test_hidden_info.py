"""ScrofaZero's play under hidden information (cardjax.search.hidden_info with the Gongzhu
worlds and IEC weights of cardjax.games.gongzhu.worlds).

Worlds (stratified and uniform) must agree with everything the deciding seat saw; IEC weights are
checked on hand-built worlds and on a hand-computed slice; ``decide`` must find a move that is
best in every world, return legal moves, and give the same answer vmapped as in a loop.  Every
jitted function is built once per module with small sizes (a width-32 depth-1 net, budgets
b = 10, k = 2, 9 worlds).  On 2 busy CPU cores the file takes 1.5-2.5 minutes, nearly all of
it compiling: decide (with and without IEC) and the vmapped agent are three compiles of a
batched MCTS.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from cardjax import cards
from cardjax.agents import Agent
from cardjax.games.gongzhu import worlds as szw
from cardjax.agents.scrofazero import make_agent
from cardjax.games.gongzhu.env import RANK, SCORE_CARDS, SUIT, owner_from_hands, pile_scores
from cardjax.nets.policy_value import PolicyValueNet, oracle_value_fn
from cardjax.search import hidden_info as hi
from conftest import play_cards, to_numpy, tree_index

W = 9
BETA = szw.DEFAULT_BETA
TARGET_BETA = 0.1
NET = PolicyValueNet(width=32, depth=1)
C = cards.card_index

# Seat 1 holds no spade; seat 3 holds SQ, HA and the honours.
VOID_HANDS = [
    "S2 S3 S4 S5 S6 S7 S8 D2 D3 D4 D5 D6 D7",
    "H2 H3 H4 H5 H6 H7 H8 H9 H10 D8 D9 D10 C2",
    "S9 S10 SJ C3 C4 C5 C6 C7 C8 C9 C10 CJ CQ",
    "SQ SK SA HJ HQ HK HA DJ DQ DK DA CK CA",
]
# Seat 0 leads S8 (rank 8: important), seat 1 discards H10 (void in spades shown); seat 2 decides.
VOID_PLAY = "S8 H10"


@pytest.fixture(scope="module")
def params():
    return jax.jit(NET.init)(jax.random.PRNGKey(0), jnp.zeros(434))


@pytest.fixture(scope="module")
def sample(gongzhu):
    """``sample(mode)(key, state, seat)`` -> Worlds, jitted once per mode."""
    fns = {m: jax.jit(functools.partial(szw.sample_worlds, gongzhu, num_worlds=W, sampling=m))
           for m in szw.SAMPLING}
    return fns.__getitem__


@pytest.fixture(scope="module")
def slices(gongzhu):
    """``slices(world, seat, q_table, params, mode)`` -> ``(slices, slices without
    skip_discards, iec_log_weight)`` with the q_fn picked by ``mode`` (0: a fixed table
    ``q_table``; 1: the random net, logits / TARGET_BETA; 2: the random net blind to low cards,
    see test_low_card_swap_is_irrelevant).  One compile."""
    keep = np.ones(434, np.float32)
    for row in range(4):  # the four hand blocks of the oracle input
        keep[row * 52 + np.flatnonzero(RANK < szw.MIN_IMPORTANT_RANK)] = 0.0
    low = jnp.asarray(RANK < szw.MIN_IMPORTANT_RANK)

    def q_fn(q_table, params, mode):
        def q(obs):
            plain = NET.apply(params, obs)[0] / TARGET_BETA
            blind = NET.apply(params, obs * keep)[0] / TARGET_BETA - jnp.where(low, 1e4, 0.0)
            return jnp.where(mode == 0, q_table, jnp.where(mode == 1, plain, blind))
        return q

    @jax.jit
    def run(world, seat, q_table, params, mode):
        q = q_fn(q_table, params, mode)
        return (szw.iec_slices(gongzhu, q, world, seat, BETA),
                szw.iec_slices(gongzhu, q, world, seat, BETA, skip_discards=False),
                szw.iec_log_weight(gongzhu, q, world, seat, BETA))

    return run


@pytest.fixture(scope="module")
def void_state(gz):
    s = gz.env.init_from_deal(owner_from_hands(VOID_HANDS), 0)
    s = play_cards(gz.env, s, VOID_PLAY, step=gz.step)[-1]
    assert int(s.current_player) == 2 and bool(s.voids[1, 0])
    return to_numpy(s)


@pytest.fixture(scope="module")
def positions(gz_games):
    """Random positions (game, plays so far) with their mover as the deciding seat."""
    _, states, _ = gz_games
    picks = [(0, 3), (1, 9), (2, 17), (3, 22), (4, 30), (5, 36), (6, 41), (7, 47), (0, 26)]
    return [tree_index(states, (g, t - 1)) for g, t in picks]


def check_world(s, w, seat):
    """``w`` agrees with all that ``seat`` saw in ``s``."""
    for f in s.__dataclass_fields__:
        if f not in ("_owner", "legal_action_mask"):
            np.testing.assert_array_equal(getattr(w, f), getattr(s, f), err_msg=f)
    old, new = s._owner.astype(int), w._owner.astype(int)
    unplayed = s.played_by < 0
    known = ~unplayed | (old == seat) | s.exposed
    np.testing.assert_array_equal(new[known], old[known])  # own hand, played cards
    for q in range(4):
        got = unplayed & (new == q)
        assert got.sum() == np.sum(unplayed & (old == q)), f"hand size of seat {q}"
        assert not s.voids[q][SUIT[got]].any(), f"seat {q} got a suit it showed void in"
    if int(s.current_player) == seat and not s.terminated:
        np.testing.assert_array_equal(w.legal_action_mask, s.legal_action_mask)


# ----------------------------------------------------------------------------- worlds
@pytest.mark.parametrize("mode", szw.SAMPLING)
def test_worlds_agree_with_what_the_seat_saw(sample, positions, void_state, mode):
    changed = 0
    for i, s in enumerate(positions + [void_state]):
        s = to_numpy(s)
        seat = int(s.current_player)
        ws = to_numpy(sample(mode)(jax.random.PRNGKey(i), s, seat))
        assert ws.valid.shape == (W,) and ws.states._owner.shape == (W, 52)
        np.testing.assert_allclose(ws.prior[ws.valid].sum(), 1.0, rtol=1e-5)
        assert np.all(ws.prior[~ws.valid] == 0)
        for w in range(W):
            check_world(s, tree_index(ws.states, w), seat)
            changed += not np.array_equal(ws.states._owner[w], s._owner)
    assert changed > W * len(positions) // 2


def _expected_strata(s, seat):
    hidden = (s.played_by < 0) & (s._owner != seat) & ~s.exposed
    keys = [c for c in szw.KEY_CARDS if hidden[c]][:2]
    others = [(seat + i) % 4 for i in (1, 2, 3)]
    return keys, others


def test_strata_place_the_key_cards(sample, positions):
    seen_counts = set()
    for i, s in enumerate(positions):
        s = to_numpy(s)
        seat = int(s.current_player)
        ws = to_numpy(sample("stratified")(jax.random.PRNGKey(100 + i), s, seat))
        keys, others = _expected_strata(s, seat)
        t = 3 ** len(keys)
        seen_counts.add(len(keys))
        np.testing.assert_array_equal(ws.stratum, np.arange(W) % t)
        real = tuple(others.index(int(s._owner[c])) for c in keys)
        for w in range(W):
            a, b = ws.stratum[w] % 3, ws.stratum[w] // 3
            want = [others[a], others[b]][: len(keys)]
            for c, seat_c in zip(keys, want):
                assert ws.fixed[w, c] == seat_c
                if ws.valid[w]:
                    assert ws.states._owner[w, c] == seat_c, (i, w, cards.card_str(c))
                if s.voids[seat_c, SUIT[c]]:
                    assert not ws.valid[w]
            if (a, b)[: len(keys)] == real:
                assert ws.valid[w], "the real deal's stratum is always feasible"
        # equal stratum probabilities over the feasible strata
        np.testing.assert_allclose(ws.prior[ws.valid], 1.0 / ws.valid.sum(), rtol=1e-5)
    assert 2 in seen_counts


def test_infeasible_stratum_gets_weight_zero(sample, void_state, slices, params):
    """Seat 2 decides; SQ and HA are hidden from it.  Seat 1 has shown void in spades, so the
    three strata that put SQ with seat 1 are impossible: weight 0, whatever IEC says."""
    s = void_state
    ws = to_numpy(sample("stratified")(jax.random.PRNGKey(7), s, 2))
    keys, others = _expected_strata(s, 2)
    assert keys == [C("SQ"), C("HA")] and others == [3, 0, 1]
    sq_seat = np.array(others)[ws.stratum % 3]
    np.testing.assert_array_equal(ws.valid, sq_seat != 1)
    assert np.all(ws.states._owner[ws.valid, C("SQ")] == sq_seat[ws.valid])
    assert np.all(ws.states._owner[:, C("SQ")] != 1)  # the fallback placement is still legal
    np.testing.assert_allclose(ws.prior, np.where(sq_seat != 1, 1 / 6, 0.0), rtol=1e-6)
    log_iec = np.zeros(W, np.float32)
    weights = np.asarray(hi.world_weights(ws.prior, ws.valid, log_iec))
    np.testing.assert_array_equal(weights[sq_seat == 1], 0.0)
    np.testing.assert_allclose(weights.sum(), 1.0, rtol=1e-6)


def test_one_hidden_key_card_repeats_three_strata(sample, gz):
    """Seat 0 holds every key card but SQ: three strata (SQ with seat 1, 2 or 3), three worlds
    each, equal priors."""
    hands = ["HA DJ HK C10 SA SK HQ HJ DA DK DQ CA CK",
             "S2 S3 S4 S5 S6 S7 S8 S9 S10 SJ D2 D3 D4",
             "SQ H2 H3 H4 H5 H6 H7 H8 H9 H10 D5 D6 D7",
             "C2 C3 C4 C5 C6 C7 C8 C9 CJ CQ D8 D9 D10"]
    s = to_numpy(gz.env.init_from_deal(owner_from_hands(hands), 0))
    ws = to_numpy(sample("stratified")(jax.random.PRNGKey(1), s, 0))
    np.testing.assert_array_equal(ws.stratum, np.arange(W) % 3)
    assert ws.valid.all()
    np.testing.assert_array_equal(ws.states._owner[:, C("SQ")], 1 + np.arange(W) % 3)
    np.testing.assert_allclose(ws.prior, 1 / W, rtol=1e-6)


def test_fixed_sampler_constraints(gz, void_state):
    """``sample_hidden_fixed``: a fixed hidden card goes to its seat when it can; a void or a
    seat the sampler may not use (the decider) makes it infeasible, and the world is still a
    consistent deal; a fixed card the seat can see must name its known holder.  (With nothing
    fixed it is ``sample_hidden``, which is written on it: tests/unit/test_sample_hidden.py.)"""
    fixed_fn = jax.jit(gz.env.sample_hidden_fixed)
    s = void_state
    key = jax.random.PRNGKey(4)

    def run(**cards_to_seats):
        fixed = np.full(52, -1, np.int32)
        for name, seat in cards_to_seats.items():
            fixed[C(name)] = seat
        w, ok = to_numpy(fixed_fn(key, s, 2, fixed))
        check_world(s, w, 2)
        return w, bool(ok)

    w, ok = run(SQ=0, HA=1, C2=3)
    assert ok and (w._owner[[C("SQ"), C("HA"), C("C2")]] == [0, 1, 3]).all()
    assert not run(SQ=1)[1]  # seat 1 showed void in spades
    assert not run(HA=2)[1]  # the decider's own seat
    assert run(S9=2)[1]  # seat 2's own card, at seat 2
    assert not run(S9=3)[1]  # seat 2 knows S9 is its own
    assert not run(S8=1)[1] and run(S8=0)[1]  # S8 was played by seat 0


# ----------------------------------------------------------------------------- IEC
def test_averaged_input(gz, void_state):
    """Paper 8.13: the other hands are 1/3 on every card the seat cannot see, its own hand is
    exact, the rest of the input is ``observe_oracle``'s."""
    s = void_state
    for seat in range(4):
        obs = np.asarray(szw.averaged_oracle_obs(gz.env, s, seat))
        raw = np.asarray(gz.observe_oracle(s, seat))
        np.testing.assert_array_equal(obs[:52], raw[:52])
        np.testing.assert_array_equal(obs[208:], raw[208:])
        unseen = (s.played_by < 0) & (s._owner != seat)
        others = obs[52:208].reshape(3, 52)
        np.testing.assert_allclose(others[:, unseen], 1 / 3)
        np.testing.assert_array_equal(others[:, ~unseen], 0.0)  # played or its own
        # seats 0 and 1 each played one of the 39 cards they could not see, seats 2 and 3 two
        assert unseen.sum() == (38 if seat < 2 else 37)


def test_hand_computed_slice(slices, void_state, params):
    """A fixed q table: the only important play is seat 0's lead S8 (legal: its whole hand), so
    the weight is exactly exp(-beta (max over hand q - q[S8])).  Seat 1's discard H10 (rank 10)
    counts only with ``skip_discards=False``."""
    s = void_state
    rng = np.random.default_rng(0)
    q = rng.normal(0, 40, 52).astype(np.float32)
    hand0 = owner_from_hands(VOID_HANDS) == 0
    hand1 = owner_from_hands(VOID_HANDS) == 1
    # neither played card is the best of its hand
    q[C("S8")] = q[hand0 & (np.arange(52) != C("S8"))].max() - 25.0
    q[C("H10")] = q[hand1 & (np.arange(52) != C("H10"))].max() - 37.0
    want0 = -BETA * (q[hand0].max() - q[C("S8")])
    want1 = -BETA * (q[hand1].max() - q[C("H10")])
    np.testing.assert_allclose([want0, want1], [-BETA * 25, -BETA * 37], rtol=1e-5)
    sl, sl_all, lw_api = to_numpy(slices(s, 2, q, params, 0))
    np.testing.assert_array_equal(sl.important, np.arange(52) == 0)
    np.testing.assert_array_equal(sl_all.important, np.arange(52) < 2)
    assert not sl.illegal.any()
    np.testing.assert_allclose(sl.log_gamma[:2], [want0, want1], rtol=1e-5)
    # the log weight, and the weight in closed form
    lw = float(np.sum(np.where(sl.important, sl.log_gamma, 0)))
    np.testing.assert_allclose(lw_api, want0, rtol=1e-5)
    np.testing.assert_allclose(np.exp(lw), np.exp(-BETA * (q[hand0].max() - q[C("S8")])),
                               rtol=1e-5)
    # the deciding seat's own plays never count: seat 0 deciding sees only seat 1's discard
    sl0, sl0_all, _ = to_numpy(slices(s, 0, q, params, 0))
    assert not sl0.important.any()
    np.testing.assert_array_equal(sl0_all.important, np.arange(52) == 1)


def test_illegal_world_gets_weight_zero(slices, void_state, params):
    """Move S3 from seat 0 to seat 1 (and D8 back): seat 1 then discarded H10 while holding a
    spade.  The world's weight is exactly 0 although the discard is not an important slice."""
    s = void_state
    owner = s._owner.copy()
    owner[C("S3")], owner[C("D8")] = 1, 0
    bad = s.replace(_owner=owner)
    q = np.zeros(52, np.float32)
    sl, _, lw_bad = to_numpy(slices(bad, 2, q, params, 1))
    np.testing.assert_array_equal(sl.illegal, np.arange(52) == 1)
    assert not sl.important[1]  # a discard: not important, still ruled out
    _, _, lw_real = to_numpy(slices(s, 2, q, params, 1))
    assert np.isfinite(lw_real) and lw_bad == -np.inf
    weights = np.asarray(hi.world_weights(np.full(2, 0.5), np.ones(2, bool), [lw_real, lw_bad]))
    np.testing.assert_array_equal(weights, [1.0, 0.0])


def _low_swap_worlds(gz, sample, position, key):
    """A sampled world and the same world with two hidden low cards of one suit swapped
    between the two seats after the decider (or None)."""
    s = to_numpy(position)
    seat = int(s.current_player)
    ws = to_numpy(sample("uniform")(key, s, seat))
    w = tree_index(ws.states, 0)
    own = w._owner.astype(int)
    unplayed = s.played_by < 0
    a, b = (seat + 1) % 4, (seat + 2) % 4
    for x in np.flatnonzero(unplayed & (own == a) & (RANK < szw.MIN_IMPORTANT_RANK)):
        ys = np.flatnonzero(unplayed & (own == b) & (RANK < szw.MIN_IMPORTANT_RANK)
                            & (SUIT == SUIT[x]))
        if ys.size:
            swapped = w._owner.copy()
            swapped[x], swapped[ys[0]] = b, a
            return seat, (a, b), w, w.replace(_owner=swapped)
    return None


def test_low_card_swap_is_irrelevant(gz, sample, slices, positions, params):
    """Two worlds that differ by swapping two low cards (rank < 8) of one suit between seats A
    and B (both hidden from the decider).

    * Plays by the fourth seat have exactly the same correction factor: its own hand is the same
      and, in the averaged input (8.13), both cards are 1/3 in each other hand -- the seat
      cannot see them.  (With the exact hands as input they would move between rows.)
    * With a random net, plays by A and B can differ: the net reads their own hands.  So the
      weights are only nearly equal, and differ only through A's and B's plays.
    * With a random net blind to low cards in the hand blocks and ranking them below every high
      card (what a trained net does approximately, paper 8.11 and figure 3), the weights are
      exactly equal: the low cards' own plays are not important slices (8.12), the input is the
      same, and q_max is over the same high cards.
    """
    q = np.zeros(52, np.float32)
    done = 0
    for i, pos in enumerate(positions[2:7]):
        got = _low_swap_worlds(gz, sample, pos, jax.random.PRNGKey(200 + i))
        if got is None:
            continue
        seat, (a, b), w1, w2 = got
        (s1, _, _), (s2, _, _) = to_numpy(slices(w1, seat, q, params, 1)), to_numpy(
            slices(w2, seat, q, params, 1))
        assert not s1.illegal.any() and not s2.illegal.any()
        np.testing.assert_array_equal(s1.important, s2.important)
        imp = s1.important
        assert not imp[s1.active & (RANK[s1.card] < szw.MIN_IMPORTANT_RANK)].any()
        third = imp & (s1.player != a) & (s1.player != b)
        assert third.any()
        np.testing.assert_array_equal(s1.log_gamma[third], s2.log_gamma[third])
        lw1, lw2 = (np.sum(np.where(imp, x.log_gamma, 0)) for x in (s1, s2))
        ab = imp & ~third
        assert abs(lw1 - lw2) <= np.abs(s1.log_gamma[ab] - s2.log_gamma[ab]).sum() + 1e-5
        (b1, _, _), (b2, _, _) = to_numpy(slices(w1, seat, q, params, 2)), to_numpy(
            slices(w2, seat, q, params, 2))
        lb1, lb2 = (np.sum(np.where(imp, x.log_gamma, 0)) for x in (b1, b2))
        assert lb1 < -0.05  # the blind net still scores the history
        np.testing.assert_allclose(lb1, lb2, rtol=1e-5, atol=1e-6)
        done += 1
    assert done >= 3


def test_replay_reaches_the_world(gz, positions, slices, params):
    """The replayed history is the real one: the players and cards of the slices are the
    public history, and no play of the real deal is illegal."""
    q = np.zeros(52, np.float32)
    for s in positions[:4]:
        s = to_numpy(s)
        sl, _, _ = to_numpy(slices(s, int(s.current_player), q, params, 1))
        n = int(s.num_played)
        np.testing.assert_array_equal(sl.active, np.arange(52) < n)
        np.testing.assert_array_equal(sl.card[:n], s.history[:n])
        np.testing.assert_array_equal(sl.player[:n], s.played_by[s.history[:n]])
        assert not sl.illegal.any()
        assert np.all(sl.log_gamma[:n] <= 1e-6)


# ----------------------------------------------------------------------------- decide
# Seat 2 leads S2, seat 3 plays S3, seat 0 takes the trick with SA; seat 1, void in spades and
# last to play, discards: HA gives seat 0 -50 (the best), DJ gives it +100 (the worst).
DISCARD_HANDS = [
    "SA SK SQ H2 H3 D4 D5 D6 C6 C7 C8 C9 C10",
    "HA HK HQ HJ H10 H9 DJ D2 D3 C2 C3 C4 C5",
    "S2 S4 S5 S6 S7 H4 H5 D7 D8 D9 CJ CQ CK",
    "S3 S8 S9 S10 SJ H6 H7 H8 D10 DQ DK DA CA",
]
DISCARD_PLAY = "S2 S3 SA"


def hybrid_apply(params, obs):
    """A stand-in for a trained net: the random net's logits, and as value the pile-score
    margin so far of the seat's team, read from the input's collected score cards (rows in
    seat order: the seat, next, partner, last).  Through ``oracle_value_fn`` this is the margin
    value of tests/unit/test_mcts.py (a greedy value, per team): the exact child values that
    test_decide_finds_the_move_best_in_every_world checks pin this down."""
    logits, _ = NET.apply(params, obs)
    collected = obs[..., 4 * 52 + 3 * 54:].reshape(obs.shape[:-1] + (4, 16)) > 0
    piles = jnp.zeros(obs.shape[:-1] + (4, 52), bool).at[..., SCORE_CARDS].set(collected)
    p = pile_scores(piles)
    return logits, p[..., 0] + p[..., 2] - p[..., 1] - p[..., 3]


@pytest.fixture(scope="module")
def decide_fn(gongzhu):
    """``decide`` with the hybrid net, b = 10, k = 2 (one compile per (sampling, iec))."""
    @functools.partial(jax.jit, static_argnames=("sampling", "iec"))
    def run(key, state, params, sampling, iec):
        value_fn = oracle_value_fn(gongzhu, hybrid_apply, params)
        q_fn = lambda obs: hybrid_apply(params, obs)[0] / TARGET_BETA  # noqa: E731
        log_weight = szw.iec_log_weight_fn(gongzhu, q_fn) if iec else None
        return hi.decide(gongzhu, value_fn, key, state, worlds=W,
                         sample_worlds=szw.world_sampler(sampling), log_weight=log_weight,
                         b=10, k=2)
    return run


def test_decide_finds_the_move_best_in_every_world(gz, decide_fn, params):
    """Seat 1 completes a trick that seat 0 wins whatever seat 1 plays (SA on a spade lead, seat 1
    has no spade): in every world discarding HA is worth +50 to team 1 at once (the margin value
    sees the completed trick), any other heart less, DJ -100."""
    env = gz.env
    s = env.init_from_deal(owner_from_hands(DISCARD_HANDS), 2)
    s = play_cards(env, s, DISCARD_PLAY, step=gz.step)[-1]
    assert int(s.current_player) == 1 and int(np.sum(s.legal_action_mask)) == 13
    ha, dj = C("HA"), C("DJ")
    for mode, iec in (("stratified", True), ("uniform", False)):
        for r in range(2):
            a, info = to_numpy(decide_fn(jax.random.PRNGKey(r), s, params, mode, iec))
            assert int(a) == ha, (mode, iec, info["values"])
            np.testing.assert_allclose(info["child_values"][:, ha], 50.0)
            assert np.all(info["child_values"][:, dj] == -100.0)
            np.testing.assert_allclose(info["values"][ha], 50.0, rtol=1e-5)
            assert int(info["num_simulations"]) == 10 + 2 * 13
            assert np.all(info["child_visits"].sum(axis=1) == 36)
            np.testing.assert_allclose(info["weights"].sum(), 1.0, rtol=1e-5)
            legal = np.asarray(s.legal_action_mask)
            assert np.all(np.isneginf(info["values"][~legal]))
            if not iec:
                np.testing.assert_allclose(info["weights"], 1 / W, rtol=1e-5)
                np.testing.assert_array_equal(info["log_weight"], 0.0)
            else:
                assert np.isfinite(info["log_weight"][info["valid"]]).all()


def test_decide_weighting(gz, decide_fn, slices, void_state, params):
    """The combined value of an action is the weighted mean of the worlds' root values; the
    impossible strata (SQ with seat 1) get weight 0."""
    a, info = to_numpy(decide_fn(jax.random.PRNGKey(3), void_state, params, "stratified", True))
    sq_seat = np.array([3, 0, 1])[np.arange(W) % 3]
    np.testing.assert_array_equal(info["weights"][sq_seat == 1], 0.0)
    assert np.all(info["weights"][sq_seat != 1] > 0)
    lw = np.where(info["valid"], info["log_weight"], -np.inf)
    want_w = np.exp(lw - lw.max()) / np.exp(lw - lw.max()).sum()
    np.testing.assert_allclose(info["weights"], want_w, rtol=1e-5, atol=1e-7)
    # decide's q_fn is the random net's logits / TARGET_BETA: slices mode 1
    for w in (0, 4):
        world = void_state.replace(_owner=info["states"]._owner[w])
        _, _, lw_w = to_numpy(slices(world, 2, np.zeros(52, np.float32), params, 1))
        np.testing.assert_allclose(info["log_weight"][w], lw_w, rtol=1e-4, atol=1e-5)
    legal = np.asarray(void_state.legal_action_mask)
    cv = info["child_values"][:, legal]
    assert np.isfinite(cv).all()
    np.testing.assert_allclose(info["values"][legal], info["weights"] @ cv, rtol=1e-4, atol=1e-3)
    assert int(a) == np.flatnonzero(legal)[np.argmax(info["values"][legal])]


@pytest.fixture(scope="module")
def agent(gongzhu, params):
    ag = make_agent(gongzhu, hybrid_apply, params, target_beta=TARGET_BETA, b=10, k=2)
    return ag, jax.jit(jax.vmap(ag.act, (None, 0, 0)))


def test_agent_vmap_equals_loop_and_is_legal(gz, agent, decide_fn, positions, gz_games, params):
    """The vmapped agent plays, game by game, what ``decide`` (same net, options and key) plays
    on each game alone; every action is legal; a one-legal-move position returns that move."""
    ag, batch_act = agent
    assert isinstance(ag, Agent) and ag.name == "scrofazero"
    _, states, _ = gz_games
    s = gz.env.init_from_deal(owner_from_hands(DISCARD_HANDS), 2)
    discard = to_numpy(play_cards(gz.env, s, DISCARD_PLAY, step=gz.step)[-1])
    picks = [positions[1], positions[4], tree_index(states, (2, 50)), discard]
    assert int(np.sum(picks[2].legal_action_mask)) == 1
    stacked = jax.tree_util.tree_map(lambda *x: np.stack(x), *picks)
    keys = jax.random.split(jax.random.PRNGKey(11), len(picks))
    batch = np.asarray(batch_act(params, keys, stacked))
    for i, s in enumerate(picks):
        one, _ = decide_fn(keys[i], s, params, "stratified", True)
        assert int(one) == int(batch[i])
        assert bool(s.legal_action_mask[int(one)])
    assert int(batch[2]) == int(np.argmax(picks[2].legal_action_mask))
    assert int(batch[3]) == C("HA")
    # other params go through act's argument (same compiled function)
    other = jax.tree_util.tree_map(lambda x: x * 0.5, params)
    again = np.asarray(batch_act(other, keys, stacked))
    assert all(bool(s.legal_action_mask[int(a)]) for s, a in zip(picks, again))


def test_bad_options(gongzhu, params):
    with pytest.raises(ValueError):
        make_agent(gongzhu, NET.apply, params, target_beta=0.1, sampling="nope")
    with pytest.raises(ValueError):
        make_agent(gongzhu, NET.apply, params, target_beta=0.0)
