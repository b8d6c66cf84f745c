"""The actors' kernels: legal actions compacted into candidate slots, the features a network
reads, and the Q of the candidates scored in pools.  A trained player needs only these (and the
network), not the trainer."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from cardjax import legal_words
from cardjax.nets.dmc.action_table import device_table
from cardjax.nets.dmc.adapter import Game
from cardjax.nets.dmc.q_net import QNet

Array = jax.Array


def compact(mask: Array, k: int):
    """The legal actions of ``mask`` (bool[N]) in ``k`` slots: :func:`compact_words` of the mask
    packed.  One state; vmap for a batch."""
    mask = jnp.asarray(mask, bool)
    return compact_words(legal_words.pack(mask), mask.shape[-1], k)


def compact_words(words: Array, n: int, k: int):
    """The legal actions of ``words`` (:mod:`cardjax.legal_words`, actions ``0 .. n - 1``) in
    ``k`` slots.

    Returns ``(indices int32[k], valid bool[k], overflow bool)``: the first ``min(count, k)``
    legal action ids in increasing order, then padding (``valid`` False, index ``n - 1`` so the
    indices stay sorted); ``overflow`` is True when more than ``k`` actions are legal (only the
    first ``k`` are kept).  One state; vmap for a batch.  The cost grows with the words (popcounts
    and a prefix sum over ~860 words for Dou Dizhu), not with the 27,472 actions.
    """
    total = legal_words.count(words)
    j = jnp.arange(k, dtype=jnp.int32)
    valid = j < total
    idx = jnp.where(valid, legal_words.nth(words, j), n - 1)
    return jnp.minimum(idx, n - 1).astype(jnp.int32), valid, total > k


def legal_sets(game: Game, states):
    """``(words uint32[B, W], count int32[B])``: the legal actions ``0 .. game.num_actions - 1``
    of a BATCH of states, packed, read from the env's own representation."""
    words = legal_words.prefix(jax.vmap(game.env.legal_words)(states), game.num_actions)
    return words, legal_words.count(words)


def feature_rows(game: Game, states, idx):
    """The rows of ``game.action_features`` of the candidate actions ``idx`` [B, K] of a BATCH of
    states (``idx`` itself unless the game has ``action_rows``)."""
    if game.action_rows is None:
        return idx
    return jnp.take_along_axis(jax.vmap(game.action_rows)(states), idx, axis=1)


def observe(game: Game, states, keep=None):
    """The stored features of a BATCH of states: ``game.features``, then (with an oracle) the
    oracle features of the games where ``keep`` (bool[B]) is True and zeros elsewhere (None:
    zeros everywhere, as a trained player sees them)."""
    obs = jax.vmap(game.features)(states)
    if game.oracle is None:
        return obs
    extra = jax.vmap(game.oracle)(states)
    if keep is None:
        extra = jnp.zeros_like(extra)
    else:
        extra = jnp.where(keep[:, None], extra, jnp.zeros_like(extra))
    return jnp.concatenate([obs, extra.astype(obs.dtype)], axis=1)


def role_params(params, role):
    """The params of one role from the stacked ``[num_roles, ...]`` pytree."""
    return jax.tree_util.tree_map(lambda p: p[role], params)


def known_rewards(game: Game, states, idx, valid, scale: float):
    """float32[B, K]: ``scale x`` the step reward of the candidates ``idx`` of a BATCH of states
    where the game knows it exactly (``Game.counterfactual``), 0 elsewhere (``exact_rewards``)."""
    reward, exact = jax.vmap(game.counterfactual)(states)
    known = jnp.take_along_axis(exact, idx, axis=1) & valid
    return jnp.where(known, jnp.take_along_axis(reward, idx, axis=1) * scale, 0.0)


def advised_slots(game: Game, states, idx, valid, rows=None):
    """bool[B, K]: the candidate of ``idx`` that the game's advice (``Game.advice``) names in
    each of a BATCH of states (none where it names nothing); read from the candidates' feature
    ``rows`` (:func:`feature_rows`) where given and they say it (``Game.advised_from``)."""
    if rows is not None and game.advised_from is not None:
        return (rows >= game.advised_from) & valid
    return jnp.take_along_axis(jax.vmap(game.advice)(states), idx, axis=1) & valid


def advised(game: Game, states, idx, valid, bonus: float, rows=None):
    """float32[B, K]: ``bonus`` at the candidate of ``idx`` that the game's advice names in each
    of a BATCH of states, 0 elsewhere (``advice_bonus``)."""
    return jnp.where(advised_slots(game, states, idx, valid, rows), bonus, 0.0)


def boltzmann(key, q, valid, temperature: float):
    """int32[B]: a slot of each row of ``q`` [B, K] drawn with probability softmax(q /
    ``temperature``) over its ``valid`` slots (a row with no finite valid score: slot 0)."""
    logits = jnp.where(valid & jnp.isfinite(q), q / temperature, -jnp.inf)
    return jax.random.categorical(key, logits, axis=1).astype(jnp.int32)


def choice_bonus(game: Game, states, idx, valid, exact_scale: float, advice_bonus: float,
                 rows=None):
    """What the players add to the network's Q of the candidates ``idx`` of a BATCH of states
    when choosing: the known step rewards times ``exact_scale`` and the advice bonus (either
    0: off; ``rows``: the candidates' feature rows, where known).  float32[B, K]."""
    bonus = jnp.zeros(idx.shape, jnp.float32)
    if exact_scale:
        bonus = bonus + known_rewards(game, states, idx, valid, exact_scale)
    if advice_bonus:
        bonus = bonus + advised(game, states, idx, valid, advice_bonus, rows)
    return bonus


def q_values(net: QNet, game: Game, params, state, k: int, exact_scale: float = 0.0,
             advice_bonus: float = 0.0):
    """Greedy-play helper for ONE state: ``(indices, valid, q)`` of its legal candidates under
    the network of the state's role (all roles' nets run and the role's row is taken, so the
    params are not gathered per game under ``vmap``), plus :func:`choice_bonus` (a run trained
    with ``exact_rewards`` or ``advice_bonus``)."""
    words = legal_words.prefix(game.env.legal_words(state), game.num_actions)
    idx, valid, _ = compact_words(words, game.num_actions, k)
    batch = jax.tree_util.tree_map(lambda x: x[None], state)
    rows = feature_rows(game, batch, idx[None])
    afeat = device_table(game.action_features)[rows[0]]
    obs = observe(game, batch)[0]
    q_all = jax.vmap(net.apply, in_axes=(0, None, None))(params, obs, afeat)  # [R, k]
    q = q_all[game.role(state)] + choice_bonus(game, batch, idx[None], valid[None], exact_scale,
                                               advice_bonus, rows)[0]
    return idx, valid, jnp.where(valid, q, -jnp.inf)


def pool_sizes(k: int, k_fast: int) -> tuple:
    """The candidate pools of :func:`score_slots`, in candidates per game: ``k_fast`` (a pass of
    the packed candidates), twice that, ... below ``k`` (the largest packed), then ``k`` (every
    slot of every game); ``k_fast = 0``: ``k`` alone."""
    if not k_fast or k_fast >= k:
        return (k,)
    sizes, c = [], k_fast
    while c < k:
        sizes.append(c)
        c *= 2
    return tuple(sizes) + (k,)


def score_slots(net: QNet, table, params, obs, idx, count, sizes: tuple, groups: int = 1,
                forced: bool = False):
    """Q of the ``K`` candidate slots ``idx`` [B, K] (rows of ``table``, :func:`feature_rows`) of
    a batch of states ``obs`` [B, F] with ``count`` [B] legal actions, under one network's
    ``params``.  Returns ``(q [B, K], rows)``:
    the slots beyond a state's count, and the slot of a state with one legal action, get -inf or
    some value (the caller masks them with the slots' validity; a row of -inf picks slot 0, the
    one legal action); ``rows``, the candidates the head scored.

    A state with one legal action needs no score (a fifth to a half of all decisions in the
    games here; ``forced``: it is scored too, for its value), and when no state has a choice
    nothing runs (``lax.cond``).  Otherwise the trunk runs once per state, and so does the
    state's half of the head's first layer.  The rest of the head scores the candidates of
    the states with a choice, packed one after the other (state 0's ``count[0]`` slots, then
    state 1's, ...), ``sizes[0]`` a game per pass (``sizes``: :func:`pool_sizes`) in a loop of
    as many passes as they need; past ``sizes[-2]`` a game (the largest pool) it scores every
    slot of every state at once, without packing.  So every legal action of a choice is scored
    -- the same numbers as scoring all ``K`` slots everywhere -- and the head's work follows the
    number of legal moves within a pass.  One loop, not a program branch per pool size: one copy
    of the head in the program (benchmarks/LOG.md has its compile time).

    ``groups``: the batch is split into this many equal groups of consecutive states, each
    packed on its own (data parallel: one group per device, so no candidate crosses a device);
    the passes are counted for the fullest group.
    """
    B, K = idx.shape
    # one legal action: nothing to score, unless its value is asked for
    count = jnp.where(count > (0 if forced else 1), jnp.minimum(count, K), 0)

    def score():
        hs = net.apply(params, net.apply(params, obs, method="embed"), method="head_in")

        def dense():
            return net.apply(params, hs, table[idx], method="head_out")

        if len(sizes) == 1:
            return dense(), jnp.int32(B * K)
        b = B // groups
        cnt = count.reshape(groups, b)
        need = jnp.max(jnp.sum(cnt, axis=1))

        chunk = sizes[0] * b  # candidates a group scores in one pass
        ends = jnp.cumsum(cnt, axis=1)
        hs_g, idx_g = hs.reshape(groups, b, -1), idx.reshape(groups, b, K)

        def one_pass(j, q):
            p = j * chunk + jnp.arange(chunk)

            def group(hs_g, idx_g, cnt_g, ends_g, q_g):
                # the state of each position of the pass: how many states end at or before it
                g = jnp.minimum(jnp.searchsorted(ends_g, p, side="right"), b - 1)
                slot = p - (ends_g[g] - cnt_g[g])
                used = p < ends_g[-1]
                scored = net.apply(params, hs_g[g],
                                   table[idx_g[g, jnp.where(used, slot, 0)]][:, None],
                                   method="head_out")[:, 0]
                # unused pass rows go to state b (out of range), which the scatter drops
                return q_g.at[jnp.where(used, g, b), jnp.where(used, slot, 0)].set(
                    scored, mode="drop")

            return jax.vmap(group)(hs_g, idx_g, cnt, ends, q)

        def packed():
            passes = (need + chunk - 1) // chunk
            q = jax.lax.fori_loop(0, passes, one_pass,
                                  jnp.full((groups, b, K), -jnp.inf, jax.eval_shape(dense).dtype))
            return q.reshape(B, K), passes * chunk * groups

        # past the largest pool every slot of every state is scored at once (no packing)
        return jax.lax.cond(need > sizes[-2] * b, lambda: (dense(), jnp.int32(B * K)), packed)

    return jax.lax.cond(jnp.any(count > 0), score,
                        lambda: (jnp.full((B, K), -jnp.inf), jnp.int32(0)))


def score_by_role(net: QNet, table, params, obs, idx, count, roles, num_roles: int,
                  sizes: tuple, groups: int = 1, forced: bool = False):
    """:func:`score_slots` of a batch whose acting roles (int[B]) differ: each role's network
    runs only when some game of that role has a choice (:func:`score_slots`'s ``lax.cond``, so
    the params are indexed, not gathered per game) and pools only its games' candidates; every
    game takes its role's row.  Returns ``(q, rows)``.

    The roles take turns in a loop, so the program holds one copy of the scoring, not one per
    role (with Tractor's four networks, a fifth of its self-play program)."""

    def one_role(r, carry):
        q, rows = carry
        mine = roles == r
        q_r, rows_r = score_slots(net, table, role_params(params, r), obs, idx,
                                  jnp.where(mine, count, 0), sizes, groups, forced)
        return jnp.where(mine[:, None], q_r, q), rows + rows_r

    return jax.lax.fori_loop(0, num_roles, one_role,
                             (jnp.full(idx.shape, -jnp.inf), jnp.int32(0)))


def greedy_scores(net: QNet, game: Game, params, states, k: int, k_fast: int = 4,
                  exact_scale: float = 0.0, advice_bonus: float = 0.0, forced: bool = False):
    """The scores players choose by in a BATCH of states (leading axis B) whose acting roles
    may differ: each role's network scores the legal candidates (in :func:`score_slots`'s
    pools) of every state, plus :func:`choice_bonus` (``exact_scale``, ``advice_bonus``: as
    :func:`q_values`).  With ``forced`` a state's one legal action is scored too (else it gets
    no score).  Returns ``(idx, valid, q)``, each [B, k]; q is -inf outside ``valid``."""
    table = device_table(game.action_features)
    words, count = legal_sets(game, states)
    count = jnp.where(states.terminated, 0, count)
    idx, valid, _ = jax.vmap(compact_words, in_axes=(0, None, None))(words, game.num_actions, k)
    obs = observe(game, states)
    roles = jax.vmap(game.role)(states)
    rows = feature_rows(game, states, idx)
    q, _ = score_by_role(net, table, params, obs, rows, count, roles, game.num_roles,
                         pool_sizes(k, k_fast), forced=forced)
    q = q + choice_bonus(game, states, idx, valid, exact_scale, advice_bonus, rows)
    return idx, valid, jnp.where(valid, q, -jnp.inf)


def greedy_actions(net: QNet, game: Game, params, states, k: int, k_fast: int = 4,
                   exact_scale: float = 0.0, advice_bonus: float = 0.0):
    """The greedy actions of a BATCH of states (:func:`greedy_scores`: each state takes its
    role's best).  Returns int32[B]."""
    idx, _, q = greedy_scores(net, game, params, states, k, k_fast, exact_scale, advice_bonus)
    best = jnp.argmax(q, axis=1)
    return jnp.take_along_axis(idx, best[:, None], axis=1)[:, 0]


def state_values(net: QNet, game: Game, params, states, k: int, k_fast: int = 4,
                 exact_scale: float = 0.0):
    """float32[B]: the networks' value of each of a BATCH of states for its acting seat, the
    best of its legal moves' Q (with the step rewards known exactly, ``exact_scale``; no
    advice bonus: it steers, it is no value), its one move's where forced; 0 where the game
    is over."""
    _, _, q = greedy_scores(net, game, params, states, k, k_fast, exact_scale, forced=True)
    return jnp.where(states.terminated, 0.0, jnp.max(q, axis=1))


def values_after(net: QNet, game: Game, params, states, after, k: int, k_fast: int = 4,
                 exact_scale: float = 0.0):
    """float32[G, M]: :func:`state_values` of the states ``after`` [G, M] (each reached from one
    of the states ``states`` [G]) for the side of the seat to act in ``states``: negated where
    the seat to act after is on the other side (two sides in alternate seats)."""
    G, M = after.current_player.shape
    flat = jax.tree_util.tree_map(lambda x: x.reshape((G * M,) + x.shape[2:]), after)
    v = state_values(net, game, params, flat, k, k_fast, exact_scale).reshape(G, M)
    same_side = (after.current_player - states.current_player[:, None]) % 2 == 0
    return jnp.where(same_side, v, -v)


def lookahead_scores(net: QNet, game: Game, params, states, idx, valid, q, width: int,
                     gamma: float, k: int, k_fast: int = 4, exact_scale: float = 0.0,
                     advice_bonus: float = 0.0, chunk: int | None = None):
    """Scores of a BATCH of states (``idx``, ``valid``, ``q``: :func:`greedy_scores`) with a
    one-move lookahead where the step reward of every legal candidate is known exactly
    (``Game.counterfactual``: Tractor's last seat of a trick).  There the ``width`` best
    candidates by ``q`` are played, and each is scored by what ``q`` adds to the network (the
    known reward, the advice bonus) plus ``gamma`` times the networks' value of the state it
    leaves (:func:`state_values`, negated when the seat to act there is on the other side); the
    other candidates are dropped (``exact_scale``, ``advice_bonus``: as :func:`q_values`).
    Elsewhere ``q`` is returned unchanged.

    The states that need it are valued ``chunk`` at a time (default: a quarter of the batch plus
    two) in a loop until every one is, so each game's choice does not depend on the others in
    its batch.  Two sides in alternate seats only (their rewards are zero-sum)."""
    env = game.env
    if game.counterfactual is None:
        raise ValueError("a lookahead needs the step rewards of every move known exactly "
                         "(Game.counterfactual), which this game does not give")
    if env.num_players not in (2, 4):
        raise ValueError(f"a lookahead reads values for two sides in alternate seats; this game "
                         f"has {env.num_players} seats")
    B, K = idx.shape
    W = min(int(width), K)
    C = min(B, chunk or B // 4 + 2)
    _, exact = jax.vmap(game.counterfactual)(states)
    known = jnp.take_along_axis(exact, idx, axis=1)
    need = (jnp.all(known | ~valid, axis=1) & (jnp.sum(valid, axis=1) > 1)
            & ~states.terminated)
    top_q, top = jax.lax.top_k(q, W)  # [B, W] positions in the slots
    top_ok = jnp.isfinite(top_q)
    acts = jnp.take_along_axis(idx, top, axis=1)
    base = choice_bonus(game, states, idx, valid, exact_scale, advice_bonus,
                        feature_rows(game, states, idx))

    def value_chunk(carry):
        left, out = carry
        games, ok, _ = compact(left, C)
        sub = jax.tree_util.tree_map(lambda x: x[games], states)
        after = jax.vmap(lambda st, a: jax.vmap(lambda x: env.step(st, x))(a))(sub, acts[games])
        v = values_after(net, game, params, sub, after, k, k_fast, exact_scale)
        at = jnp.where(ok, games, B)  # out of range: dropped
        out = out.at[at].set(gamma * v, mode="drop")
        return left.at[at].set(False, mode="drop"), out

    _, ahead = jax.lax.while_loop(lambda c: jnp.any(c[0]), value_chunk,
                                  (need, jnp.zeros((B, W), jnp.float32)))
    scored = jnp.take_along_axis(base, top, axis=1) + ahead
    looked = jnp.full((B, K), -jnp.inf).at[jnp.arange(B)[:, None], top].set(
        jnp.where(top_ok, scored, -jnp.inf))
    return jnp.where(need[:, None], looked, q)
