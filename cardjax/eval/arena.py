"""Duplicate matches between two agents.

Every deal is played several times with the sides swapped, so luck of the deal cancels: each game
of a deal has its own initial state and its own set of seats held by agent A (B holds the others).
How a game builds those games is its *duplicate scheme* (:data:`SCHEMES`):

- Gongzhu and Mini Dou Di Zhu (:func:`seat_rotation`): the deal as dealt and again with every hand
  (and the first lead) moved one seat on; A sits at team 0's seats in both, so each side holds
  each hand (Mini Dou Di Zhu: A leads in the first game, B in the second).
- Dou Dizhu (:func:`role_swap`): the same deal (three hands and the bottom) twice; in the first
  game A is the landlord and B plays both peasants, in the second B is the landlord and A plays
  both peasants.
- Dou Dizhu with bidding (:func:`seat_subsets`): the same deal (hands, bottom, the seat that
  opens the auction) six times, A at every non-empty proper subset of the three seats ({0}, {1},
  {2}, {0, 1}, {0, 2}, {1, 2}) and B at the others.  Each seat is A's in three games and B's in
  three, and each game has its mirror (the seats swapped), so the luck of the cards and of the
  auction cancels: two identical deterministic players score exactly 0.  A deal that everyone
  passes is void (rewards 0).
- Tractor (:func:`team_swap`): the same initial state (deal order, level, dealer) twice; A plays
  seats {0, 2} in the first game and {1, 3} in the second.  Every seat receives the same cards in
  the same order in both games and the dealer seat is the same, so each side holds each pair of
  hands once and, with a dealer fixed by the deal (``dealer="random"``, the default, or a seat),
  attacks once and defends once with the same cards.  The trump can differ between the two games:
  the players declare it during the deal.  (With ``dealer="declarer"`` the declarations decide
  the dealer and the roles need not swap; the metrics still use the roles actually played.)

A game's score is A's side total (:class:`Scheme` ``side``): the reward of A's team in Gongzhu
(teammates share it), the sum over A's seats in Dou Dizhu (landlord ``+-2m``, both peasants
together ``-+2m`` under ADP; Tractor: the levels A's team gained in the hand, or minus those B's
team gained).  A deal's score is the mean over its games; the match reports the mean over deals
and its standard error, plus per-game figures (:func:`duplicate_match`).  Against Mr Greed
(``b="greed"``) the Gongzhu mean is the ScrofaZero paper's WPG.
"""

from __future__ import annotations

import sys
from functools import partial
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from tqdm.auto import tqdm

from cardjax import programs
from cardjax.core import Agent
from cardjax.gate import either


class Duplicates(NamedTuple):
    """The games of a batch of ``n`` deals, game-major: row ``g * n + d`` is game ``g`` of deal ``d``."""

    states: object  # batched initial states, leading axis games * n
    a_seats: jax.Array  # bool[games * n, num_players]: the seats agent A plays
    games: int  # games per deal


class Scheme(NamedTuple):
    """How one game turns a deal into duplicate games and scores them.

    ``build(env, first) -> (states, a_seats)``: lists (one entry per game) of batched initial
    states and bool[n, num_players] seat masks, from the batch ``first`` of ``env.init`` deals.
    ``side``: ``"team"`` (A's score is the reward of any one of its seats: teammates share the team
    reward) or ``"sum"`` (the sum of the rewards of A's seats).
    ``summary(env, scores, a, b, **outcome) -> dict``: extra result keys from A's scores
    float[games, deals] (and the ``outcome`` arrays, when the scheme has one).
    """

    build: Callable
    side: str
    summary: Callable
    # optional: ``outcome(env, final_states, a_seats) -> dict of arrays [B]`` computed in the
    # compiled play from the finished games; its entries reach ``summary`` as keyword arguments
    # (arrays [games, deals]).  Schemes without one get ``summary(env, scores, a, b)``.
    outcome: Callable | None = None


def seat_rotation(env, first):
    """The deal as dealt and with every hand and the first lead one seat on (``env.rotate``);
    A holds team 0's seats in both games."""
    a = jnp.asarray(np.asarray(env.teams) == 0)
    seats = jnp.broadcast_to(a, (first.terminated.shape[0], env.num_players))
    rotated = jax.vmap(partial(env.rotate, shift=1))(first)
    return [first, rotated], [seats, seats]


def role_swap(env, first):
    """The same deal twice: A is the landlord in the first game, B in the second."""
    if getattr(env, "bidding", False):
        raise ValueError("role_swap swaps fixed roles; with bidding the arena uses seat_subsets")
    landlord = first.landlord[:, None] == jnp.arange(env.num_players)
    return [first, first], [landlord, ~landlord]


SUBSETS = ((1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (1, 0, 1), (0, 1, 1))  # game g mirrors 5 - g


def seat_subsets(env, first):
    """The same deal six times, A at each non-empty proper subset of the seats (:data:`SUBSETS`)."""
    n = first.terminated.shape[0]
    seats = [jnp.broadcast_to(jnp.asarray(m, bool), (n, env.num_players)) for m in SUBSETS]
    return [first] * len(SUBSETS), seats


def _bidding_outcome(env, states, a_seats):
    """Per finished game: whether the deal was void (everyone passed) and whether A's player held
    the landlord seat."""
    rows = jnp.arange(a_seats.shape[0])
    void = states.landlord < 0
    return {"void": void, "a_landlord": a_seats[rows, jnp.maximum(states.landlord, 0)] & ~void}


def _bidding_summary(env, scores, a, b, void, a_landlord):
    # scores, void, ...: [6 games, deals]; games 0-2 give A one seat, 3-5 two seats.  The sign of
    # A's score is the landlord's result when A holds the landlord seat (its other seat, if any, is
    # a peasant losing half as much), and the peasants' otherwise.
    played = ~void
    b_landlord = played & ~a_landlord
    landlord_won = played & ((scores > 0) == a_landlord)

    def rate(hit, of):
        return float(hit[of].mean()) if of.any() else None

    def se(hit, of):  # binomial over the games counted (a deal's six games are not independent)
        n = int(of.sum())
        if n < 2:
            return None
        p = float(hit[of].mean())
        return float(np.sqrt(p * (1 - p) / n))

    return {
        "adp_a": float(scores.mean()),
        "adp_a_one_seat": float(scores[:3].mean()),
        "adp_a_two_seats": float(scores[3:].mean()),
        "void_rate": float(void.mean()),
        # the landlord seat's holder: 0.5 for two identical players (each seat is A's in half)
        "landlord_share_a": rate(a_landlord, played),
        "wp_a_landlord": rate(landlord_won, a_landlord),
        "wp_b_landlord": rate(landlord_won, b_landlord),
        "landlord_share_a_stderr": se(a_landlord, played),
        "wp_a_landlord_stderr": se(landlord_won, a_landlord),
        "wp_b_landlord_stderr": se(landlord_won, b_landlord),
    }


def _gongzhu_summary(env, scores, a, b):
    return {"wpg": float(scores.mean())} if b.name == "greed" else {}


def _doudizhu_summary(env, scores, a, b):
    # scores[0]: A landlord; scores[1]: A's two peasants against B's landlord.
    return {
        "wp_a_landlord": float(np.mean(scores[0] > 0)),
        "wp_b_landlord": float(np.mean(scores[1] < 0)),
        "adp_a": float(scores.mean()),
        "adp_a_landlord": float(scores[0].mean()),
        "adp_a_peasants": float(scores[1].mean()),
    }


def _mini_summary(env, scores, a, b):
    # scores[0]: A leads; scores[1]: B leads (with A's first-game hand).
    return {
        "wp_a": float(np.mean(scores > 0)),
        "wp_a_first": float(np.mean(scores[0] > 0)),
        "wp_b_first": float(np.mean(scores[1] < 0)),
    }


def team_swap(env, first):
    """Tractor: the same deal, level and dealer twice; A at seats {0, 2}, then at {1, 3}."""
    n = first.terminated.shape[0]
    even = jnp.broadcast_to(jnp.arange(env.num_players) % 2 == 0, (n, env.num_players))
    return [first, first], [even, ~even]


def _tractor_outcome(env, states, a_seats):
    """Per finished hand: whether A's team attacked, and the attackers' final score (tricks +
    kitty bonus + throw penalties, at least 0: the figure the level table reads)."""
    rows = jnp.arange(a_seats.shape[0])
    attacker_seat = (states.dealer + 1) % env.num_players
    score = jnp.maximum(states.attacker_points + states.kitty_bonus + states.penalty, 0)
    return {"a_attacks": a_seats[rows, attacker_seat], "attack_score": score.astype(jnp.int32)}


def tractor_metrics(scores, a_attacks, attack_score) -> dict:
    """Tractor match figures (rules file; ShengJi+ report 4.6) from per-hand arrays of one shape:
    ``scores`` A's level reward (levels A's team gained, or minus those B's team gained),
    ``a_attacks`` whether A's team attacked, ``attack_score`` the attackers' final points.

    - ``win_rate``: share of hands A's team won (the attackers win with at least 80 points, else
      the defenders): the report's win rate;
    - ``level_up_rate``: share of hands in which A's team gained levels (attackers with 80..115
      win the hand but gain none);
    - ``leveling_rate``: levels gained by A / levels gained by both (nan if none);
    - ``aapd``: A's mean attacking score minus B's mean attacking score (``a_attack_points``,
      ``b_attack_points``; nan where a side never attacked);
    - ``levels_a``, ``levels_b``: levels gained in all.
    """
    scores = np.asarray(scores, np.float64).ravel()
    att = np.asarray(a_attacks, bool).ravel()
    pts = np.asarray(attack_score, np.float64).ravel()
    if not scores.shape == att.shape == pts.shape:
        raise ValueError("scores, a_attacks and attack_score must have one shape")
    won = np.where(att, pts >= 80, pts < 80)
    up_a = np.maximum(scores, 0).sum()
    up_b = np.maximum(-scores, 0).sum()
    total = up_a + up_b
    a_pts = float(pts[att].mean()) if att.any() else float("nan")
    b_pts = float(pts[~att].mean()) if (~att).any() else float("nan")
    return {
        "win_rate": float(won.mean()),
        "level_up_rate": float(np.mean(scores > 0)),
        "leveling_rate": float(up_a / total) if total > 0 else float("nan"),
        "aapd": a_pts - b_pts,
        "a_attack_points": a_pts,
        "b_attack_points": b_pts,
        "levels_a": float(up_a),
        "levels_b": float(up_b),
    }


def leveling_rate(per_game) -> tuple[float, float]:
    """Leveling rate (A's levels / both teams' levels) of A's level rewards ``per_game``
    [games][deals] and its standard error over deals (ratio estimator)."""
    s = np.asarray(per_game, np.float64)
    a = np.maximum(s, 0).sum(axis=0)
    t = np.abs(s).sum(axis=0)
    n = a.shape[0]
    if t.sum() == 0:
        return float("nan"), float("nan")
    rate = a.sum() / t.sum()
    if n < 2:
        return float(rate), float("nan")
    se = np.sqrt(np.sum((a - rate * t) ** 2) / (n * (n - 1))) / t.mean()
    return float(rate), float(se)


def _tractor_summary(env, scores, a, b, a_attacks, attack_score):
    return tractor_metrics(scores, a_attacks, attack_score)


SCHEMES: dict[str, Scheme] = {
    "gongzhu": Scheme(seat_rotation, "team", _gongzhu_summary),
    "mini_doudizhu": Scheme(seat_rotation, "sum", _mini_summary),
    "doudizhu": Scheme(role_swap, "sum", _doudizhu_summary),
    "tractor": Scheme(team_swap, "team", _tractor_summary, _tractor_outcome),
}


BIDDING = Scheme(seat_subsets, "sum", _bidding_summary, _bidding_outcome)


def scheme(env) -> Scheme:
    if env.name == "doudizhu" and getattr(env, "bidding", False):
        return BIDDING
    try:
        return SCHEMES[env.name]
    except KeyError:
        raise ValueError(f"no duplicate scheme for {env.name!r}; games with one: "
                         f"{', '.join(SCHEMES)}") from None


def duplicate_states(env, keys) -> Duplicates:
    """The duplicate games of the deals ``env.init(keys)``: states and A's seats, game-major."""
    states, seats = scheme(env).build(env, jax.vmap(env.init)(keys))
    return Duplicates(
        jax.tree_util.tree_map(lambda *x: jnp.concatenate(x), *states),
        jnp.concatenate(seats), len(states),
    )


_PLAY_CACHE: dict = programs.keep({})


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

    _PLAY_CACHE[cache_key] = jax.jit(play)
    return _PLAY_CACHE[cache_key]


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
    bar = tqdm(total=deals, desc=f"{a.name} vs {b.name}", unit="deal", file=sys.stderr,
               disable=not progress or compile_only)
    for start in range(0, deals, batch):
        keys = keys_of_deals[start:start + batch]
        n = keys.shape[0]
        if n < batch:  # pad to the compiled batch size; the padding is dropped below
            keys = jnp.concatenate([keys, keys_of_deals[:batch - n]])
        dup = duplicate_states(env, keys)
        if compile_only:
            play.lower(dup.states, dup.a_seats, jax.random.fold_in(play_key, start), a.params,
                       b.params).compile()
            bar.close()
            return None
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
