"""Tractor helpers for people and tests, strings in and strings out: the legal follows of a lead
(:func:`follow_choices`; from a state, :func:`follow_completions`), the winner of a trick
(:func:`winning_seat`) and the outcome of a throw (:func:`throw_result`).  They run the env's own
jitted code (its sub-action masks, the trick winner and throw check of
:mod:`cardjax.games.tractor.tricks`): one implementation of the rules."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from cardjax.games.tractor import moves as tm
from cardjax.games.tractor import tricks
from cardjax.games.tractor.env import NUM_TYPES, State, Tractor
from cardjax.games.tractor.cards import counts_str, parse_counts, parse_level, parse_trump

_ENV = Tractor()


@jax.jit
def _mask_jit(state):
    return _ENV._legal_mask(state)


def _after_lead(lead: np.ndarray, hand: np.ndarray, lv: int, tr: int) -> State:
    """Seat 1 to follow ``lead`` (played by seat 0, taken as it is) holding ``hand``."""
    s = _ENV.trick_state([np.zeros(NUM_TYPES, np.int32), hand, np.zeros(NUM_TYPES, np.int32),
                          np.zeros(NUM_TYPES, np.int32)], lv + 2, ("S", "H", "D", "C", "NT")[tr])
    eff, order, slot = tm.context(jnp.int32(lv), jnp.int32(tr))
    suit, n, tractors, pairs = tm.lead_info(tm.pad(jnp.asarray(lead)), eff, slot)
    hold_key = tricks.lead_key(tm.pad(jnp.asarray(lead)), suit, tractors, pairs, order, slot)
    return s.replace(trick=s.trick.at[0].set(jnp.asarray(lead, jnp.int8)), lead_suit=suit,
                     lead_n=n, lead_k1=tractors[0], lead_pairs=pairs, lead_tractors=tractors,
                     num_in_trick=jnp.int32(1), holder=jnp.int32(0), hold_suit=suit,
                     hold_key=hold_key,
                     current_player=jnp.int32(1), played=s.played.at[0].set(jnp.asarray(lead, jnp.int8)))


def _sorted_strs(counts) -> list[str]:
    return counts_str(counts).split()


def follow_choices(hand, lead, level, trump) -> list[list[str]]:
    """Every legal follow of ``lead`` from ``hand`` (card strings), found by walking the env's own
    sub-action masks; each play a sorted list of card strings, the list sorted."""
    h = parse_counts(hand, "hand")
    ld = parse_counts(lead, "lead")
    if ld.sum() == 0:
        raise ValueError("the lead is empty")
    if h.sum() < ld.sum():
        raise ValueError(f"the hand holds {h.sum()} cards, fewer than the {ld.sum()} led")
    if ((h + ld) > 2).any():
        raise ValueError("hand and lead together hold some card more than twice")
    lv, tr = parse_level(level), parse_trump(trump)
    eff = tm.EFF[lv, tr, :NUM_TYPES]
    if len(set(eff[ld > 0])) != 1:
        raise ValueError("a lead is cards of one effective suit")
    start = _after_lead(ld, h, lv, tr)
    return sorted(_sorted_strs(c) for c in follow_completions(start))


class _TooMany(Exception):
    pass


def follow_completions(state: State, budget: int | None = None) -> list[np.ndarray] | None:
    """Every legal completion of the follow that the seat to act is building in ``state`` (its
    cards already on the table included), as int32[54] count vectors of the whole follow, found
    by walking the env's own sub-action masks; None when that takes more than ``budget`` mask
    evaluations."""
    seat = int(state.current_player)
    n = int(state.lead_n)
    tractors = np.asarray(state.lead_tractors)
    # against several tractors a follow is built unit by unit (see cardjax.games.tractor.legal.follow_unit)
    unit_ends = set(np.cumsum(2 * tractors).tolist()) if tractors[1] >= 2 else set()
    out, evaluated = set(), [0]

    def walk(part, done, last):
        # cards inside a unit are taken in increasing type order: each set is walked once
        if part.sum() == n:
            out.add(tuple(part))
            return
        evaluated[0] += 1
        if budget is not None and evaluated[0] > budget:
            raise _TooMany
        s = state.replace(trick=state.trick.at[seat].set(jnp.asarray(part, jnp.int8)),
                          follow_base=jnp.asarray(done, jnp.int8))
        mask = np.asarray(_mask_jit(s))
        for t in np.flatnonzero(mask[:NUM_TYPES]):
            if t >= last:
                nxt = part.copy()
                nxt[t] += 1
                if int(nxt.sum()) in unit_ends:
                    walk(nxt, nxt.copy(), 0)
                else:
                    walk(nxt, done, t)

    try:
        walk(np.asarray(state.trick[seat], np.int32), np.asarray(state.follow_base, np.int32), 0)
    except _TooMany:
        return None
    return [np.asarray(c, np.int32) for c in sorted(out)]


@jax.jit
def _winner_jit(plays, lv, tr):
    eff, order, slot = tm.context(lv, tr)
    _, _, tractors, pairs = tm.lead_info(plays[0], eff, slot)
    return tricks.trick_winner(plays, 0, tractors, pairs, eff, order, slot)


def winning_seat(plays, level, trump) -> int:
    """Index of the winning play in ``plays`` (2 to 4 plays, the lead first, as card strings)."""
    if not 1 <= len(plays) <= 4:
        raise ValueError(f"a trick has 1 to 4 plays, got {len(plays)}")
    rows = [parse_counts(p, f"play {i}") for i, p in enumerate(plays)]
    rows += [np.zeros(NUM_TYPES, np.int32)] * (4 - len(rows))
    lv, tr = parse_level(level), parse_trump(trump)
    return int(_winner_jit(tm.pad(jnp.asarray(np.stack(rows))), jnp.int32(lv), jnp.int32(tr)))


@jax.jit
def _throw_jit(lead, others, lv, tr):
    eff, order, slot = tm.context(lv, tr)
    return tricks.throw_check(lead, others, eff, order, slot)[:2]


def throw_result(lead, other_hands, level, trump) -> tuple[bool, list[str]]:
    """(stands, cards actually played) for a lead against the other seats' hands (up to 3)."""
    ld = parse_counts(lead, "lead")
    lv, tr = parse_level(level), parse_trump(trump)
    if ld.sum() == 0 or len(set(tm.EFF[lv, tr, :NUM_TYPES][ld > 0])) != 1:
        raise ValueError("a lead is a non-empty set of cards of one effective suit")
    if not 1 <= len(other_hands) <= 3:
        raise ValueError(f"give the hands of 1 to 3 other seats, got {len(other_hands)}")
    rows = [parse_counts(h, f"hand {i}") for i, h in enumerate(other_hands)]
    rows += [np.zeros(NUM_TYPES, np.int32)] * (3 - len(rows))
    stands, played = _throw_jit(tm.pad(jnp.asarray(ld)), tm.pad(jnp.asarray(np.stack(rows))),
                                jnp.int32(lv), jnp.int32(tr))
    return bool(stands), _sorted_strs(np.asarray(played)[:NUM_TYPES])
