"""The environment contract (shared/DESIGN.md), checked on every game in ``cardjax.GAMES``.

Only the contract is used here (init, step, observe, observe_oracle, sample_hidden, render,
num_players, num_actions, teams, auto_reset, checked), so a new game gets these tests for free.
"""

from __future__ import annotations

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax.core import PUBLIC_FIELDS
from conftest import BATCH, get_compiled, to_numpy, tree_index

GAMES = list(cardjax.GAMES)
pytestmark = pytest.mark.parametrize("name", GAMES)


def _rollout(name, seed=0):
    c = get_compiled(name)
    return c, to_numpy(c.rollout(jax.random.PRNGKey(seed)))


def _field_names(state):
    return list(state.__dataclass_fields__)


def _assert_trees_equal(a, b, what=""):
    la, ta = jax.tree_util.tree_flatten_with_path(a)
    lb, tb = jax.tree_util.tree_flatten_with_path(b)
    assert ta == tb, f"{what}: tree structures differ"
    for (path, x), (_, y) in zip(la, lb):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype, f"{what}{jax.tree_util.keystr(path)}: dtype {x.dtype} != {y.dtype}"
        np.testing.assert_array_equal(x, y, err_msg=f"{what}{jax.tree_util.keystr(path)}")


def _team_rewards_ok(env, rewards):
    """Rewards are zero-sum and equal within a team."""
    rewards = np.asarray(rewards, np.float64)
    teams = np.asarray(env.teams)
    assert abs(rewards.sum()) < 1e-3, rewards
    for t in np.unique(teams):
        r = rewards[teams == t]
        assert np.allclose(r, r[0]), (rewards, teams)


def _check_public(env, state, batch=()):
    n, a = env.num_players, env.num_actions
    expect = {
        "current_player": (np.int32, batch),
        "legal_action_mask": (np.bool_, batch + (a,)),
        "rewards": (np.float32, batch + (n,)),
        "terminated": (np.bool_, batch),
        "step_count": (np.int32, batch),
    }
    for field, (dtype, shape) in expect.items():
        if field == "legal_action_mask":  # a game may build it on demand: its shape, not values
            x = jax.eval_shape(lambda s: s.legal_action_mask, state)
        else:
            x = getattr(state, field)
        assert x.dtype == dtype, f"{field}: dtype {x.dtype}, expected {np.dtype(dtype)}"
        assert x.shape == shape, f"{field}: shape {x.shape}, expected {shape}"


# ---------------------------------------------------------------------------- basic attributes
def test_env_attributes(name):
    env = cardjax.make(name)
    assert env.num_players >= 2
    assert env.num_actions >= 2
    assert len(env.teams) == env.num_players
    assert len(set(env.teams)) == 2  # every cardjax game is two sides
    state = env.init(jax.random.PRNGKey(0))
    fields = _field_names(state)
    for f in PUBLIC_FIELDS:  # a field, or (legal_action_mask) derived from a compact one
        assert f in fields or isinstance(getattr(type(state), f, None), property), f
    hidden = [f for f in fields if f.startswith("_")]
    assert hidden, "the deal is hidden information and must live in a field starting with '_'"


def test_make_rejects_bad_arguments(name):
    with pytest.raises(ValueError, match="unknown game"):
        cardjax.make(name + "_no_such_game")
    with pytest.raises(ValueError):
        cardjax.make(name, no_such_option=1)


# ---------------------------------------------------------------------------- playouts
def test_the_shipped_contract_test_passes(name):
    """``cardjax.api_test``, the contract as users run it on a game of their own."""
    env = cardjax.make(name)
    result = cardjax.api_test(env, num=4, eager_steps=1)
    assert result["games"] == 4 and 0 < result["steps"] <= env.max_steps


def test_random_playout_to_termination(name):
    c, (first, states, actions) = _rollout(name, seed=1)
    env = c.env
    T = c.max_steps
    _check_public(env, first)
    _check_public(env, states, batch=(T,))
    term = states.terminated
    assert term[-1], "the game did not end within the step bound"
    end = int(np.argmax(term))  # index of the step that ended the game
    assert not term[:end].any() and term[end:].all()
    prev = [first] + [tree_index(states, t) for t in range(T - 1)]
    masks = np.asarray(c.legal_action_mask(states))  # [T, A], built under jit
    prev_masks = np.concatenate([np.asarray(c.legal_action_mask(first))[None], masks[:-1]])
    for t in range(T):
        s, p = tree_index(states, t), prev[t]
        _team_rewards_ok(env, s.rewards)
        assert 0 <= int(s.current_player) < env.num_players
        if t <= end:
            assert prev_masks[t][actions[t]], f"random_action chose an illegal action at {t}"
            assert int(s.step_count) == t + 1
        if s.terminated:
            assert masks[t].all(), "terminal mask must be all True"
        else:
            assert masks[t].any(), f"no legal action at step {t}"
        if t > end:  # stepping a terminated state: unchanged, rewards zero
            np.testing.assert_array_equal(s.rewards, 0.0)
            _assert_trees_equal(
                s.replace(rewards=p.rewards), p, what=f"step {t} after the end: "
            )


def test_batched_playout_and_vmap_equals_loop(name):
    c = get_compiled(name)
    keys = jax.random.split(jax.random.PRNGKey(7), BATCH)
    first, states, actions = to_numpy(c.batch_rollout(keys))
    _check_public(c.env, first, batch=(BATCH,))
    _check_public(c.env, states, batch=(BATCH, c.max_steps))
    assert states.terminated[:, -1].all()
    assert (actions >= 0).all() and (actions < c.env.num_actions).all()
    total = states.rewards.sum(axis=1)  # each game's total per seat
    for b in range(BATCH):
        _team_rewards_ok(c.env, total[b])
        single = to_numpy(c.rollout(keys[b]))
        _assert_trees_equal(tree_index((first, states, actions), b), single, what=f"game {b}: ")
    # the games differ (the batch is not one game repeated)
    assert len({tuple(a) for a in actions}) > 1


def test_terminal_step_is_noop(name):
    c, (first, states, actions) = _rollout(name, seed=2)
    last = tree_index(states, c.max_steps - 1)
    assert last.terminated
    end = int(np.argmax(states.terminated))
    final = tree_index(states, end)
    for action in (0, c.env.num_actions - 1, -1, c.env.num_actions):
        nxt = to_numpy(c.step(final, jnp.int32(action)))
        np.testing.assert_array_equal(nxt.rewards, 0.0)
        _assert_trees_equal(nxt.replace(rewards=final.rewards), final, what=f"action {action}: ")


def test_jit_equals_eager(name):
    """Replay a jitted scan's game eagerly, step by step, and compare every leaf."""
    c = get_compiled(name)
    env = c.env
    key = jax.random.PRNGKey(3)
    first, states, actions = to_numpy(c.rollout(key))
    k_init, k_play = jax.random.split(key)
    s = env.init(k_init)
    _assert_trees_equal(to_numpy(s), first, what="init: ")
    for t, k in enumerate(jax.random.split(k_play, c.max_steps)):
        _, k_step = jax.random.split(k)
        s = env.step(s, jnp.int32(actions[t]), k_step)
        _assert_trees_equal(to_numpy(s), tree_index(states, t), what=f"step {t}: ")
        if bool(s.terminated):
            break
    assert bool(s.terminated)


def test_step_is_not_retraced(name):
    env = cardjax.make(name)
    chex.clear_trace_counter()

    @jax.jit
    @chex.assert_max_traces(n=1)
    def step(state, action):
        return env.step(state, action)

    rng = np.random.default_rng(0)
    for seed in range(3):
        s = env.init(jax.random.PRNGKey(seed))
        for _ in range(40):
            legal = np.flatnonzero(np.asarray(get_compiled(name).legal_action_mask(s)))
            s = step(s, jnp.int32(rng.choice(legal)))
    # an illegal action and a terminated state go through the same trace
    s = step(s, jnp.int32(-1))
    s = step(s, jnp.int32(0))
    assert bool(s.terminated)


# ---------------------------------------------------------------------------- illegal actions
def _illegal_action(state):
    illegal = np.flatnonzero(~np.asarray(state.legal_action_mask))
    return int(illegal[0]) if illegal.size else None


def _positions_by_team(name, seed=4):
    """One non-terminal position from a random game where each team is to act."""
    c, (first, states, _) = _rollout(name, seed)
    teams = np.asarray(c.env.teams)
    found = {}
    for t in range(-1, c.max_steps):
        s = first if t < 0 else tree_index(states, t)
        if s.terminated:
            break
        team = int(teams[int(s.current_player)])
        if team not in found and _illegal_action(s) is not None:
            found[team] = s
    return c, found


def test_illegal_action_under_jit_penalises_offender(name):
    c, found = _positions_by_team(name)
    env = c.env
    teams = np.asarray(env.teams)
    assert len(found) == 2, "expected positions with illegal actions for both teams"
    for team, s in found.items():
        offender = int(s.current_player)
        for action in (_illegal_action(s), -1, env.num_actions, 10_000):
            nxt = to_numpy(c.step(s, jnp.int32(action)))
            assert nxt.terminated
            assert nxt.legal_action_mask.all()
            assert int(nxt.step_count) == int(s.step_count) + 1
            r = nxt.rewards.astype(np.float64)
            assert abs(r.sum()) < 1e-3
            assert (r[teams == teams[offender]] == -env.illegal_penalty).all(), r
            assert (r[teams != teams[offender]] > 0).all(), r
            # a terminated game stays over
            again = to_numpy(c.step(nxt, jnp.int32(0)))
            np.testing.assert_array_equal(again.rewards, 0.0)
            _assert_trees_equal(again.replace(rewards=nxt.rewards), nxt)


@pytest.mark.parametrize("how", ["make", "wrap"])
def test_checked_mode_raises_on_illegal_action(name, how):
    env = cardjax.make(name, checked=True) if how == "make" else cardjax.checked(cardjax.make(name))
    assert isinstance(env, cardjax.CheckedEnv)
    assert cardjax.checked(env) is env
    s = env.init(jax.random.PRNGKey(5))
    bad = _illegal_action(s)
    assert bad is not None
    legal = np.flatnonzero(np.asarray(s.legal_action_mask))
    with pytest.raises(ValueError) as err:
        env.step(s, bad)
    msg = str(err.value)
    assert str(bad) in msg and env.action_to_str(bad) in msg
    # the first legal actions are named; a long list is cut with a count
    for a in legal[:cardjax.core.LEGAL_SHOWN]:
        assert env.action_to_str(a) in msg, f"legal action {env.action_to_str(a)} not listed"
    if legal.size > cardjax.core.LEGAL_SHOWN:
        assert f"... ({legal.size} legal actions in all)" in msg and len(msg) < 400, msg
    for out in (-1, env.num_actions):
        with pytest.raises(ValueError, match=str(out)):
            env.step(s, out)
    with pytest.raises(ValueError):
        env.step(s, 0.5)
    batch = jax.tree_util.tree_map(lambda x: jnp.stack([x, x]), s)
    with pytest.raises(ValueError, match="batch"):
        env.step(batch, int(legal[0]))
    # a legal action is the plain env's step
    _assert_trees_equal(to_numpy(env.step(s, int(legal[0]))),
                        to_numpy(get_compiled(name).step(s, jnp.int32(legal[0]))))


# ---------------------------------------------------------------------------- auto_reset
def test_auto_reset(name):
    c = get_compiled(name)
    env = c.env
    step = jax.jit(cardjax.auto_reset(env.step, env.init))
    rng = np.random.default_rng(1)
    s = env.init(jax.random.PRNGKey(11))
    key = jax.random.PRNGKey(12)
    for t in range(c.max_steps + 1):
        key, k = jax.random.split(key)
        a = jnp.int32(rng.choice(np.flatnonzero(np.asarray(c.legal_action_mask(s)))))
        plain = to_numpy(c.step(s, a))
        nxt = to_numpy(step(s, a, k))
        if not plain.terminated:
            _assert_trees_equal(nxt, plain, what=f"step {t}: ")
            s = nxt
            continue
        # the game ended: a fresh deal that carries the final rewards
        assert nxt.terminated
        np.testing.assert_array_equal(nxt.rewards, plain.rewards)
        fresh = to_numpy(c.init(k))
        _assert_trees_equal(nxt.replace(terminated=fresh.terminated, rewards=fresh.rewards), fresh)
        break
    else:
        pytest.fail("the game did not end")
    # the next step plays in the new game, with the flags cleared
    b = int(np.flatnonzero(nxt.legal_action_mask & fresh.legal_action_mask)[0])
    after = to_numpy(step(nxt, jnp.int32(b), jax.random.PRNGKey(13)))
    assert not after.terminated
    assert int(after.step_count) == 1
    _assert_trees_equal(after, to_numpy(c.step(fresh, jnp.int32(b))))


# ---------------------------------------------------------------------------- information
def test_hidden_information_lives_in_underscore_fields(name):
    """``sample_hidden`` may change only hidden fields (and the mask of a seat that is not the
    one sampling); the sampling seat's observation is unchanged."""
    c, (first, states, _) = _rollout(name, seed=6)
    env = c.env
    end = int(np.argmax(states.terminated))
    positions = [first] + [tree_index(states, t) for t in range(0, end, max(1, end // 5))]
    changed_hidden = False
    for i, s in enumerate(positions):
        for seat in range(env.num_players):
            w = to_numpy(c.sample_hidden(jax.random.PRNGKey(100 + i), s, seat))
            for f in _field_names(s):
                if f.startswith("_"):
                    changed_hidden |= not np.array_equal(getattr(w, f), getattr(s, f))
                    continue
                if f in ("legal_action_mask", "legal_words") and seat != int(s.current_player):
                    continue
                np.testing.assert_array_equal(getattr(w, f), getattr(s, f), err_msg=f)
            np.testing.assert_array_equal(
                np.asarray(c.observe(w, seat)), np.asarray(c.observe(s, seat))
            )
    assert changed_hidden, "sample_hidden never changed the hidden state"


def test_legal_action_forms_agree(name):
    """``env.legal_words``, ``env.is_legal`` and ``env.random_action`` (which a game may read from
    a compact form) agree with ``legal_action_mask`` and with ``cardjax.random_action`` on it."""
    from cardjax import legal_words

    c, (first, states, _) = _rollout(name, seed=4)
    env = c.env
    end = int(np.argmax(states.terminated))
    every = jnp.arange(env.num_actions)
    checks = jax.jit(lambda key, s: (env.legal_words(s), env.random_action(key, s),
                                     cardjax.random_action(key, s.legal_action_mask),
                                     jax.vmap(lambda a: env.is_legal(s, a))(every)))
    for t in sorted({0, end // 3, end // 2, end, min(end + 1, c.max_steps - 1)}):
        s = tree_index(states, t)
        mask = np.asarray(s.legal_action_mask)
        for seed in range(4):
            words, a, a_mask, legal = checks(jax.random.PRNGKey(seed), s)
            np.testing.assert_array_equal(np.asarray(legal_words.unpack(words, env.num_actions)),
                                          mask)
            np.testing.assert_array_equal(np.asarray(legal), mask)
            assert int(a) == int(a_mask) and mask[int(a)]


def test_observations_and_render(name):
    c, (first, states, _) = _rollout(name, seed=8)
    env = c.env
    end = int(np.argmax(states.terminated))
    shapes = set()
    for i, s in enumerate((first, tree_index(states, end // 2), tree_index(states, end))):
        for seat in range(env.num_players):
            o = np.asarray(c.observe(s, seat))
            oo = np.asarray(c.observe_oracle(s, seat))
            assert o.ndim == 1 and oo.ndim == 1
            assert np.isfinite(o).all() and np.isfinite(oo).all()
            shapes.add((o.shape, oo.shape))
        if i < 2:  # different seats see different things (their own hands)
            assert not np.array_equal(np.asarray(c.observe(s, 0)), np.asarray(c.observe(s, 1)))
        text = env.render(s)
        assert isinstance(text, str) and text.strip()
    assert len(shapes) == 1, f"observation shapes vary: {shapes}"
    if hasattr(env, "observation_shape"):
        assert shapes.pop()[0] == tuple(env.observation_shape)
