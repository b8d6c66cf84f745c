"""Where a Tractor player is strong or weak: its phases mixed with another player's, its leads,
and the simplest trick decision there is.

* :func:`phase_mix` -- a player that declares, buries and chaodis like one player and plays the
  tricks like another; matched against random or the rule player
  (``cardjax diagnose``) it tells whether a trained player's weakness is before or
  in the tricks; :func:`follow_mix` splits the tricks into the leads and the follows.
* :func:`play_stats` -- a player's play against an opponent: how many cards it leads, how often a
  lead is a throw that fails (the smallest failing unit is played instead), and its choices as
  the last seat to follow a one-card lead, where the trick's outcome is known at once: the share
  of such decisions (those where the cards differ) on which it takes the most points for its
  team now, and the mean shortfall in points.  The rule player takes the best 97% of the time,
  random play about 40%.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from cardjax.core import Agent
from cardjax.games.tractor import env as tractor
from cardjax.games.tractor import state_facts

DONE = tractor.NUM_TYPES  # the action that ends a move


def phase_mix(pre: Agent, play: Agent, name: str | None = None) -> Agent:
    """``pre``'s declarations, burial and chaodi, ``play``'s tricks."""

    def act(params, key, state):
        a = pre.act(params[0], key, state)
        b = play.act(params[1], key, state)
        return jnp.where(state.phase >= tractor.PLAY, b, a)

    return Agent(name or f"{pre.name} pre-round + {play.name} tricks", act,
                 (pre.params, play.params))


def follow_mix(lead: Agent, follow: Agent, name: str | None = None,
               places: tuple = (1, 2, 3)) -> Agent:
    """``follow``'s follows (by default the second to fourth plays of every trick; ``places``:
    which of them, 1 to 3), ``lead``'s everything else (declarations, burial, chaodi, the leads
    and the other follows)."""
    places = tuple(places)
    if not places or not set(places) <= {1, 2, 3}:
        raise ValueError(f"places must be some of 1, 2, 3 (the plays after the lead), got {places}")

    def act(params, key, state):
        a = lead.act(params[0], key, state)
        b = follow.act(params[1], key, state)
        place = jnp.any(state.num_in_trick == jnp.asarray(places))
        following = (state.phase == tractor.PLAY) & (state.num_in_trick > 0) & place
        return jnp.where(following, b, a)

    which = "follows" if places == (1, 2, 3) else f"follows {'/'.join(map(str, places))}"
    return Agent(name or f"{lead.name} leads + {follow.name} {which}", act,
                 (lead.params, follow.params))


def _counters():
    return dict(leads=0, lead_cards=0, failed_throws=0, last=0, last_best=0, last_shortfall=0)


def _make_run(env, agent: Agent, opponent: Agent, batch: int):
    """``run(key, agent_parity) -> counters`` of one batch of deals, compiled once."""
    act_a = jax.vmap(agent.act, in_axes=(None, 0, 0))
    act_b = jax.vmap(opponent.act, in_axes=(None, 0, 0))
    step = jax.vmap(env.step)
    rows = jnp.arange(batch)

    def card_outcomes(states):  # int32[B, 54]: the points each card takes for the mover's team
        seat = states.current_player

        def one(card):
            swing = jax.vmap(state_facts.point_swing)(states, step(states, jnp.full(batch, card)))
            return swing[rows, seat]

        return jax.vmap(one)(jnp.arange(tractor.NUM_TYPES)).T

    def run(key, parity):
        k_deal, key = jax.random.split(key)
        states = jax.vmap(env.init)(jax.random.split(k_deal, batch))
        c0 = {k: jnp.int32(0) for k in _counters()}

        def cond(c):
            return ~jnp.all(c[0].terminated)

        def body(c):
            s, key, c = c
            key, ka, kb = jax.random.split(key, 3)
            ours = (s.current_player % 2 == parity) & ~s.terminated & (s.phase == tractor.PLAY)
            action = jnp.where(s.current_player % 2 == parity,
                               act_a(agent.params, jax.random.split(ka, batch), s),
                               act_b(opponent.params, jax.random.split(kb, batch), s))
            legal = s.legal_action_mask[:, :tractor.NUM_TYPES]
            lead_size = jnp.sum(s.trick[rows, s.leader], axis=1)
            last = (ours & (s.num_in_trick == 3) & (lead_size == 1)
                    & (jnp.sum(legal, axis=1) > 1))
            outcome = jax.lax.cond(jnp.any(last), card_outcomes,
                                   lambda s: jnp.zeros(legal.shape, jnp.int32), s)
            best = jnp.max(jnp.where(legal, outcome, -1000), axis=1)
            worst = jnp.min(jnp.where(legal, outcome, 1000), axis=1)
            chosen = outcome[rows, jnp.minimum(action, tractor.NUM_TYPES - 1)]
            last = last & (best > worst)  # decisions where the card matters now
            nxt = step(s, action)
            lead = ours & (s.num_in_trick == 0) & (action == DONE)
            played = jnp.sum(nxt.trick[rows, s.current_player], axis=1)
            add = dict(leads=lead, lead_cards=jnp.where(lead, lead_size, 0),
                       failed_throws=lead & (played < lead_size), last=last,
                       last_best=last & (chosen == best),
                       last_shortfall=jnp.where(last, best - chosen, 0))
            c = {k: c[k] + jnp.sum(add[k], dtype=jnp.int32) for k in c}
            return nxt, key, c

        return jax.lax.while_loop(cond, body, (states, key, c0))[2]

    return jax.jit(run)


def play_stats(env, agent: Agent, opponent: Agent, deals: int = 64, seed: int = 0,
               batch: int = 64) -> dict:
    """``agent``'s leads and last-seat follows against ``opponent`` over ``deals`` deals (rounded
    up to a multiple of ``batch``), each played twice with the teams swapped (see the module
    docstring).  Keys: ``leads``, ``cards_per_lead``, ``failed_throw_rate`` (of the leads),
    ``last_seat_decisions``, ``last_seat_best_rate``, ``last_seat_shortfall`` (mean points)."""
    if env.name != "tractor":
        raise ValueError(f"play_stats needs the tractor env, got {env.name!r}")
    if deals < 1 or batch < 1:
        raise ValueError(f"deals and batch must be at least 1, got {deals} and {batch}")
    batch = min(batch, deals)
    run = _make_run(env, agent, opponent, batch)
    total = _counters()
    key = jax.random.PRNGKey(seed)
    for _ in range(-(-deals // batch)):
        key, k = jax.random.split(key)
        for parity in (0, 1):
            got = run(k, jnp.int32(parity))
            total = {n: total[n] + int(got[n]) for n in total}
    leads, last = max(total["leads"], 1), max(total["last"], 1)
    return {"leads": total["leads"], "cards_per_lead": total["lead_cards"] / leads,
            "failed_throw_rate": total["failed_throws"] / leads,
            "last_seat_decisions": total["last"], "last_seat_best_rate": total["last_best"] / last,
            "last_seat_shortfall": total["last_shortfall"] / last}

