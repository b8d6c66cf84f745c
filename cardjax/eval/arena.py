"""Duplicate matches between two agents.

Every deal is played several times with the sides swapped, so luck of the deal cancels: each game
of a deal has its own initial state and its own set of seats held by agent A (B holds the others).
How a game builds those games is its *duplicate scheme* (:class:`cardjax.duplicate.Scheme`),
which its card names (``GameSpec.scheme``): Gongzhu and Mini Dou Di Zhu rotate the hands one
seat on, Dou Dizhu swaps the landlord (with bidding: A at every proper subset of the seats),
Tractor swaps the teams on the same hand.  The schemes are documented where they live
(``cardjax/duplicate.py`` and each game's ``metrics.py``).

A game's score is A's side total (:class:`Scheme` ``side``): the reward of A's team in Gongzhu
(teammates share it), the sum over A's seats in Dou Dizhu (landlord ``+-2m``, both peasants
together ``-+2m`` under ADP; Tractor: the levels A's team gained in the hand, or minus those B's
team gained).  A deal's score is the mean over its games; the match reports the mean over deals
and its standard error, plus per-game figures (:func:`duplicate_match`).  Against Mr Greed
(``b="greed"``) the Gongzhu mean is the ScrofaZero paper's WPG.
"""

from __future__ import annotations

import sys
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from tqdm.auto import tqdm

from cardjax import programs, registry
from cardjax.core import Agent
from cardjax.duplicate import Scheme
from cardjax.gate import either


class Duplicates(NamedTuple):
    """The games of a batch of ``n`` deals, game-major: row ``g * n + d`` is game ``g`` of deal ``d``."""

    states: object  # batched initial states, leading axis games * n
    a_seats: jax.Array  # bool[games * n, num_players]: the seats agent A plays
    games: int  # games per deal


def scheme(env) -> Scheme:
    """The duplicate scheme of ``env``'s game (its card's)."""
    return registry.spec(env.name).duplicate_scheme(env)


def duplicate_states(env, keys) -> Duplicates:
    """The duplicate games of the deals ``env.init(keys)``: states and A's seats, game-major."""
    if env not in _DEALS_CACHE:
        # one small program per game: run op by op, the deals compiled dozens of operations
        # each, in every command that plays a match
        def build(keys):
            states, seats = scheme(env).build(env, jax.vmap(env.init)(keys))
            return (jax.tree_util.tree_map(lambda *x: jnp.concatenate(x), *states),
                    jnp.concatenate(seats))

        _DEALS_CACHE[env] = jax.jit(build)
    states, seats = _DEALS_CACHE[env](keys)
    return Duplicates(states, seats, seats.shape[0] // keys.shape[0])


_DEALS_CACHE: dict = programs.keep({})
_PLAY_CACHE: dict = programs.keep({})
_COMPILED = programs.keep(set())  # (play, batch) compiled in this process, announced once


def make_play(env, a: Agent, b: Agent, outcome: Callable | None = None):
    """Jitted ``play(states, a_seats, key, a_params, b_params) -> rewards summed over each game``
    (float32[B, P]); A acts at the seats where ``a_seats`` (bool[B, P]) is True, B at the others.
    With ``outcome`` (a scheme's, see :class:`Scheme`) it returns ``(rewards, outcome(env,
    final_states, a_seats))``.

    The agents' params are arguments, not constants, and the compiled function is cached per
    ``(env, a.act, b.act, outcome)``: evaluating new weights of the same agent does not recompile.
    """
    cache_key = (env, a.act, b.act) if outcome is None else (env, a.act, b.act, outcome)
    if cache_key in _PLAY_CACHE:
        return _PLAY_CACHE[cache_key]
    programs.guard()  # a new program: first make room for its code

    def act(agent_act, params):
        return lambda keys, states: jax.vmap(agent_act, in_axes=(None, 0, 0))(params, keys, states)

    def play(states, a_seats, key, a_params, b_params):
        rows = jnp.arange(a_seats.shape[0])

        def cond(carry):
            return ~jnp.all(carry[0].terminated)

        def body(carry):
            s, total, key = carry
            key, ka, kb = jax.random.split(key, 3)
            a_turn = a_seats[rows, s.current_player]
            # each game asks only the agent whose turn it is (on CPU: see gate.either)
            keys = jnp.where(a_turn[:, None], jax.random.split(ka, rows.shape[0]),
                             jax.random.split(kb, rows.shape[0]))
            action = either(a_turn, act(a.act, a_params), act(b.act, b_params), keys, s)
            s = jax.vmap(env.step)(s, action)
            return s, total + s.rewards, key

        total = jnp.zeros_like(states.rewards)
        final, total, _ = jax.lax.while_loop(cond, body, (states, total, key))
        if outcome is None:
            return total
        return total, outcome(env, final, a_seats)

    _PLAY_CACHE[cache_key] = programs.jit_playing(play)
    return _PLAY_CACHE[cache_key]


def one_program(agents) -> list[Agent]:
    """``agents`` as players of one shared ``act``: agent ``i``'s params become ``(i, every
    agent's params)`` and the shared act calls agent ``i``'s (``lax.switch`` on an index that is
    the same for every game, so only that agent runs).  Matches of one player against any of
    them are then one compiled program (:func:`make_play` keeps a program per pair of acts): a
    trainer evaluating against two opponents compiles its match once.  The names stay."""
    agents = list(agents)
    if len(agents) < 2:
        return agents
    acts = tuple(x.act for x in agents)

    def branch(i):
        return lambda each, key, state: jnp.asarray(acts[i](each[i], key, state), jnp.int32)

    branches = [branch(i) for i in range(len(acts))]

    def act(params, key, state):
        which, each = params
        return jax.lax.switch(which, branches, each, key, state)

    each = tuple(x.params for x in agents)
    return [Agent(x.name, act, (jnp.int32(i), each)) for i, x in enumerate(agents)]


def compile_matches(env, a: Agent, opponents, deals: int, seed: int = 0,
                    batch: int = 128) -> None:
    """Compile, without playing, the duplicate matches of ``a`` against each of ``opponents``
    that :func:`duplicate_match` with the same arguments plays (a trainer's ``prepare``)."""
    for b in opponents:
        duplicate_match(env, a, b, deals=deals, seed=seed, batch=batch, progress=False,
                        compile_only=True)


def deal_keys(seed: int, deals: int) -> jax.Array:
    """The keys of the ``deals`` deals a match with ``seed`` plays (``env.init`` of each)."""
    return jax.random.split(jax.random.split(jax.random.PRNGKey(seed))[0], deals)


def seat_match(env, a: Agent, b: Agent, seats: Callable, deals: int, seed: int = 0,
               batch: int = 128, repeats: int = 1, progress: bool = True, start: int = 0,
               stop: int | None = None) -> np.ndarray:
    """Rewards float[deals, repeats, P] summed over each game, A at the seats
    ``seats(states) -> bool[n, P]`` of each fresh deal (e.g. Dou Dizhu's landlord), B at the
    others; every deal is played ``repeats`` times with different random keys (for players that
    draw: search, random).  The deals depend on ``seed`` and ``deals`` only, as in
    :func:`duplicate_match`; use it for experiments a duplicate scheme does not cover (one seat
    against the rest, several plays per deal).

    ``start`` and ``stop`` play only the deals ``[start, stop)`` of the match (rows
    float[stop - start, repeats, P]), so that a long match can be played, saved and stopped in
    parts; the parts run one compiled program (of ``min(batch, deals * repeats)`` games) and, when
    ``start * repeats`` is a multiple of that size, give exactly the rows of the whole match."""
    stop = deals if stop is None else stop
    if deals < 1 or repeats < 1 or batch < 1:
        raise ValueError(f"deals, repeats and batch must be at least 1; got {deals}, {repeats}, "
                         f"{batch}")
    if not 0 <= start < stop <= deals:
        raise ValueError(f"need 0 <= start < stop <= deals; got start={start}, stop={stop}, "
                         f"deals={deals}")
    _, play_key = jax.random.split(jax.random.PRNGKey(seed))
    keys = jnp.repeat(deal_keys(seed, deals)[start:stop], repeats, axis=0)  # deal-major
    play = make_play(env, a, b)
    total, rows, first = [], keys.shape[0], start * repeats
    batch = min(batch, deals * repeats)
    bar = tqdm(total=rows, desc=f"{a.name} vs {b.name}", unit="game", file=sys.stderr,
               disable=not progress)
    for off in range(0, rows, batch):
        chunk = keys[off:off + batch]
        n = chunk.shape[0]
        if n < batch:  # pad to the compiled batch size; the padding is dropped below
            chunk = jnp.concatenate([chunk, keys[jnp.arange(batch - n) % rows]])
        states = jax.vmap(env.init)(chunk)
        got = play(states, jnp.asarray(seats(states), bool),
                   jax.random.fold_in(play_key, first + off), a.params, b.params)
        total.append(np.asarray(got)[:n])
        bar.update(n)
    bar.close()
    return np.concatenate(total).reshape(stop - start, repeats, env.num_players)


def side_scores(total, a_seats, side: str) -> np.ndarray:
    """A's score per game from the summed rewards ``total`` [B, P] (see :class:`Scheme`)."""
    total, a_seats = np.asarray(total), np.asarray(a_seats)
    summed = np.where(a_seats, total, 0.0).sum(axis=1)
    if side == "sum":
        return summed
    if side == "team":
        return summed / np.maximum(a_seats.sum(axis=1), 1)
    raise ValueError(f"side must be 'sum' or 'team', got {side!r}")


def duplicate_match(env, a: Agent, b: Agent, deals: int, seed: int = 0, batch: int = 128,
                    progress: bool = True, per_deal: bool = False,
                    compile_only: bool = False) -> dict | None:
    """Play ``deals`` deals, each in every game of the game's duplicate scheme, A against B.

    Returns ``game, a, b, deals, games, seed, mean, stderr`` (A's score per deal, averaged over its
    games, and its standard error over deals) and the scheme's extra keys: Gongzhu ``wpg``
    against Mr Greed; Dou Dizhu ``wp_a_landlord``, ``wp_b_landlord`` (landlord win rates),
    ``adp_a`` (A's points per game over both roles; = ``mean``), ``adp_a_landlord``,
    ``adp_a_peasants``; Dou Dizhu with bidding ``adp_a`` (= ``mean``, A's seats' points per game),
    ``adp_a_one_seat``, ``adp_a_two_seats``, ``void_rate``, ``landlord_share_a`` (how often A's
    player took the landlord seat, 0.5 between equals), ``wp_a_landlord``, ``wp_b_landlord``
    (each with a binomial ``_stderr``);
    Mini Dou Di Zhu ``wp_a`` (A's win rate), ``wp_a_first``, ``wp_b_first``;
    Tractor (``mean``: A's level reward per hand) ``win_rate``, ``level_up_rate``,
    ``leveling_rate``, ``aapd``, ``a_attack_points``, ``b_attack_points``, ``levels_a``,
    ``levels_b`` (:func:`tractor_metrics`).

    The deals depend on ``seed`` and ``deals`` only, so matches with the same seed are played
    on the same deals and can be compared deal by deal (``per_deal=True`` adds the list of
    per-deal scores under ``"per_deal"`` and A's score in each game, ``[games][deals]``, under
    ``"per_game"``; for a scheme with an outcome, its arrays ``[games][deals]`` under
    ``"per_game_outcome"``).

    ``compile_only=True`` compiles the match's program for these arguments and returns None
    without playing: a trainer does it in the background so that its first evaluation does not
    wait for the compiler (the compiled program is kept, see :func:`make_play`).
    """
    if deals < 1:
        raise ValueError(f"deals must be at least 1, got {deals}")
    if batch < 1:
        raise ValueError(f"batch must be at least 1, got {batch}")
    plan = scheme(env)
    batch = min(batch, deals)
    _, play_key = jax.random.split(jax.random.PRNGKey(seed))
    keys_of_deals = deal_keys(seed, deals)
    play = make_play(env, a, b, plan.outcome)
    scores = []  # [games, n] per chunk
    outcomes = []  # per chunk: the scheme's outcome arrays, [games, n] each
    bar = None  # made after the first compile, which says so on its own line
    for start in range(0, deals, batch):
        keys = keys_of_deals[start:start + batch]
        n = keys.shape[0]
        if n < batch:  # pad to the compiled batch size; the padding is dropped below
            keys = jnp.concatenate([keys, keys_of_deals[:batch - n]])
        dup = duplicate_states(env, keys)
        if compile_only and (play, batch) in _COMPILED:
            return None  # the program of another opponent of the same act (one_program)
        if compile_only or (progress and (play, batch) not in _COMPILED):
            what = f"the {env.name} match {a.name} vs {b.name} ({batch} deals at a time)"
            with programs.compiling(what, show=progress and not compile_only):
                play.lower(dup.states, dup.a_seats, jax.random.fold_in(play_key, start),
                           a.params, b.params).compile()
            _COMPILED.add((play, batch))
            if compile_only:
                return None
        if bar is None:
            bar = tqdm(total=deals, desc=f"{a.name} vs {b.name}", unit="deal", file=sys.stderr,
                       disable=not progress)
        total = play(dup.states, dup.a_seats, jax.random.fold_in(play_key, start), a.params,
                     b.params)
        if plan.outcome is not None:
            total, extra = total
            outcomes.append({k: np.asarray(v).reshape(dup.games, batch)[:, :n]
                             for k, v in extra.items()})
        score = side_scores(total, dup.a_seats, plan.side).reshape(dup.games, batch)[:, :n]
        scores.append(score)
        if progress:
            bar.set_postfix(mean=f"{np.concatenate(scores, axis=1).mean():+.2f}")
        bar.update(n)
    bar.close()
    scores = np.concatenate(scores, axis=1)
    games = scores.shape[0]
    per_deal_scores = scores.mean(axis=0)
    mean = float(per_deal_scores.mean())
    stderr = float(per_deal_scores.std(ddof=1) / np.sqrt(deals)) if deals > 1 else float("nan")
    result = {
        "game": env.name,
        "a": a.name,
        "b": b.name,
        "deals": deals,
        "games": deals * games,
        "seed": seed,
        "mean": mean,
        "stderr": stderr,
    }
    if plan.outcome is None:
        result.update(plan.summary(env, scores, a, b))
    else:
        extra = {k: np.concatenate([o[k] for o in outcomes], axis=1) for k in outcomes[0]}
        result.update(plan.summary(env, scores, a, b, **extra))
    if per_deal:
        result["per_deal"] = per_deal_scores.tolist()
        result["per_game"] = scores.tolist()
        if plan.outcome is not None:
            result["per_game_outcome"] = {k: v.tolist() for k, v in extra.items()}
    return result


def paired_match(env, a: Agent, b: Agent, opponent: Agent, deals: int, seed: int = 0,
                 batch: int = 128, progress: bool = True) -> dict:
    """A and B each against ``opponent``, on the same deals (one ``seed``), and A's score less
    B's deal by deal: does A beat the opponent by more than B does?  Returns ``{"a": ..., "b":
    ..., "difference": {"mean", "stderr", "deals"}}``, the two matches as
    :func:`duplicate_match` returns them (``per_deal`` included).  The difference's standard
    error is that of the per-deal differences: the luck of a deal, which both matches share,
    cancels as far as the two players' scores move together from deal to deal."""
    ra, rb = (duplicate_match(env, x, opponent, deals=deals, seed=seed, batch=batch,
                              progress=progress, per_deal=True) for x in (a, b))
    d = np.asarray(ra["per_deal"]) - np.asarray(rb["per_deal"])
    stderr = float(d.std(ddof=1) / np.sqrt(deals)) if deals > 1 else float("nan")
    return {"a": ra, "b": rb,
            "difference": {"mean": float(d.mean()), "stderr": stderr, "deals": deals}}
