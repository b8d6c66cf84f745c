"""Perfect Information Monte Carlo (cardjax.search.pimc) and the ``pimc`` agent: it values the
legal moves and plays the best, finds the one winning move of an endgame, searches each world
for the answers a playout guesses, draws its worlds from the information set (uniform or by a
network), and refuses bad settings."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax import agents
from cardjax.games.doudizhu import moves as moves
from cardjax.inference import worlds as W
from cardjax.search import pimc


@pytest.fixture(scope="module")
def ddz():
    return cardjax.make("doudizhu")


def _endgame(env, hands):
    """The landlord (seat 0) to lead with ``hands`` (rank strings) left."""
    s = env.init(jax.random.PRNGKey(0))
    counts = jnp.asarray(np.stack([moves.hand_counts(h) for h in hands]), s._hands.dtype)
    return s.replace(_hands=counts, cards_left=jnp.sum(counts, axis=1).astype(s.cards_left.dtype),
                     current_player=jnp.int32(0))


def _truth(key, state, seat, n, params=None):  # a sampler that knows the hidden cards
    return jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (n,) + x.shape), state)


def test_pimc_plays_the_only_winning_move(ddz):
    # 3334 wins at once (+2); after anything else random playouts sometimes lose
    state = _endgame(ddz, ["3334", "KKK", "2"])
    cfg = pimc.Config(worlds=4, playouts=8, candidates=16)
    r = jax.jit(lambda s, k: pimc.search(ddz, cfg, s, k, sample_worlds=_truth))(
        state, jax.random.PRNGKey(1))
    assert ddz.action_to_str(int(r.action)) == "3334"
    legal = np.flatnonzero(np.asarray(state.legal_action_mask))
    n = len(legal)
    assert np.asarray(r.valid).sum() == n
    np.testing.assert_array_equal(np.asarray(r.candidates)[:n], legal)
    assert float(r.values[list(legal).index(int(r.action))]) == 2.0
    assert np.all(np.asarray(r.values)[:n] <= 2.0) and np.isnan(np.asarray(r.values)[n:]).all()


def test_a_search_in_each_world_finds_the_answer_a_playout_guesses(ddz):
    """A two-trick endgame, every hand known: the landlord holds 2 and 7, the peasants 8 and 9.
    Leading the 2 wins (nothing beats it; the 7 goes out next): +2 whatever anyone does.
    Leading the 7 loses to the best answer, the 8 of the next peasant, who is out: -2.  Random
    playouts find that answer one time in two and the 9 after a pass one time in two again, so
    they value the 7 at 1/4 x 2 + 3/4 x -2 = -1; the search of each world (``search=N``) values
    it at -2, the answer found."""
    state = _endgame(ddz, ["27", "8", "9"])

    def values(cfg):
        r = jax.jit(lambda s, k: pimc.search(ddz, cfg, s, k, sample_worlds=_truth))(
            state, jax.random.PRNGKey(1))
        n = int(np.asarray(r.valid).sum())
        return {ddz.action_to_str(int(a)): float(v)
                for a, v in zip(np.asarray(r.candidates)[:n], np.asarray(r.values)[:n])}

    assert values(pimc.Config(worlds=2, candidates=8, search=16)) == {"2": 2.0, "7": -2.0}
    guessed = values(pimc.Config(worlds=4, playouts=64, candidates=8))
    assert guessed["2"] == 2.0
    assert abs(guessed["7"] + 1.0) < 0.35  # 256 playouts: one standard error is 0.11


def test_a_players_ranking_gives_the_candidates(ddz):
    """``rank=PLAYER``: the candidates are the legal moves of that player's best Q, best first;
    with one candidate PIMC plays the player's own move, whatever the worlds say."""
    rank_fn, params = agents.load_ranking(ddz, "doudizhu-pretrained")
    player = agents.load(ddz, "doudizhu-pretrained")
    states = jax.vmap(ddz.init)(jax.random.split(jax.random.PRNGKey(7), 6))
    moves, valid = jax.jit(jax.vmap(lambda s: rank_fn(params, s, 40)))(states)
    for i in range(6):
        s = jax.tree_util.tree_map(lambda x: x[i], states)
        legal = set(np.flatnonzero(np.asarray(s.legal_action_mask)).tolist())
        ranked = np.asarray(moves[i])[np.asarray(valid[i])].tolist()
        assert len(ranked) == min(40, len(legal)) == len(set(ranked)) and set(ranked) <= legal
    cfg = pimc.Config(worlds=2, candidates=1)
    ours = jax.jit(jax.vmap(lambda s, k: pimc.search(
        ddz, cfg, s, k, sample_worlds=W.sampler(ddz), rank_fn=rank_fn, rank_params=params).action))(
        states, jax.random.split(jax.random.PRNGKey(8), 6))
    theirs = jax.jit(jax.vmap(player.act, in_axes=(None, None, 0)))(player.params, None, states)
    best = np.asarray(moves[:, 0]).tolist()
    assert np.asarray(ours).tolist() == np.asarray(theirs).tolist() == best
    with pytest.raises(ValueError, match="rank: .* ranks no moves"):
        agents.load_ranking(cardjax.make("gongzhu"), "scrofazero-pretrained")


def test_the_agent_plays_legal_moves_with_and_without_worlds_it_can_describe():
    for game in ("gongzhu", "mini_doudizhu"):  # exact worlds; env.sample_hidden
        env = cardjax.make(game)
        a = agents.get(env, "pimc", worlds=3, candidates=8)
        states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(2), 4))
        acts = jax.jit(jax.vmap(a.act, in_axes=(None, 0, 0)))(
            a.params, jax.random.split(jax.random.PRNGKey(3), 4), states)
        mask = np.asarray(states.legal_action_mask)
        assert mask[np.arange(4), np.asarray(acts)].all()


def test_network_worlds_keep_what_the_seat_knows():
    """Worlds drawn in proportion to an (untrained) network's predictions are states the seat
    cannot tell from the true one."""
    from cardjax.nets.card_locations.network import from_config
    from cardjax.train.inference import Config, make_trainer

    env = cardjax.make("gongzhu")
    cfg = Config(width=16, depth=1)
    params = make_trainer(cfg, env).init(jax.random.PRNGKey(0)).params
    log_q = from_config(cfg.to_dict(), env)
    sample = W.sampler(env, log_q)
    s = env.init(jax.random.PRNGKey(4))
    for a in range(9):  # two tricks and a card in
        s = env.step(s, int(np.flatnonzero(np.asarray(s.legal_action_mask))[0]))
    seat = int(s.current_player)
    worlds = jax.jit(lambda k, s: sample(k, s, seat, 6, params))(jax.random.PRNGKey(5), s)
    # the same network as ScrofaZero's fifth way of sampling (beside US and SS): equal priors
    from cardjax.games.gongzhu import worlds as szw

    ws = jax.jit(lambda k, s: szw.network_sampler(log_q, params)(env, k, s, seat, 6))(
        jax.random.PRNGKey(5), s)
    assert np.asarray(ws.valid).all() and np.allclose(np.asarray(ws.prior), 1 / 6)
    for w in range(6):
        for got in (worlds, ws.states):
            world = jax.tree_util.tree_map(lambda x: x[w], got)
            np.testing.assert_array_equal(np.asarray(env.observe(world, seat)),
                                          np.asarray(env.observe(s, seat)))


@pytest.mark.parametrize("options, message", [
    (dict(worlds=0), "worlds must be at least 1"),
    (dict(depth=3), "unknown setting"),
    (dict(playout="ismcts"), "not a search player"),
    (dict(inference="/nonexistent/run"), "not a run directory"),
    (dict(search=-1), "search must be 0"),
    (dict(search=8, k=-1), "k .* must be >= 0"),
])
def test_bad_settings_are_refused(ddz, options, message):
    with pytest.raises(ValueError, match=message):
        agents.get(ddz, "pimc", **options)


def test_a_game_without_hidden_cards_has_no_exact_worlds():
    with pytest.raises(ValueError, match="sample_hidden"):
        W.sampler(cardjax.make("mini_doudizhu"))


def test_the_oracle_player_searches_the_true_state_only(ddz):
    """``inference="oracle"`` (a cheating ceiling for measurements): every world is the state."""
    a = agents.get(ddz, "pimc", inference="oracle", worlds=2, playouts=8, candidates=16)
    assert a.name == "pimc+oracle"
    state = _endgame(ddz, ["3334", "KKK", "2"])
    assert ddz.action_to_str(int(jax.jit(a.act)(a.params, jax.random.PRNGKey(1), state))) == "3334"


def test_ties_are_broken_at_random(ddz):
    # K then K, or KK at once: the landlord wins either way (+2), so both moves tie
    state = _endgame(ddz, ["KK", "3", "4"])
    cfg = pimc.Config(worlds=2, playouts=2, candidates=8)
    run = jax.jit(jax.vmap(lambda k: pimc.search(ddz, cfg, state, k, sample_worlds=_truth)))
    r = run(jax.random.split(jax.random.PRNGKey(0), 32))
    n = int(np.asarray(r.valid[0]).sum())
    assert n == 2 and np.allclose(np.asarray(r.values)[:, :n], 2.0)
    assert len(set(np.asarray(r.action).tolist())) == 2


def test_a_value_network_can_replace_the_playouts(ddz):
    """``value_fn`` values the position after each move (here a network that knows nothing,
    0 for both teams): only the move that ends the game at once scores."""
    state = _endgame(ddz, ["3334", "KKK", "2"])
    cfg = pimc.Config(worlds=2, playouts=1, candidates=16)
    r = jax.jit(lambda s, k: pimc.search(ddz, cfg, s, k, sample_worlds=_truth,
                                         value_fn=lambda p, s: jnp.zeros(2)))(
        state, jax.random.PRNGKey(1))
    assert ddz.action_to_str(int(r.action)) == "3334" and float(jnp.nanmax(r.values)) == 2.0
    n = int(np.asarray(r.valid).sum())
    assert sorted(np.asarray(r.values)[:n].tolist())[:-1] == [0.0] * (n - 1)
    with pytest.raises(ValueError, match="not both"):
        agents.get(ddz, "pimc", playout="rule", value="/some/run")
    # a shipped player's Q values the positions by its name (traced here, not compiled)
    a = agents.get(ddz, "pimc", value="doudizhu-pretrained", worlds=2, candidates=4, search=2)
    shape = jax.eval_shape(a.act, a.params, jax.random.PRNGKey(0), state)
    assert shape.shape == () and jnp.issubdtype(shape.dtype, jnp.integer)
