"""cardjax.search.uct: cheating, determinized and information-set UCT against a plain Python
implementation, the exact Mini Dou Di Zhu solver, and their invariants."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax import agents, legal_words
from cardjax.games.mini_doudizhu import solver as solver
from cardjax.search import uct

from cardjax.search import uct_reference

CONFIGS = {
    "cheat": uct.cheat_uct(trees=2, iterations=12),
    "det": uct.det_uct(trees=2, iterations=12),
    "ismcts": uct.ismcts(iterations=24),
}


@pytest.fixture(scope="module")
def mini():
    return cardjax.make("mini_doudizhu")


@pytest.fixture(scope="module")
def gongzhu():
    return cardjax.make("gongzhu")


_SEARCHES = {}


def _search(env, cfg):
    """One compiled search per (env, config), shared by the tests."""
    if (env, cfg) not in _SEARCHES:
        _SEARCHES[env, cfg] = jax.jit(lambda s, k: uct.search(env, cfg, s, k))
    return _SEARCHES[env, cfg]


def _midgame(env, seed, moves):
    s = env.init(jax.random.PRNGKey(seed))
    for i in range(moves):
        s = env.step(s, env.random_action(jax.random.PRNGKey(100 + i), s))
    assert not bool(s.terminated)
    return s


@pytest.mark.parametrize("game,name", [("mini", "cheat"), ("mini", "det"), ("mini", "ismcts"),
                                       ("gongzhu", "ismcts")])
def test_batched_search_builds_the_reference_trees(request, name, game):
    env = request.getfixturevalue(game)
    cfg = CONFIGS[name]
    if game == "gongzhu":
        cfg = cfg._replace(utility="score", k=30.0, iterations=12)  # eager Gongzhu is slow
    state = _midgame(env, 3, 4 if game == "mini" else 40)
    key = jax.random.PRNGKey(7)
    got = _search(env, cfg)(state, key)
    want_visits, want_trees = uct_reference.search(env, cfg, state, key)
    np.testing.assert_array_equal(np.asarray(got.visits), want_visits)
    for t, nodes in enumerate(want_trees):
        n = len(nodes)
        assert int(got.trees.num_nodes[t]) == n
        np.testing.assert_array_equal(np.asarray(got.trees.parent[t, :n]), [x.parent for x in nodes])
        np.testing.assert_array_equal(np.asarray(got.trees.action[t, :n]), [x.action for x in nodes])
        np.testing.assert_array_equal(np.asarray(got.trees.visits[t, :n]), [x.visits for x in nodes])
        np.testing.assert_array_equal(np.asarray(got.trees.avail[t, 1:n]), [x.avail for x in nodes[1:]])
        np.testing.assert_allclose(np.asarray(got.trees.value_sum[t, :n]),
                                   np.stack([x.value for x in nodes]), rtol=1e-5, atol=1e-3)


def test_counts_add_up(mini):
    cfg = CONFIGS["ismcts"]  # compiled once for the reference test
    r = _search(mini, cfg)(_midgame(mini, 5, 2), jax.random.PRNGKey(1))
    t = jax.tree_util.tree_map(lambda x: np.asarray(x[0]), r.trees)
    n = int(t.num_nodes)
    assert t.visits[0] == cfg.iterations == r.visits.sum()
    kids = np.zeros(n, np.int64)
    np.add.at(kids, t.parent[1:n], t.visits[1:n])
    assert (kids <= t.visits[:n]).all() and kids[0] == t.visits[0]  # the root never ends a walk here
    assert (t.visits[1:n] >= 1).all() and (t.avail[1:n] >= t.visits[1:n]).all()
    assert (t.parent[n:] == -1).all() and (t.visits[n:] == 0).all()
    # availability: a node is available at most as often as its parent was walked through
    assert (t.avail[1:n] <= t.visits[t.parent[1:n]]).all()


def test_ismcts_walks_only_actions_legal_in_its_world():
    # an illegal action would end the game with a penalty of a million: no iteration may see one
    env = cardjax.make("mini_doudizhu")
    env.illegal_penalty = 1e6
    cfg = uct.ismcts(iterations=400, utility="score")
    r = jax.jit(lambda s, k: uct.search(env, cfg, s, k))(_midgame(env, 8, 3), jax.random.PRNGKey(2))
    n = int(r.trees.num_nodes[0])
    values = np.asarray(r.trees.value_sum[0, :n]) / np.asarray(r.trees.visits[0, :n])[:, None]
    assert np.abs(values).max() <= 16  # Mini Dou Di Zhu's largest score, far below the penalty


class _Clairvoyant:
    """The env with ``sample_hidden`` returning the true state."""

    def __init__(self, env):
        self.env = env

    def __getattr__(self, name):
        return getattr(self.env, name)

    def sample_hidden(self, key, state, seat):
        return state


def test_determinized_uct_on_the_true_world_is_cheating_uct(mini):
    state, key = _midgame(mini, 4, 2), jax.random.PRNGKey(9)
    clair = _Clairvoyant(mini)
    det = jax.jit(lambda s, k: uct.search(clair, CONFIGS["det"], s, k))(state, key)
    cheat = _search(mini, CONFIGS["cheat"])(state, key)
    np.testing.assert_array_equal(np.asarray(det.visits), np.asarray(cheat.visits))
    np.testing.assert_array_equal(np.asarray(det.trees.action), np.asarray(cheat.trees.action))


def _decisive_endgames(env, count):
    """Won positions (hand to move, other hand, move to beat) where some legal move loses."""
    found, seed = [], 0
    while len(found) < count:
        s = env.init(jax.random.PRNGKey(seed))
        for i in range(40):
            if bool(s.terminated):
                break
            hs = np.asarray(s._hands)
            p = int(s.current_player)
            if hs.sum() <= 9:
                best = solver.optimal_actions(hs[p], hs[1 - p], int(s.to_beat))
                legal = np.flatnonzero(np.asarray(s.legal_action_mask))
                if solver.position_wins(hs[p], hs[1 - p], int(s.to_beat)) and len(best) < len(legal):
                    found.append((s, set(best)))
                    break
            s = env.step(s, env.random_action(jax.random.PRNGKey(1000 * seed + i), s))
        seed += 1
    return found


def test_cheating_uct_finds_the_solvers_winning_moves(mini):
    search = _search(mini, uct.cheat_uct(trees=4, iterations=200))
    for j, (s, best) in enumerate(_decisive_endgames(mini, 6)):
        assert int(search(s, jax.random.PRNGKey(j)).action) in best


def test_bad_settings_and_positions_are_refused(mini):
    for bad in (dict(iterations=0), dict(iterations=-5), dict(trees=0), dict(k=-1.0),
                dict(utility="points")):
        with pytest.raises(ValueError):
            uct.ismcts(**bad) if "trees" not in bad else uct.det_uct(**bad)
    s = _midgame(mini, 1, 1)
    with pytest.raises(ValueError, match="not to move"):
        uct.search(mini, uct.ismcts(iterations=4), s, jax.random.PRNGKey(0),
                   seat=1 - int(s.current_player))
    done = s.replace(terminated=jnp.bool_(True))
    with pytest.raises(ValueError, match="finished"):
        uct.search(mini, uct.ismcts(iterations=4), done, jax.random.PRNGKey(0))
    # under jit a finished game is not checked: no visits, action 0 (documented)
    r = _search(mini, CONFIGS["ismcts"])(done, jax.random.PRNGKey(0))
    assert int(r.action) == 0 and int(np.asarray(r.visits).sum()) == 0


def test_search_players_are_agents_with_settings(mini):
    a = agents.get(mini, "ismcts", iterations=50)
    states = jax.vmap(mini.init)(jax.random.split(jax.random.PRNGKey(0), 3))
    acts = jax.jit(jax.vmap(a.act, (None, 0, 0)))(None, jax.random.split(jax.random.PRNGKey(1), 3),
                                                  states)
    assert np.asarray(states.legal_action_mask)[np.arange(3), np.asarray(acts)].all()
    assert agents.parse_spec("det_uct:trees=10,iterations=200,k=0.5,playout=random") == (
        "det_uct", dict(trees=10, iterations=200, k=0.5, playout="random"))
    for bad in ("ismcts:iterations", "ismcts:=3", "ismcts:a=1,,=2"):
        with pytest.raises(ValueError, match="bad setting"):
            agents.parse_spec(bad)
    with pytest.raises(ValueError, match="unknown setting"):
        agents.get(mini, "ismcts", depth=3)
    with pytest.raises(ValueError, match="takes no settings"):
        agents.get(mini, "random", iterations=3)
    with pytest.raises(ValueError, match="baseline"):
        agents.get(mini, "det_uct", playout="ismcts")


def test_child_table_and_node_pass_build_the_same_trees(mini, monkeypatch):
    # Dou Dizhu's many actions use the pass over the nodes; here both ways must agree exactly
    state, key, cfg = _midgame(mini, 6, 2), jax.random.PRNGKey(4), CONFIGS["ismcts"]
    with_table = _search(mini, cfg)(state, key)
    monkeypatch.setattr(uct, "TABLE_ACTIONS", 0)
    without = jax.jit(lambda s, k: uct.search(mini, cfg, s, k))(state, key)
    assert with_table.trees.children is not None and without.trees.children is None
    for field in ("parent", "action", "visits", "avail", "value_sum"):
        np.testing.assert_array_equal(np.asarray(getattr(with_table.trees, field)),
                                      np.asarray(getattr(without.trees, field)))


def test_positions_without_a_choice_are_not_searched(mini):
    """``only_choices``: a game with one legal action plays it, the others get the search's
    action; one game and a vmapped batch agree."""
    act = uct.only_choices(mini, lambda params, key, state: jnp.int32(999))
    states = jax.vmap(mini.init)(jax.random.split(jax.random.PRNGKey(0), 64))
    step = jax.jit(jax.vmap(mini.step))
    for i in range(6):  # into positions where some games must pass
        states = step(states, jax.vmap(mini.random_action)(
            jax.random.split(jax.random.PRNGKey(i), 64), states))
    count = np.asarray(jax.vmap(lambda s: legal_words.count(mini.legal_words(s)))(states))
    done = np.asarray(states.terminated)
    got = np.asarray(jax.jit(jax.vmap(act, in_axes=(None, None, 0)))(None, jax.random.PRNGKey(1), states))
    mask = np.asarray(states.legal_action_mask)
    forced = (count == 1) & ~done
    assert forced.any() and ((count > 1) & ~done).any()
    assert np.all(got[(count > 1) & ~done] == 999)
    assert np.all(mask[forced, got[forced]])
    one = jax.tree.map(lambda x: x[int(np.flatnonzero(forced)[0])], states)
    assert int(act(None, jax.random.PRNGKey(1), one)) == got[forced][0]
