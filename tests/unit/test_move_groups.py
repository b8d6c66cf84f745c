"""cardjax.search.move_groups: Dou Dizhu's moves with kickers chosen in two tree levels."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax import agents, legal_words
from cardjax.games.doudizhu import moves as moves
from cardjax.search import move_groups, uct

from cardjax.search import uct_reference
from conftest import random_rollout


@pytest.fixture(scope="module")
def env():
    return cardjax.make("doudizhu")


@pytest.fixture(scope="module")
def grouped(env):
    return move_groups.Grouped(env)


def test_the_groups_are_the_main_cards_of_moves_with_kickers():
    g = moves.KICKER_GROUP
    assert g.max() + 1 == 120  # 13 + 13 trio ranks, 38 + 30 airplanes, 13 + 13 fours
    members = [moves.ACTIONS[i] for i in np.flatnonzero(g == g[moves.action_index("3334")])]
    assert members == ["333" + k for k in "456789TJQKA2BR"]
    assert g[moves.action_index("333")] == -1 and g[moves.action_index("34567")] == -1
    assert g[moves.action_index("33334J")] == g[moves.action_index("333345")] != g[moves.action_index("44443J")]


def test_a_group_is_legal_iff_one_of_its_moves_is(env, grouped):
    first, states, _ = jax.jit(lambda k: random_rollout(env, 40, k))(jax.random.PRNGKey(4))
    states = jax.tree.map(lambda a, b: jnp.concatenate([a[None], b[::4]]), first, states)
    wrapped = jax.vmap(grouped.wrap)(states)
    inner = np.asarray(jax.vmap(lambda s: legal_words.unpack(env.legal_words(s), env.num_actions))(states))
    outer = np.asarray(jax.vmap(lambda s: legal_words.unpack(grouped.legal_words(s), grouped.num_actions))(wrapped))
    g = env.move_groups()
    for m, o in zip(inner, outer):
        some = np.zeros(grouped.num_groups, bool)
        np.logical_or.at(some, g[g >= 0], m[g >= 0])
        np.testing.assert_array_equal(o[:env.num_actions], m & (g < 0))
        np.testing.assert_array_equal(o[env.num_actions:], some)
    # choosing a group: the same seat still to move, no reward, then only that group's moves
    i = int(np.flatnonzero(outer[:, env.num_actions:].any(axis=1))[0])
    s = jax.tree.map(lambda x: x[i], wrapped)
    group = int(np.flatnonzero(outer[i][env.num_actions:])[0])
    nxt = grouped.step(s, env.num_actions + group)
    assert int(nxt.current_player) == int(s.current_player) and not np.any(np.asarray(nxt.rewards))
    after = np.asarray(legal_words.unpack(grouped.legal_words(nxt), grouped.num_actions))
    np.testing.assert_array_equal(after[:env.num_actions], inner[i] & (g == group))
    assert not after[env.num_actions:].any()
    assert int(grouped.random_action(jax.random.PRNGKey(0), nxt)) in np.flatnonzero(after)


def _endgame(env, hands):
    """Landlord (seat 0) to lead with ``hands`` (rank strings) left."""
    s = env.init(jax.random.PRNGKey(0))
    counts = jnp.asarray(np.stack([moves.hand_counts(h) for h in hands]), s._hands.dtype)
    return s.replace(_hands=counts, cards_left=jnp.sum(counts, axis=1).astype(s.cards_left.dtype),
                     current_player=jnp.int32(0))


def test_grouped_cheating_uct_plays_the_only_winning_kicker_move(env, grouped):
    # 3334 wins at once; 333 loses to KKK, a solo to the 2, 33 to KK
    state = _endgame(env, ["3334", "KKK", "2"])
    cfg = uct.cheat_uct(trees=1, iterations=30)
    key = jax.random.PRNGKey(3)
    search = jax.jit(lambda s, k: move_groups.search(env, cfg, s, k))
    move, result = search(state, key)
    assert env.action_to_str(int(move)) == "3334"
    # the root offers 3, 4, 33, 333 and the group "333 + solo" (not 3334 itself)
    root = np.flatnonzero(np.asarray(result.visits))
    assert [grouped.env.action_to_str(a) for a in root if a < env.num_actions] == ["3", "4", "33", "333"]
    assert [a - env.num_actions for a in root if a >= env.num_actions] == [
        moves.KICKER_GROUP[moves.action_index("3334")]]
    # the same tree as the plain Python search of the grouped game
    want_visits, (want,) = uct_reference.search(grouped, cfg, grouped.wrap(state), key)
    np.testing.assert_array_equal(np.asarray(result.visits), want_visits)
    n = len(want)
    np.testing.assert_array_equal(np.asarray(result.trees.parent[0, :n]), [x.parent for x in want])
    np.testing.assert_array_equal(np.asarray(result.trees.action[0, :n]), [x.action for x in want])
    np.testing.assert_array_equal(np.asarray(result.trees.visits[0, :n]), [x.visits for x in want])


def test_group_moves_is_an_agent_setting(env):
    assert agents.get(env, "ismcts", iterations=5, group_moves="true").name == "ismcts"
    with pytest.raises(ValueError, match="no moves with kickers"):
        agents.get(cardjax.make("mini_doudizhu"), "det_uct", group_moves=True)
    with pytest.raises(ValueError, match="true or false"):
        agents.get(env, "ismcts", group_moves="sometimes")
    with pytest.raises(ValueError, match="int\\[27472\\]"):
        move_groups.Grouped(env, np.zeros(5, np.int32))
