"""Duplicate matches between two agents.

Every deal is played once per seat rotation, so each side holds each hand: for Gongzhu the deal
is played as dealt and again with every hand (and the first lead) moved one seat on.  Agent A sits
at the seats of team 0, agent B at the others.  The score of a deal is A's team margin averaged
over its rotations; the match reports the mean over deals and its standard error.  Against
Mr Greed (``b="greed"``) that mean is the ScrofaZero paper's WPG.
"""

from __future__ import annotations

import sys
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from tqdm.auto import tqdm

from cardjax.agents import Agent


def duplicate_states(env, keys):
    """Initial states of a batch of deals and their rotations: shape [rotations * n, ...]."""
    first = jax.vmap(env.init)(keys)
    rotations = [first] + [jax.vmap(partial(env.rotate, shift=r))(first) for r in (1,)]
    return jax.tree_util.tree_map(lambda *x: jnp.concatenate(x), *rotations), len(rotations)


def make_play(env, a: Agent, b: Agent):
    """Jitted ``play(states, key) -> rewards summed over each game`` (float32[B, num_players])."""
    a_seat = jnp.asarray(np.asarray(env.teams) == 0)

    def act(agent, key, states):
        keys = jax.random.split(key, states.terminated.shape[0])
        return jax.vmap(agent.act, in_axes=(None, 0, 0))(agent.params, keys, states)

    def play(states, key):
        def cond(carry):
            return ~jnp.all(carry[0].terminated)

        def body(carry):
            s, total, key = carry
            key, ka, kb = jax.random.split(key, 3)
            action = jnp.where(a_seat[s.current_player], act(a, ka, s), act(b, kb, s))
            s = jax.vmap(env.step)(s, action)
            return s, total + s.rewards, key

        total = jnp.zeros_like(states.rewards)
        _, total, _ = jax.lax.while_loop(cond, body, (states, total, key))
        return total

    return jax.jit(play)


def duplicate_match(env, a: Agent, b: Agent, deals: int, seed: int = 0, batch: int = 128,
                    progress: bool = True, per_deal: bool = False) -> dict:
    """Play ``deals`` deals (each in every rotation) between A (team 0) and B; see module doc.

    The deals depend on ``seed`` and ``deals`` only, so matches with the same seed are played
    on the same deals and can be compared deal by deal (``per_deal=True`` adds the list of
    per-deal margins under ``"per_deal"``).
    """
    if deals < 1:
        raise ValueError(f"deals must be at least 1, got {deals}")
    if batch < 1:
        raise ValueError(f"batch must be at least 1, got {batch}")
    batch = min(batch, deals)
    key = jax.random.PRNGKey(seed)
    deal_key, play_key = jax.random.split(key)
    deal_keys = jax.random.split(deal_key, deals)
    a_team_seat = int(np.flatnonzero(np.asarray(env.teams) == 0)[0])
    play = make_play(env, a, b)
    margins = []
    chunks = range(0, deals, batch)
    bar = tqdm(total=deals, desc=f"{a.name} vs {b.name}", unit="deal", file=sys.stderr,
               disable=not progress)
    for start in chunks:
        keys = deal_keys[start:start + batch]
        n = keys.shape[0]
        if n < batch:  # pad to the compiled batch size; the padding is dropped below
            keys = jnp.concatenate([keys, deal_keys[:batch - n]])
        states, rotations = duplicate_states(env, keys)
        total = np.asarray(play(states, jax.random.fold_in(play_key, start)))
        margin = total[:, a_team_seat].reshape(rotations, batch)[:, :n]
        margins.append(margin.mean(axis=0))
        if progress:
            so_far = np.concatenate(margins)
            bar.set_postfix(mean=f"{so_far.mean():+.1f}")
        bar.update(n)
    bar.close()
    per_deal_margins = np.concatenate(margins)
    mean = float(per_deal_margins.mean())
    stderr = float(per_deal_margins.std(ddof=1) / np.sqrt(deals)) if deals > 1 else float("nan")
    result = {
        "game": env.name,
        "a": a.name,
        "b": b.name,
        "deals": deals,
        "games": deals * rotations,
        "seed": seed,
        "mean": mean,
        "stderr": stderr,
    }
    if b.name == "greed" and env.name == "gongzhu":
        result["wpg"] = mean
    if per_deal:
        result["per_deal"] = per_deal_margins.tolist()
    return result
