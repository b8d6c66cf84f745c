"""``env.hidden_cards`` and ``env.with_hidden`` (the hidden cards as kinds and places, for
card-location inference) on random positions: the true placement is a world and rebuilds the
state, every world drawn is a state the seat cannot tell apart, and the information set's size
agrees with an enumeration of the deals on endgames."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardjax.inference import worlds as W
import conftest

GAMES = [("gongzhu", {}), ("doudizhu", {}), ("doudizhu", {"bidding": True}), ("tractor", {})]


@pytest.fixture(scope="module", params=GAMES, ids=lambda g: g[0] + "".join(f"-{k}" for k in g[1]))
def game(request):
    c = conftest.get_compiled(request.param[0], **request.param[1])
    env = c.env
    sp = W.space(*env.hidden_space)
    # the session's playout of BATCH games (one compiled program for every test file); the
    # positions are from the first 6
    first, states, _ = c.batch_rollout(jax.random.split(jax.random.PRNGKey(7), conftest.BATCH))
    lengths = np.asarray(jnp.argmax(states.terminated, axis=1))
    positions = [conftest.tree_index(conftest.tree_index(states, g), int(t))
                 for g in range(6) for t in np.linspace(0, lengths[g] - 1, 5).astype(int)]
    hidden = jax.jit(env.hidden_cards)
    rebuild = jax.jit(env.with_hidden)

    @jax.jit
    def uniform_worlds(key, state, seat):
        h = env.hidden_cards(state, seat)
        t = W.hidden_tables(sp, h)
        counts = jax.vmap(lambda k: W.sample(sp, t, k, h.capacity))(jax.random.split(key, 8))
        size = W.log_partition(sp, t, h.capacity)
        truth = W.log_prob(sp, t, h.truth, h.capacity)
        return jax.vmap(lambda n: env.with_hidden(state, seat, n))(counts), counts, size, truth

    return c, sp, positions, hidden, rebuild, uniform_worlds


def test_the_truth_is_a_world_and_rebuilds_the_state(game):
    c, sp, positions, hidden, rebuild, _ = game
    for s in positions:
        for seat in range(c.env.num_players):
            h = hidden(s, seat)
            truth = np.asarray(h.truth)
            np.testing.assert_array_equal(truth.sum(1), np.asarray(h.copies))
            np.testing.assert_array_equal(truth.sum(0), np.asarray(h.capacity))
            assert not truth[~np.asarray(h.allowed)].any()
            back = rebuild(s, seat, h.truth)
            for a, b in zip(jax.tree_util.tree_leaves(back), jax.tree_util.tree_leaves(s)):
                np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_drawn_worlds_are_states_the_seat_cannot_tell_apart(game):
    c, sp, positions, hidden, rebuild, uniform_worlds = game
    moved = False
    for i, s in enumerate(positions[::2]):
        seat = i % c.env.num_players
        worlds, counts, log_size, log_p_truth = uniform_worlds(jax.random.PRNGKey(i), s, seat)
        # uniform over the set: the true world has probability 1 / size (its TSSR is 1)
        assert float(log_p_truth) == pytest.approx(-float(log_size), abs=1e-3)
        mine = np.asarray(c.observe(s, seat))
        for w in range(8):
            world = conftest.tree_index(worlds, w)
            np.testing.assert_array_equal(np.asarray(c.observe(world, seat)), mine)
            h = hidden(world, seat)  # the world's own hidden cards are the drawn ones
            np.testing.assert_array_equal(np.asarray(h.truth), np.asarray(counts[w]))
            legal = np.asarray(c.legal_action_mask(world))
            if int(s.current_player) == seat:  # the seat's own choices do not change
                np.testing.assert_array_equal(legal, np.asarray(c.legal_action_mask(s)))
            moved |= not np.array_equal(np.asarray(counts[w]), np.asarray(hidden(s, seat).truth))
    assert moved


def _count_deals(h) -> int:
    """The deals of the hidden cards to the places, enumerated (few cards only): every
    assignment of the cards to places, as NumPy arrays, kept when it respects ``allowed``,
    ``capacity`` and ``least``, counted once per placement of the kinds (copies alike)."""
    copies, allowed, capacity = (np.asarray(x) for x in (h.copies, h.allowed, h.capacity))
    least = np.zeros(len(copies), int) if h.least is None else np.asarray(h.least)
    group = np.zeros(len(capacity), bool) if h.group is None else np.asarray(h.group)
    cards = np.array([k for k in range(len(copies)) for _ in range(copies[k])], int)
    if len(cards) > 9:
        return -1
    n, P = len(cards), len(capacity)
    places = np.indices((P,) * n).reshape(n, P ** n).T  # [assignments, cards]: every one
    where = places[:, :, None] == np.arange(len(capacity))  # [assignments, cards, places]
    ok = allowed[cards[None, :], places].all(1) & (where.sum(1) == capacity).all(1)
    counts = np.einsum("ck,acp->akp", np.eye(len(copies), dtype=int)[cards], where[ok])
    counts = counts[(counts[:, :, group].sum(-1) >= least).all(1)]  # [deals, kinds, places]
    return len(np.unique(counts.reshape(len(counts), -1), axis=0))


def test_the_information_set_size_is_the_number_of_deals(game):
    c, sp, positions, hidden, _, uniform_worlds = game
    checked = 0
    for s in positions:
        for seat in range(c.env.num_players):
            h = hidden(s, seat)
            n = _count_deals(h)
            if n < 0:
                continue
            log_size = float(uniform_worlds(jax.random.PRNGKey(0), s, seat)[2])
            assert np.exp(log_size) == pytest.approx(n, rel=1e-4)
            checked += 1
    assert checked >= 5


def test_sample_hidden_worlds_are_in_the_set(game):
    """``sample_hidden``'s worlds are worlds of ``hidden_cards``'s set (same constraints)."""
    c, sp, positions, hidden, _, _ = game
    env = c.env

    @jax.jit
    def log_probs(key, state, seat):
        t = W.hidden_tables(sp, env.hidden_cards(state, seat))
        worlds = jax.vmap(lambda k: env.sample_hidden(k, state, seat))(jax.random.split(key, 4))
        truth = jax.vmap(lambda w: env.hidden_cards(w, seat).truth)(worlds)
        cap = env.hidden_cards(state, seat).capacity
        return jax.vmap(lambda n: W.log_prob(sp, t, n, cap))(truth)

    for i, s in enumerate(positions[1::3]):
        h = hidden(s, i % c.env.num_players)
        if h.described is not None and not bool(h.described):
            continue
        assert np.isfinite(np.asarray(log_probs(jax.random.PRNGKey(i), s, i % c.env.num_players))).all()


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(position=st.integers(0, 29), seat=st.integers(0, 3), seed=st.integers(0, 2**31 - 1))
def test_worlds_drawn_from_any_prediction_respect_what_the_seat_knows(game, position, seat, seed):
    """Worlds drawn in proportion to an arbitrary per-card prediction (a stand-in for a network)
    are states the seat cannot tell from the true one."""
    c, sp, positions, _, _, _ = game
    env = c.env
    seat = seat % env.num_players
    s = positions[position % len(positions)]
    like = jax.eval_shape(lambda: env.hidden_cards(s, seat).allowed)
    log_q = jax.random.normal(jax.random.PRNGKey(seed), like.shape) * 2.0
    worlds = _draw(env)(jax.random.PRNGKey(seed), s, seat, log_q)
    mine = np.asarray(c.observe(s, seat))
    for w in range(4):
        np.testing.assert_array_equal(np.asarray(c.observe(conftest.tree_index(worlds, w), seat)),
                                      mine)


_DRAW: dict = {}


def _draw(env):
    if repr(env) not in _DRAW:
        sample = W.sampler(env, lambda params, state, seat: params)
        _DRAW[repr(env)] = jax.jit(lambda key, s, seat, lq: sample(key, s, seat, 4, lq))
    return _DRAW[repr(env)]


@pytest.fixture(scope="module")
def chaodi():
    """Tractor positions after a chaodi took a seat's burial over (random play; found by
    search): the seat knows its buried cards are with the takers or in the kitty."""
    c = conftest.get_compiled("tractor")
    # games 8-15 of the 64 the search played (the session's playout of BATCH games): 10 and 13
    keys = jax.random.split(jax.random.PRNGKey(11), 64)[8:8 + conftest.BATCH]
    _, states, _ = c.batch_rollout(keys)
    hid = jax.jit(c.env.hidden_cards)
    found = []
    for g, seat in ((10 - 8, 0), (13 - 8, 1), (10 - 8, 2)):
        for t in range(0, 240, 6):
            s = conftest.tree_index(conftest.tree_index(states, g), t)
            h = hid(s, seat)
            if int(np.asarray(h.least).sum()) > 0:
                found.append((s, seat, h))
    return c, found, hid


def test_a_chaodi_keeps_the_buried_cards_with_the_takers_or_the_kitty(chaodi):
    c, found, hid = chaodi
    assert len(found) >= 6
    env = c.env
    sp = W.space(*env.hidden_space)
    sample = jax.jit(W.sampler(env), static_argnums=3)
    sizes = jax.jit(lambda h: (W.log_size(sp, h.copies, h.allowed, h.capacity),
                               W.log_size(sp, h.copies, h.allowed, h.capacity, h.least, h.group)))
    for i, (s, seat, h) in enumerate(found[::2]):
        group, least = np.asarray(h.group), np.asarray(h.least)
        assert group[:3].any() and (np.asarray(h.truth)[:, group].sum(1) >= least).all()
        worlds = sample(jax.random.PRNGKey(i), s, seat, 8)
        for w in range(8):
            world = conftest.tree_index(worlds, w)
            counts = np.asarray(hid(world, seat).truth)
            assert (counts[:, group].sum(1) >= least).all()
            np.testing.assert_array_equal(np.asarray(c.observe(world, seat)),
                                          np.asarray(c.observe(s, seat)))
        # without the constraint the set is larger: it does bind
        free, bound = sizes(h)
        assert float(bound) < float(free)
