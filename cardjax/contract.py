"""The environment contract as a test anyone can run on a game: ``cardjax.api_test(env)``.

Every game of cardjax passes it (the test suite runs it on each registered game), and a game of
your own should too.  It plays ``num`` random games to the end under ``jit(vmap(step))`` and
checks, at every step, what the contract promises (docs/architecture.md, "The environment
contract"): the public fields' dtypes and shapes, legal random actions, zero-sum rewards equal
within a team, ``pick_action`` picking the k-th legal action (and ``random_action`` its
uniform number's), the end within ``env.max_steps``, an all-True mask at the end, stepping a
finished game changes nothing, fixed-shape observations, an illegal action ending the game with the
penalty, batch independence (a game plays the same in any batch), the eager step equal to the
jitted one, and ``sample_hidden`` keeping what the seat sees.  It raises ``AssertionError``
naming the first broken promise.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

PUBLIC = {"current_player": (np.int32, ()), "rewards": (np.float32, ("P",)),
          "terminated": (np.bool_, ()), "step_count": (np.int32, ())}


def _check(ok: bool, what: str) -> None:
    if not ok:
        raise AssertionError(f"contract: {what}")


def _public(env, state, batch: tuple) -> None:
    for field, (dtype, shape) in PUBLIC.items():
        x = getattr(state, field)
        want = batch + tuple(env.num_players if d == "P" else d for d in shape)
        _check(x.dtype == dtype and x.shape == want,
               f"{field} is {x.dtype}{list(x.shape)}, expected {np.dtype(dtype)}{list(want)}")
    mask = jax.eval_shape(lambda s: s.legal_action_mask, state)  # a game may build it on demand
    _check(mask.dtype == np.bool_ and mask.shape == batch + (env.num_actions,),
           f"legal_action_mask is {mask.dtype}{list(mask.shape)}")


def _equal(a, b, what: str) -> None:
    la, ta = jax.tree_util.tree_flatten(a)
    lb, tb = jax.tree_util.tree_flatten(b)
    _check(ta == tb, f"{what}: the state's structure differs")
    for x, y in zip(la, lb):
        _check(np.array_equal(np.asarray(x), np.asarray(y)), f"{what}: a field differs")


def api_test(env, num: int = 8, seed: int = 0, eager_steps: int = 2) -> dict:
    """Check ``env`` against the contract on ``num`` random games (seeded); returns a summary
    (``games``, ``steps``: the longest game).  ``eager_steps``: steps compared un-jitted."""
    from cardjax.core import Env, State

    _check(isinstance(env, Env), f"{type(env).__name__} is not a cardjax.Env")
    _check(isinstance(env.name, str) and env.name, "the env has no name")
    _check(isinstance(env.version, str) and env.version, "the env has no version")
    _check(env.num_players >= 2 and env.num_actions >= 2, "num_players and num_actions >= 2")
    _check(len(env.teams) == env.num_players, "teams names every seat's team")
    _check(env.max_steps > 0, "max_steps bounds a game")

    # masks built under jit: a game may build its mask on demand (Dou Dizhu), which outside jit
    # runs operation by operation (tens of milliseconds a state)
    legal = jax.jit(lambda s: s.legal_action_mask)
    keys = jax.random.split(jax.random.key(seed), num)
    first = jax.jit(jax.vmap(env.init))(keys)
    _check(isinstance(first, State), f"the state ({type(first).__name__}) does not extend "
           "cardjax.core.State (or core.MaskedState)")
    _public(env, first, (num,))
    fields = list(first.__dataclass_fields__)
    _check(any(f.startswith("_") for f in fields), "the deal lives in fields starting with '_'")
    _check(not np.asarray(first.terminated).any(), "a new deal is not finished")
    first_mask = np.asarray(legal(first))
    _check(first_mask.any(axis=1).all(), "a new deal has a legal move")

    seats = range(env.num_players)
    env_step = jax.vmap(env.step)

    @jax.jit
    def play(state, key, forced):
        # one compiled program for every check: random moves, or ``forced`` where it is >= 0
        keys = jax.random.split(key, num)
        action = jax.vmap(env.random_action)(keys, state)
        # pick_action: the k-th legal action for u in [k / count, (k + 1) / count), and the one
        # random_action draws with its key's uniform number
        mask = state.legal_action_mask
        count = jnp.sum(mask, axis=1, dtype=jnp.int32)
        k = (state.step_count * 7919) % jnp.maximum(count, 1)
        picked = jax.vmap(env.pick_action)((k + 0.5) / jnp.maximum(count, 1), state)
        kth = jnp.argmax(jnp.cumsum(mask, axis=1) > k[:, None], axis=1)
        drawn = jax.vmap(env.pick_action)(jax.vmap(jax.random.uniform)(keys), state)
        picks = jnp.stack([picked == kth, drawn == action], axis=1)
        action = jnp.where(forced >= 0, forced, action)
        nxt = env_step(state, action)
        return nxt, action, jax.vmap(env.seat_teams)(nxt), nxt.legal_action_mask, picks

    # observe and observe_oracle trace for every seat under vmap (so their shapes are fixed)
    for observe in (env.observe, env.observe_oracle):
        jax.eval_shape(jax.vmap(lambda s, f=observe: [f(s, p) for p in seats]), first)

    none = jnp.full((num,), -1, jnp.int32)  # no forced move
    state, mask, key, steps = first, first_mask, jax.random.key(seed + 1), 0
    while steps <= env.max_steps:
        done = np.asarray(state.terminated)
        key, sub = jax.random.split(key)
        nxt, action, seat_teams, nxt_mask, picks = play(state, sub, none)
        action, seat_teams, picks = np.asarray(action), np.asarray(seat_teams), np.asarray(picks)
        live = ~done
        _check(mask[np.arange(num), action][live].all(),
               f"random_action chose an illegal move at step {steps}")
        _check(picks[live, 0].all(), f"pick_action(u) is not the floor(u * count)-th legal "
               f"action at step {steps}")
        _check(picks[live, 1].all(), f"random_action is not pick_action of its key's uniform "
               f"number at step {steps}")
        _public(env, nxt, (num,))
        rewards = np.asarray(nxt.rewards, np.float64)
        _check(np.abs(rewards.sum(axis=1)).max() < 1e-3,
               f"rewards are not zero-sum at step {steps}")
        mates = seat_teams[:, :, None] == seat_teams[:, None, :]
        equal = np.isclose(rewards[:, :, None], rewards[:, None, :])
        _check((equal | ~mates).all(), f"teammates' rewards differ at step {steps}")
        _check((np.asarray(nxt.step_count)[live] == np.asarray(state.step_count)[live] + 1).all(),
               "step_count counts the moves")
        if done.any():  # stepping a finished game: unchanged, rewards zero
            _check(not np.asarray(nxt.rewards)[done].any(), "a finished game's step gives rewards")
            rows = jax.tree_util.tree_map(lambda a: np.asarray(a)[done],
                                          (nxt.replace(rewards=state.rewards), state))
            _equal(*rows, "stepping a finished game changed it")
        ends, nxt_mask = np.asarray(nxt.terminated), np.asarray(nxt_mask)
        _check(nxt_mask[ends].all(), "a finished game's mask is all True")
        _check(nxt_mask[~ends].any(axis=1).all(), f"no legal move at step {steps}")
        state, mask = nxt, nxt_mask
        steps += 1
        if ends.all():
            break
    _check(np.asarray(state.terminated).all(),
           f"a game did not end within max_steps = {env.max_steps}")

    def row(tree, i):
        return jax.tree_util.tree_map(lambda x: x[i], tree)

    # batch independence: game 0 steps the same in a batch of its copies as beside other games
    # (the random move of a game depends on its key's place in the batch only)
    copies = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x[:1], x.shape), first)
    alone = play(copies, jax.random.key(seed + 3), none)[0]
    beside = play(first, jax.random.key(seed + 3), none)[0]
    _equal(row(alone, 0), row(beside, 0), "a game's step depends on the other games of its batch")

    # an illegal action ends the game, the offender's team paying the penalty (zero-sum)
    one = row(first, 0)
    illegal = np.flatnonzero(~first_mask[0])
    if illegal.size:
        bad = play(first, jax.random.key(seed + 3), none.at[0].set(int(illegal[0])))[0]
        bad = row(bad, 0)
        _check(bool(bad.terminated), "an illegal action ends the game")
        r = np.asarray(bad.rewards, np.float64)
        teams_now = np.asarray(env.seat_teams(one))
        _check(abs(r.sum()) < 1e-3, "the illegal-action penalty is zero-sum")
        offender = teams_now[int(one.current_player)]
        _check(r[teams_now == offender].sum() < 0 or env.illegal_penalty == 0,
               "the offender's team pays for an illegal action")

    # the eager step equals the jitted one
    s = first
    for t in range(eager_steps):
        a = int(np.flatnonzero(np.asarray(legal(s))[0])[0])
        jitted = play(s, jax.random.key(seed + 4), none.at[0].set(a))[0]
        _equal(env.step(row(s, 0), a), row(jitted, 0), f"eager and jitted step {t} differ")
        s = jitted
    s = row(s, 0)

    # a hidden state drawn for a seat keeps everything that seat sees
    try:
        world = jax.jit(env.sample_hidden)(jax.random.key(seed + 2), s, int(s.current_player))
    except NotImplementedError:
        world = None
    if world is not None:
        p = int(s.current_player)
        _check(np.array_equal(np.asarray(env.observe(world, p)), np.asarray(env.observe(s, p))),
               "sample_hidden changed what the seat sees")
    _check(isinstance(env.render(one), str), "render returns text")
    return {"games": num, "steps": steps}
