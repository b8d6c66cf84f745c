"""``sample_hidden``: a re-deal of the cards a seat has not seen, consistent with what it has.

All calls go through one vmapped, jitted ``sample_hidden`` with a fixed batch size, so the suite
compiles it once per env.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

from cardjax import cards
from conftest import play_cards, to_numpy, tree_index

N = 240  # batch size of every sample_hidden call
SUIT = np.arange(52) // 13


def _batch(state, n=N):
    return jax.tree_util.tree_map(lambda x: np.broadcast_to(np.asarray(x), (n,) + np.shape(x)), state)


def _np_mask(owner, s):
    """The follow-suit mask of the seat to act, from the hands of ``owner``."""
    p = int(s.current_player)
    hand = (owner == p) & (s.played_by < 0)
    if int(s.num_played) % 4 == 0:
        return hand
    follow = hand & (SUIT == int(s.trick[int(s.leader)]) // 13)
    return follow if follow.any() else hand


def _check_world(s, w, seat):
    """``w`` is a world ``seat`` cannot tell from ``s``."""
    for f in s.__dataclass_fields__:
        if f in ("_owner", "legal_action_mask"):
            continue
        np.testing.assert_array_equal(getattr(w, f), getattr(s, f), err_msg=f)
    old, new = s._owner.astype(int), w._owner.astype(int)
    unplayed = s.played_by < 0
    known = ~unplayed | (old == seat) | s.exposed
    np.testing.assert_array_equal(new[known], old[known])  # own hand, played and exposed cards
    assert ((new >= 0) & (new < 4)).all()
    for q in range(4):
        assert np.sum(unplayed & (new == q)) == np.sum(unplayed & (old == q)), f"seat {q} count"
        got = unplayed & (new == q)
        assert not (s.voids[q][SUIT[got]]).any(), f"seat {q} got a card of a suit it showed void in"
    if not s.terminated:
        np.testing.assert_array_equal(w.legal_action_mask[:52], _np_mask(new, w))
        if int(s.current_player) == seat:
            np.testing.assert_array_equal(w.legal_action_mask, s.legal_action_mask)
    else:
        assert w.legal_action_mask.all()


@pytest.fixture(scope="module")
def positions(gz_games):
    """N random positions (games x steps) with a sampling seat each."""
    _, states, _ = gz_games
    B, T = states.current_player.shape
    rng = np.random.default_rng(0)
    b = rng.integers(0, B, N)
    t = rng.integers(0, T, N)
    t[:B] = T - 1  # a few terminal positions too
    seat = rng.integers(0, 4, N).astype(np.int32)
    seat[B:2 * B] = states.current_player[b[B:2 * B], t[B:2 * B]]  # some where the seat acts
    pos = jax.tree_util.tree_map(lambda x: x[b, t], states)
    return pos, seat


def test_random_positions_have_voids(positions):
    pos, _ = positions
    assert pos.voids.any(axis=(1, 2)).sum() > N // 4  # the test does exercise voids


def test_consistent_with_what_the_seat_saw(gz, positions):
    pos, seat = positions
    changed = 0
    for round_ in range(2):
        keys = jax.random.split(jax.random.PRNGKey(round_), N)
        worlds = to_numpy(gz.batch_sample_hidden(keys, pos, seat))
        for i in range(N):
            s, w = tree_index(pos, i), tree_index(worlds, i)
            _check_world(s, w, int(seat[i]))
            changed += not np.array_equal(s._owner, w._owner)
    assert changed > N  # most worlds differ from the real deal


def test_voids_that_force_the_deal(gz):
    """Voids that leave one consistent deal: every sample must be the real deal.  A sampler
    without look-ahead would dead-end (e.g. give a club to seat 2, leaving seat 3 short)."""
    env = gz.env
    hands = [
        "S2 S3 S4 S5 S6 S7 S8 S9 S10 H2 H3 H4 H5",
        "SJ SQ SK SA H6 H7 H8 H9 H10 HJ HQ HK HA",
        "D2 D3 D4 D5 D6 D7 D8 D9 D10 DJ DQ DK DA",
        "C2 C3 C4 C5 C6 C7 C8 C9 C10 CJ CQ CK CA",
    ]
    s = env.init_from_deal(hands, 0)
    voids = np.zeros((4, 4), bool)
    voids[1, [2, 3]] = True  # seat 1: no diamonds, no clubs
    voids[3, [0, 1, 2]] = True  # seat 3: clubs only
    s = to_numpy(s.replace(voids=voids))
    keys = jax.random.split(jax.random.PRNGKey(5), N)
    worlds = to_numpy(gz.batch_sample_hidden(keys, _batch(s), np.zeros(N, np.int32)))
    assert (worlds._owner == s._owner).all()
    # seat 2 knows the diamonds: the clubs are still forced to seat 3, spades and hearts are
    # shared between seats 0 and 1 at random
    worlds = to_numpy(gz.batch_sample_hidden(keys, _batch(s), np.full(N, 2, np.int32)))
    for i in range(0, N, 7):
        _check_world(s, tree_index(worlds, i), 2)
    assert (worlds._owner[:, SUIT == 3] == 3).all() and (worlds._owner[:, SUIT == 2] == 2).all()
    major = SUIT <= 1
    assert set(np.unique(worlds._owner[:, major])) == {0, 1}
    assert len({w.tobytes() for w in worlds._owner}) > N // 2
    # seat 0 got the SA in about half the worlds
    assert 0.35 < np.mean(worlds._owner[:, cards.card_index("SA")] == 0) < 0.65


def _chi2(counts, probs):
    n = counts.sum()
    exp = n * probs
    return float(((counts - exp) ** 2 / exp).sum())


@pytest.mark.parametrize("plays, seat, weights", [
    (0, 0, {1: 13, 2: 13, 3: 13}),  # the deal, from seat 0
    (1, 2, {0: 12, 1: 13, 3: 13}),  # seat 0 has led a card; from seat 2
])
def test_marginals_without_voids_are_uniform(gz, plays, seat, weights):
    """With no voids a hidden card is at each other seat with probability proportional to the
    number of cards that seat holds (the uniform distribution over consistent deals)."""
    env = gz.env
    s = env.init(jax.random.PRNGKey(99))
    owner = np.asarray(s._owner)
    if plays:
        s = play_cards(env, s, [cards.card_str(int(np.flatnonzero(np.asarray(s.legal_action_mask))[0]))])[-1]
    s = to_numpy(s)
    assert not s.voids.any()
    counts = np.zeros((52, 4))
    for r in range(3):
        keys = jax.random.split(jax.random.PRNGKey(1000 + r), N)
        worlds = to_numpy(gz.batch_sample_hidden(keys, _batch(s), np.full(N, seat, np.int32)))
        for q in range(4):
            counts[:, q] += (worlds._owner == q).sum(axis=0)
    hidden = (s.played_by < 0) & (owner != seat)
    others = sorted(weights)
    # the weights are the seats' card counts
    for q in others:
        assert weights[q] == np.sum(hidden & (owner == q))
    probs = np.array([weights[q] for q in others], float)
    probs /= probs.sum()
    chi = np.array([_chi2(counts[c][others], probs) for c in np.flatnonzero(hidden)])
    assert (counts[hidden][:, seat] == 0).all()
    # chi-square with 2 degrees of freedom per card: P(> 20) ~ 5e-5
    assert chi.max() < 20, chi.max()
    assert chi.mean() < 4, chi.mean()


def test_exposed_cards_stay_with_their_holders(gz_exposure):
    env = gz_exposure.env
    rng = np.random.default_rng(3)
    owner = rng.permutation(np.repeat(np.arange(4), 13)).astype(np.int32)
    s = env.init_from_deal(owner, 0)
    # every seat exposes all it can (the mask offers the exposable cards, then done)
    while int(s.exposing) < 4:
        legal = np.flatnonzero(np.asarray(s.legal_action_mask))
        s = gz_exposure.step(s, np.int32(legal[0]))
    assert np.asarray(s.exposed).sum() == 4
    for _ in range(9):  # a few plays
        legal = np.flatnonzero(np.asarray(s.legal_action_mask))
        s = gz_exposure.step(s, np.int32(legal[-1]))
    s = to_numpy(s)
    for seat in range(4):
        worlds = to_numpy(gz_exposure.batch_sample_hidden(
            jax.random.split(jax.random.PRNGKey(seat), N), _batch(s), np.full(N, seat, np.int32)))
        exp = np.flatnonzero(s.exposed)
        assert (worlds._owner[:, exp] == s._owner[exp]).all()
        for i in range(0, N, 11):
            _check_world(s, tree_index(worlds, i), seat)
