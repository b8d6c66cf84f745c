"""ScrofaZero's play under hidden information for Gongzhu (paper 5.3, 5.4, 8.6, 8.12, 8.13).

The deciding seat cannot see the other hands.  It samples ``W`` worlds (full states that agree
with everything it has seen), weights them, runs the perfect-information MCTS of
:mod:`cardjax.search.mcts` in every world with the same budget, and plays the legal move with
the best weighted mean root value.  Every function is pure JAX (jit/vmap-able); ``W``, the
sampling mode and the search sizes are static.

Worlds (:func:`sample_worlds`, fixed shapes: always ``W`` worlds with ``valid`` and ``prior``)
---------------------------------------------------------------------------------------------
* ``"uniform"`` (the paper's US): ``W`` draws of ``Gongzhu.sample_hidden`` (uniform over
  consistent deals when nobody has shown a void), prior ``1/W`` each, all valid.
* ``"stratified"`` (SS, paper 5.3): the first two cards of :data:`KEY_CARDS` that are hidden
  from the seat (not in its hand, not played, not exposed) are the key cards; a stratum is one
  placement of them among the three other seats: ``t = 9`` strata (3 with one hidden key card,
  1 with none).  World ``w`` belongs to stratum ``w mod t`` and is drawn by
  ``Gongzhu.sample_hidden_fixed`` with the key cards forced to the stratum's seats (the rest
  placed as ``sample_hidden`` does, keeping Hall's condition).  A stratum that cannot happen
  (a key card forced to a seat that has shown void in its suit, or to a seat with no room for
  it) is not valid: prior 0.  Strata are equally likely (the paper's zeroth order,
  ``p(S_j) = 1/t`` over the feasible strata that were sampled), and a stratum's prior is shared
  by its worlds: ``prior_w = 1 / (feasible strata) / (worlds in w's stratum)``.  With ``W = 9``
  (the default; the paper's US also used 9 samples so that the counts match) every stratum has
  one world when there are two hidden key cards, three when there is one, and with none the
  nine worlds are plain samples.

  Key card order, from the paper's statistics (figure 4: variance of card values; table 4:
  Mr Greed's and ScrofaZero's card values; 6.1: "SQ's variance is large", "among heart suit, HK
  and HA are especially important"): ``SQ`` (-100, the largest variance), ``HA`` (-50, and the
  all-hearts swing), ``DJ`` (+100), ``HK`` (-40), ``C10`` (the doubler), ``SA``, ``SK`` (-50 and
  -30 in table 4: they catch the pig), then ``HQ``, ``HJ`` and the honours that guard DJ / C10
  (``DA DK DQ CA CK``).  Only the first two hidden ones are used.

IEC weights (:func:`iec_log_weights`, paper 5.4 algorithm 1, 8.12, 8.13)
-----------------------------------------------------------------------
A world's log score is ``sum_t log gamma_t`` over the important past plays ``t`` made by seats
other than the deciding one, ``gamma_t = exp(-beta (q_max - q_a))``: ``q = q_fn(obs)`` (float[52],
action values in game points) is evaluated on the network input of the acting seat ``j`` at
time ``t`` in this world, with the hands of the three other seats replaced by ``1/3`` on every
card ``j`` could not see then (8.13, "triple-1/3-hot": unplayed, not ``j``'s, not exposed; ``j``'s
own hand is exact, from the world); ``q_max`` is over ``j``'s legal moves at ``t`` in this world.
The states at time ``t`` are rebuilt by replaying the world's deal from the first leader (the
seat that played ``history[0]``; with the exposure option the public ``exposed`` cards are
restored first) through ``lax.scan`` over the history; the network inputs of the 52 plays are
then evaluated in one batch (52 network calls per world, on top of the search's).

Important plays (8.12): the card's rank is above 7 (8, 9, 10, J, Q, K, A), and -- our reading of
"when a player is following the suit, history slices of other suits are also not important" --
the play is not a discard: a card of another suit played to a trick whose led suit the player
does not hold is skipped.  (The other possible reading, "when following, only the led suit's
cards compete for ``q_max``", changes nothing: the rules already restrict the legal moves to the
led suit then.)  Leads and plays that follow suit count.  ``skip_discards=False`` keeps the
discards.  Whatever the filter, a world in which some seat played a card that was not legal for
its hand in that world at that time (e.g. it did not follow suit while holding the led suit)
gets log score ``-inf`` (weight exactly 0).  The paper's score is the product of unnormalised
correction factors (its equation 15 argues the normalisers nearly cancel), so no normaliser is
applied.

Decision (:func:`decide`)
-------------------------
``weight_w = prior_w * exp(log_iec_w - max)`` normalised (``iec=False``: ``weight_w = prior_w``).
With stratified sampling the IEC score thus weights the strata against each other: read
literally, equation (11) normalises the scores within a stratum, which with one world per
stratum would cancel them; here the score of a stratum's world estimates ``p(h | S_j)``, so the
strata get ``p(S_j | h) ~ p(S_j) s(c_j)`` (this is how SS and IEC can combine, table 3).  If IEC rules every world out (possible only with the exposure option, whose "only card of its
suit" exception the sampler does not track) the IEC factor is dropped.  Each world is searched
with ``mcts.batched_search`` (root mover = the real current player, budget
``mcts.simulations(legal, b, k, max_simulations)`` = ``b + k * legal moves``, paper 8.6: ``b = 10,
k = 2``; ``max_simulations`` defaults to ``b + 13 k``).  An action's value is the weighted mean
of its root child value over the worlds where it was visited (normally all); the legal action
with the highest value is played.  With one legal move (or none visited, or a finished game)
the first legal action is returned -- through ``jnp.where``, shapes stay fixed.

:func:`make_agent` wraps this into a :class:`cardjax.core.Agent` playing with a
:class:`~cardjax.nets.policy_value.PolicyValueNet`: ``value_fn`` is
:func:`~cardjax.nets.policy_value.oracle_value_fn` and ``q_fn = logits / target_beta`` (the
trainer fits the policy to ``softmax(target_beta * child_values)``, so the logits are values in
points times ``target_beta``, up to a constant that cancels in ``q_max - q_a``).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

from cardjax.cards import card_index
from cardjax.games import gongzhu as gz
from cardjax.search import mcts

Array = jax.Array

KEY_CARDS = tuple(card_index(c) for c in (
    "SQ", "HA", "DJ", "HK", "C10", "SA", "SK", "HQ", "HJ", "DA", "DK", "DQ", "CA", "CK"))
SAMPLING = ("stratified", "uniform")
MIN_IMPORTANT_RANK = 6  # rank index of the 8 (ranks 2..A are 0..12): "greater than 7"
DEFAULT_BETA = 0.015


class Worlds(NamedTuple):
    """``W`` sampled worlds: ``states`` (a State stacked on a leading axis ``W``), ``valid``
    bool[W], ``prior`` float[W] (sums to 1 over the valid worlds), ``stratum`` int[W] (0 for
    uniform sampling), ``fixed`` int[W, 52] (the forced placements, -1 = free)."""

    states: object
    valid: Array
    prior: Array
    stratum: Array
    fixed: Array


def hidden_cards(state, seat) -> Array:
    """bool[52]: the cards ``seat`` has not seen (not its own, not played, not exposed)."""
    return (state.played_by < 0) & (state._owner != seat) & ~state.exposed


def key_cards_hidden(state, seat, key_cards=KEY_CARDS) -> tuple[Array, Array]:
    """The first two cards of ``key_cards`` hidden from ``seat``: ``(cards int[2], present
    bool[2])`` (``present`` is False where fewer than two are hidden)."""
    kc = jnp.asarray(key_cards, jnp.int32)
    hk = hidden_cards(state, seat)[kc]
    pos = jnp.argsort(~hk, stable=True)[:2]
    return kc[pos], hk[pos]


def sample_worlds(env, key, state, seat, *, num_worlds: int = 9, sampling: str = "stratified",
                  key_cards=KEY_CARDS) -> Worlds:
    """``num_worlds`` worlds that ``seat`` cannot tell from ``state`` (see the module docstring)."""
    if sampling not in SAMPLING:
        raise ValueError(f"sampling must be one of {SAMPLING}, got {sampling!r}")
    if len(key_cards) < 2:
        raise ValueError("stratified sampling needs at least two key cards")
    w = int(num_worlds)
    seat = jnp.asarray(seat, jnp.int32)
    keys = jax.random.split(key, w)
    idx = jnp.arange(w)
    if sampling == "uniform":
        states = jax.vmap(env.sample_hidden, (0, None, None))(keys, state, seat)
        return Worlds(states, jnp.ones(w, bool), jnp.full(w, 1.0 / w, jnp.float32),
                      jnp.zeros(w, jnp.int32), jnp.full((w, gz.NUM_CARDS), -1, jnp.int32))

    cards2, present = key_cards_hidden(state, seat, key_cards)
    n_keys = jnp.sum(present.astype(jnp.int32))
    t = jnp.where(n_keys == 2, 9, jnp.where(n_keys == 1, 3, 1))
    stratum = idx % t
    others = (seat + 1 + jnp.arange(3)) % gz.NUM_PLAYERS
    seat_a = jnp.where(present[0], others[stratum % 3], -1)
    seat_b = jnp.where(present[1], others[stratum // 3], -1)
    cards = jnp.arange(gz.NUM_CARDS)
    fixed = jnp.where(cards == cards2[0], seat_a[:, None], -1)
    fixed = jnp.where(cards == cards2[1], seat_b[:, None], fixed).astype(jnp.int32)
    states, valid = jax.vmap(env.sample_hidden_fixed, (0, None, None, 0))(keys, state, seat, fixed)
    same = stratum[:, None] == stratum[None, :]
    count = jnp.sum(same, axis=1).astype(jnp.float32)  # worlds in w's stratum
    n_strata = jnp.sum(jnp.where(valid, 1.0 / count, 0.0))  # feasible strata sampled
    prior = jnp.where(valid, 1.0 / (count * jnp.maximum(n_strata, 1e-9)), 0.0)
    return Worlds(states, valid, prior.astype(jnp.float32), stratum, fixed)


def averaged_oracle_obs(env, state, seat) -> Array:
    """``env.observe_oracle(state, seat)`` with the other three hands made "triple-1/3-hot"
    (paper 8.13): every card ``seat`` cannot see is 1/3 in each of the three rows."""
    obs = env.observe_oracle(state, seat)
    unseen = hidden_cards(state, seat)
    others = obs[52:4 * 52].reshape(3, 52)
    others = jnp.where(unseen[None, :], 1.0 / 3.0, others)
    return jnp.concatenate([obs[:52], others.reshape(-1), obs[4 * 52:]])


def _replay(env, world):
    """Per play ``t`` of ``world``'s history (52 slots): the state before it, rebuilt from the
    deal.  Returns ``(obs[52, 434], legal[52, 52], player[52], card[52], active[52],
    discard[52])``."""
    n = world.num_played
    first_card = jnp.maximum(world.history[0].astype(jnp.int32), 0)
    first = jnp.where(n > 0, world.played_by[first_card].astype(jnp.int32), world.leader)
    s0 = env.init_from_deal(world._owner.astype(jnp.int32), first)
    s0 = s0.replace(exposed=world.exposed, exposing=jnp.int32(gz.NUM_PLAYERS))
    s0 = s0.replace(legal_action_mask=env._legal_mask(s0))

    def body(s, t):
        a = jnp.maximum(world.history[t].astype(jnp.int32), 0)
        active = t < n
        j = s.current_player
        k = s.num_played % 4
        led = jnp.maximum(s.trick[s.leader].astype(jnp.int32), 0) // 13
        discard = (k > 0) & (a // 13 != led)
        obs = averaged_oracle_obs(env, s, j)
        legal = s.legal_action_mask[: gz.NUM_CARDS]
        nxt = env.step(s, a)
        nxt = jax.tree_util.tree_map(lambda x, y: jnp.where(active, x, y), nxt, s)
        return nxt, (obs, legal, j, a, active, discard)

    _, out = jax.lax.scan(body, s0, jnp.arange(gz.NUM_CARDS))
    return out


class IECSlices(NamedTuple):
    """Per play ``t`` (52 slots) of one world's history: ``log_gamma`` float[52]
    (``-beta (q_max - q_a)``), ``important`` bool[52] (counted in the score), ``illegal`` bool[52]
    (the card was not legal for its player's hand in this world), ``player`` int[52],
    ``card`` int[52], ``active`` bool[52] (``t < num_played``)."""

    log_gamma: Array
    important: Array
    illegal: Array
    player: Array
    card: Array
    active: Array


def iec_slices(env, q_fn: Callable, world, seat, beta: float = DEFAULT_BETA,
               skip_discards: bool = True) -> IECSlices:
    """The per-play terms of :func:`iec_log_weight` (for inspection and tests)."""
    obs, legal, player, card, active, discard = _replay(env, world)
    q = jax.vmap(q_fn)(obs).astype(jnp.float32)  # [52 plays, 52 cards]
    q_max = jnp.max(jnp.where(legal, q, -jnp.inf), axis=1)
    q_a = jnp.take_along_axis(q, card[:, None], axis=1)[:, 0]
    log_gamma = -beta * (q_max - q_a)
    important = active & (player != seat) & (jnp.asarray(gz.RANK)[card] >= MIN_IMPORTANT_RANK)
    if skip_discards:
        important = important & ~discard
    illegal = active & ~jnp.take_along_axis(legal, card[:, None], axis=1)[:, 0]
    return IECSlices(log_gamma, important, illegal, player, card, active)


def iec_log_weight(env, q_fn: Callable, world, seat, beta: float = DEFAULT_BETA,
                   skip_discards: bool = True) -> Array:
    """The IEC log score of one world for the deciding ``seat`` (see the module docstring):
    the sum of ``log_gamma`` over the important plays, ``-inf`` if any play was illegal."""
    sl = iec_slices(env, q_fn, world, seat, beta, skip_discards)
    score = jnp.sum(jnp.where(sl.important, sl.log_gamma, 0.0))
    return jnp.where(jnp.any(sl.illegal), -jnp.inf, score).astype(jnp.float32)


def iec_log_weights(env, q_fn: Callable, worlds, seat, beta: float = DEFAULT_BETA,
                    skip_discards: bool = True) -> Array:
    """float[W]: :func:`iec_log_weight` of each world of a batch (``worlds`` stacked on a leading
    axis, e.g. ``sample_worlds(...).states``); ``seat`` is one seat or one per world."""
    w = jax.tree_util.tree_leaves(worlds)[0].shape[0]
    seats = jnp.broadcast_to(jnp.asarray(seat, jnp.int32), (w,))
    return jax.vmap(lambda s, p: iec_log_weight(env, q_fn, s, p, beta, skip_discards))(
        worlds, seats)


def world_weights(prior, valid, log_iec=None) -> Array:
    """float[W], summing to 1: ``prior * exp(log_iec - max)`` over the valid worlds, normalised.
    If IEC rules out every valid world it is ignored; with no valid world, uniform."""
    prior = jnp.asarray(prior, jnp.float32)
    valid = jnp.asarray(valid, bool) & (prior > 0)
    logp = jnp.where(valid, jnp.log(jnp.where(valid, prior, 1.0)), -jnp.inf)
    logp = jnp.where(jnp.any(valid), logp, 0.0)
    l = logp
    if log_iec is not None:
        l = logp + jnp.asarray(log_iec, jnp.float32)
        l = jnp.where(jnp.any(jnp.isfinite(l)), l, logp)
    m = jnp.max(l)
    e = jnp.exp(l - m)
    return (e / jnp.sum(e)).astype(jnp.float32)


def decide(env, value_fn: Callable, q_fn: Callable, key, state, *, worlds: int = 9,
           sampling: str = "stratified", iec: bool = True, b: int = 10, k: int = 2,
           max_simulations: int | None = None, c: float = 30.0, beta: float = DEFAULT_BETA,
           key_cards=KEY_CARDS, skip_discards: bool = True):
    """The move of ``state.current_player`` (see the module docstring): ``(action, info)``.

    ``value_fn(state) -> float[2]`` is the MCTS leaf evaluation (per team, points); ``q_fn(obs)
    -> float[52]`` the action values in points on the network input, for IEC (unused when
    ``iec=False``).  ``info``: ``owner`` int8[W, 52] the worlds' deals, ``valid``, ``prior``,
    ``log_iec``, ``weights`` (float[W]), ``child_values`` float[W, A] (``-inf`` unvisited),
    ``child_visits`` int[W, A], ``values`` float[A] the combined values (``-inf`` for illegal or
    never visited actions), ``num_simulations``.
    """
    if max_simulations is None:
        max_simulations = b + 13 * k
    seat = state.current_player
    k_worlds, k_search = jax.random.split(key)
    ws = sample_worlds(env, k_worlds, state, seat, num_worlds=worlds, sampling=sampling,
                       key_cards=key_cards)
    if iec:
        log_iec = iec_log_weights(env, q_fn, ws.states, seat, beta, skip_discards)
        weights = world_weights(ws.prior, ws.valid, log_iec)
    else:
        log_iec = jnp.zeros(worlds, jnp.float32)
        weights = world_weights(ws.prior, ws.valid)
    legal = state.legal_action_mask
    n_sims = mcts.simulations(legal, b, k, max_simulations)
    out = mcts.batched_search(env, value_fn, ws.states, jax.random.split(k_search, worlds),
                              max_simulations=max_simulations,
                              num_simulations=jnp.full(worlds, n_sims, jnp.int32), c=c)
    cv = out.child_values
    seen = jnp.isfinite(cv)
    wsum = jnp.sum(jnp.where(seen, weights[:, None], 0.0), axis=0)
    total = jnp.sum(jnp.where(seen, weights[:, None] * cv, 0.0), axis=0)
    ok = legal & (wsum > 0)
    values = jnp.where(ok, total / jnp.where(ok, wsum, 1.0), -jnp.inf)
    fallback = jnp.argmax(legal).astype(jnp.int32)
    best = jnp.argmax(values).astype(jnp.int32)
    single = jnp.sum(legal.astype(jnp.int32)) <= 1
    action = jnp.where(single | ~jnp.any(ok) | state.terminated, fallback, best)
    info = dict(owner=ws.states._owner, valid=ws.valid, prior=ws.prior, log_iec=log_iec,
                weights=weights, child_values=cv, child_visits=out.child_visits, values=values,
                num_simulations=n_sims)
    return action, info


def make_agent(env, apply_fn: Callable, params, *, target_beta: float, name: str = "scrofazero",
               sampling: str = "stratified", iec: bool = True, worlds: int = 9, b: int = 10,
               k: int = 2, max_simulations: int | None = None, c: float = 30.0,
               beta: float = DEFAULT_BETA, key_cards=KEY_CARDS, skip_discards: bool = True):
    """A :class:`cardjax.core.Agent` playing :func:`decide` with a policy/value net.

    ``apply_fn(params, obs) -> (logits[52], value)`` (e.g. ``PolicyValueNet(...).apply``);
    ``act(params, key, state)`` uses the ``params`` it is given (the agent's ``params`` field
    holds the initial ones), so one compiled ``act`` serves every new set of weights.
    ``target_beta`` (required) is the inverse temperature the policy was trained with: the
    policy target is ``softmax(target_beta * child_values)``, so ``q = logits / target_beta``.
    """
    from cardjax.core import Agent
    from cardjax.nets.policy_value import oracle_value_fn

    if sampling not in SAMPLING:
        raise ValueError(f"sampling must be one of {SAMPLING}, got {sampling!r}")
    if not target_beta > 0:
        raise ValueError(f"target_beta must be > 0, got {target_beta!r}")

    def act(params, key, state):
        value_fn = oracle_value_fn(env, apply_fn, params)

        def q_fn(obs):
            return apply_fn(params, obs)[0] / target_beta

        action, _ = decide(env, value_fn, q_fn, key, state, worlds=worlds, sampling=sampling,
                           iec=iec, b=b, k=k, max_simulations=max_simulations, c=c, beta=beta,
                           key_cards=key_cards, skip_discards=skip_discards)
        return action

    return Agent(name, act, params)
