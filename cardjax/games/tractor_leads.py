"""Tractor with whole-unit leads: a view of the env in which a lead is ONE action.

The env builds a lead card by card and then ``done``; any cards of one suit may be led, and a
lead of several units is a throw that may fail.  :class:`UnitLeads` wraps a
:class:`~cardjax.games.tractor.Tractor` env: same states, same transitions, but at the start of
a trick the seat to act chooses a whole unit of its hand -- a single, a pair, or a tractor (any
held run of two or more pairs, a trump run through the level cards included) -- and the unit is
led at once (:meth:`Tractor.lead`).  Throws are not offered, so no lead fails.  Every other
decision (declarations, burial, chaodi, follows) is the env's own action.

Actions (``num_actions = 663``):
  ``0..65``      the env's actions; at a trick's start, card ``t`` leads the single ``t``;
  ``66..119``    lead the pair of type ``a - 66``;
  ``120..662``   lead a tractor: the run of pairs along row ``TRACTOR_ROW[j]`` of the path table
                 (:data:`~cardjax.games.tractor_moves.P_LEN`: start, length, alternative) in the
                 effective suit ``TRACTOR_SUIT[j]`` (4: trump), ``j = a - 120``.

A player of this view plays the plain env too: :meth:`UnitLeads.decision_state` is the state in
which a lead being built was chosen, and :meth:`UnitLeads.env_action` the env action that goes on
building it, so a player that chooses whole units can be asked at every card of its lead and
answer the same unit each time.  A player of the plain env that leads single units
(:meth:`UnitLeads.lift`) plays this view.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from cardjax import legal_words
from cardjax.core import random_action
from cardjax.games import tractor
from cardjax.games import tractor_moves as tm

Array = jax.Array

N = tm.NUM_TYPES
BASE = tractor.NUM_ACTIONS  # 66
PAIR0 = BASE  # lead the pair of type a - PAIR0
TRACTOR0 = PAIR0 + N  # lead the tractor TRACTOR_SUIT[j], TRACTOR_ROW[j], j = a - TRACTOR0
MAX_LEAD = tractor.HAND  # the most cards a lead building step adds


def _tractor_paths():
    """The runs of two pairs or more a hand can hold, as (effective suit, row of the path table):
    in a plain suit along its 12 ranks; in trump any run, once per alternative where it goes
    through the layered position (12 with a trump suit, 13 without: :func:`unit_mask` offers the
    alternatives of the other one, which hold the same cards, only once)."""
    covers = (tm.P_START[:, None] <= np.array([12, 13])) & (
        tm.P_START[:, None] + tm.P_LEN[:, None] > np.array([12, 13]))
    two = tm.P_LEN >= 2
    plain = np.flatnonzero(two & (tm.P_ALT == 0) & (tm.P_START + tm.P_LEN <= 12))
    trump = np.flatnonzero(two & ((tm.P_ALT == 0) | covers[:, 0] | covers[:, 1]))
    suit = np.concatenate([np.repeat(np.arange(4), len(plain)), np.full(len(trump), tm.TRUMP)])
    row = np.concatenate([np.tile(plain, 4), trump])
    return suit.astype(np.int32), row.astype(np.int32), covers[row]


TRACTOR_SUIT, TRACTOR_ROW, _COVERS = _tractor_paths()
NUM_ACTIONS = TRACTOR0 + len(TRACTOR_ROW)
# per action: the pairs of its unit (0: a single or an env action, 1: a pair, L: a tractor of L)
UNIT_PAIRS = np.concatenate([np.zeros(PAIR0, np.int32), np.ones(N, np.int32),
                             tm.P_LEN[TRACTOR_ROW]]).astype(np.int32)
_TOP_POS = tm.P_START[TRACTOR_ROW] + tm.P_LEN[TRACTOR_ROW] - 1  # a tractor's top card's place
_TOP_ALT = tm.P_ALT[TRACTOR_ROW]


def lead_start(state) -> Array:
    """bool: the seat to act starts a trick (nothing of its lead built yet)."""
    seat = state.current_player
    return ((state.phase == tm.PLAY) & (state.num_in_trick == 0)
            & (jnp.sum(state.trick[seat], dtype=jnp.int32) == 0) & ~state.terminated)


def unit_tops(state) -> Array:
    """int32[NUM_ACTIONS]: the highest card type of each action's unit in ``state``'s level and
    trump (a card action: its card; the env's other actions: themselves)."""
    _, _, slot = tm.context(state.level, state.trump)
    a = jnp.arange(PAIR0 + N)
    tractor_top = slot[jnp.asarray(TRACTOR_SUIT), jnp.asarray(_TOP_POS), jnp.asarray(_TOP_ALT)]
    return jnp.concatenate([jnp.where(a < PAIR0, a, a - PAIR0), tractor_top]).astype(jnp.int32)


def unit_mask(state) -> Array:
    """bool[NUM_ACTIONS - BASE]: the pairs and tractors the seat to act holds (whether or not it
    starts a trick)."""
    _, _, slot = tm.context(state.level, state.trump)
    pairs = tm.pad(state._hands[state.current_player]) == 2
    runs = jax.vmap(lambda layout: tm.held_paths(layout, pairs))(slot)  # [5, paths]
    held = runs[jnp.asarray(TRACTOR_SUIT), jnp.asarray(TRACTOR_ROW)]
    layered = jnp.where(state.trump == tm.NT, _COVERS[:, 1], _COVERS[:, 0])
    once = (jnp.asarray(_TOP_ALT) == 0) | jnp.asarray(layered)  # an alternative's own cards
    return jnp.concatenate([pairs[:N], held & once])


def lead_cards(state, action) -> Array:
    """int32[54]: the cards of the unit ``action`` leads (zeros for the env's actions other than
    a card)."""
    _, _, slot = tm.context(state.level, state.trump)
    a = jnp.asarray(action, jnp.int32)
    j = jnp.clip(a - TRACTOR0, 0, len(TRACTOR_ROW) - 1)
    path = jnp.asarray(TRACTOR_ROW)[j]
    types = tm.path_types(slot[jnp.asarray(TRACTOR_SUIT)[j]], path[None])[0]  # dummy off path
    run = jnp.zeros(tm.PAD, jnp.int32).at[types].set(2)[:N]
    card = jnp.arange(N) == jnp.clip(jnp.where(a < PAIR0, a, a - PAIR0), 0, N - 1)
    return jnp.where(a < N, card.astype(jnp.int32),
                     jnp.where(a < PAIR0, 0, jnp.where(a < TRACTOR0, 2 * card, run)))


def unit_of(state, cards) -> Array:
    """int32: the action that leads ``cards`` (int[54]) in ``state``'s level and trump -- a
    single, a pair or a held tractor -- or -1 if they are not one unit the seat can lead."""
    _, _, slot = tm.context(state.level, state.trump)
    cards = jnp.asarray(cards, jnp.int32)
    n = jnp.sum(cards)
    first = jnp.argmax(cards).astype(jnp.int32)
    types = jax.vmap(lambda e, r: tm.path_types(slot[e], r[None])[0])(
        jnp.asarray(TRACTOR_SUIT), jnp.asarray(TRACTOR_ROW))  # [tractors, 16]
    on_path = jnp.all((tm.pad(cards)[types] == 2) | (types == tm.DUMMY), axis=1)
    match = on_path & (2 * jnp.asarray(tm.P_LEN)[jnp.asarray(TRACTOR_ROW)] == n)
    match = match & unit_mask(state)[N:]
    tractor_id = jnp.where(jnp.any(match), TRACTOR0 + jnp.argmax(match), -1)
    return jnp.where(n == 1, first, jnp.where((n == 2) & (cards[first] == 2), PAIR0 + first,
                                               tractor_id)).astype(jnp.int32)


class UnitLeads:
    """The view of ``env`` (a :class:`~cardjax.games.tractor.Tractor`) whose leads are whole
    units: ``init``, ``step``, ``legal_mask``, ``legal_words`` and ``random_action`` in this
    view's actions; states are the env's (their ``legal_action_mask`` is the env's)."""

    num_actions = NUM_ACTIONS

    def __init__(self, env: tractor.Tractor):
        if env.name != "tractor":
            raise ValueError(f"whole-unit leads are a view of the tractor env, got {env.name!r}")
        self.env = env
        self.name = env.name
        self.num_players = env.num_players
        self.max_steps = env.max_steps

    def init(self, key):
        return self.env.init(key)

    def legal_mask(self, state) -> Array:
        """bool[NUM_ACTIONS]: at a trick's start, the held singles, pairs and tractors; else the
        env's mask (and none of the unit actions)."""
        start = lead_start(state)
        base = state.legal_action_mask
        units = unit_mask(state) & start
        return jnp.concatenate([base, units])

    def legal_words(self, state) -> Array:
        return legal_words.pack(self.legal_mask(state))

    def is_legal(self, state, action) -> Array:
        return self.legal_mask(state)[action]

    def random_action(self, key, state) -> Array:
        return random_action(key, self.legal_mask(state))

    def step(self, state, action, key=None):
        """One action of this view: a whole lead at a trick's start, else the env's step (an
        illegal action is the env's illegal action)."""
        action = jnp.asarray(action, jnp.int32)
        ok = (action >= 0) & (action < NUM_ACTIONS)
        whole = lead_start(state) & ok & self.legal_mask(state)[jnp.clip(action, 0,
                                                                          NUM_ACTIONS - 1)]
        led = self.env.lead(state, lead_cards(state, action), whole)
        # the env's step for the rest (a unit action outside a trick's start is out of its range)
        played = self.env.step(state, jnp.where(whole, 0, action), key)
        return jax.tree_util.tree_map(lambda a, b: jnp.where(whole, a, b), led, played)

    # ------------------------------------------------------------ playing the plain env
    def decision_state(self, state):
        """The state in which the lead being built in ``state`` was chosen (its cards back off
        the table); ``state`` itself when no lead is being built."""
        seat = state.current_player
        part = state.trick[seat]
        n = jnp.sum(part, dtype=jnp.int32)
        building = (state.phase == tm.PLAY) & (state.num_in_trick == 0) & (n > 0)
        row = (jnp.arange(4) == seat)[:, None]
        start = state.replace(trick=jnp.where(row, jnp.zeros_like(state.trick), state.trick),
                              step_count=state.step_count - n)
        start = start.replace(legal_action_mask=self.env._legal_mask(start))
        return jax.tree_util.tree_map(lambda a, b: jnp.where(building, a, b), start, state)

    def env_action(self, state, action) -> Array:
        """int32: the env action that plays this view's ``action`` on from ``state`` -- chosen in
        :meth:`decision_state` of ``state``: the next card of the lead it names not yet on the
        table, then done; any other action as it is."""
        seat = state.current_player
        part = state.trick[seat].astype(jnp.int32)
        leading = ((state.phase == tm.PLAY) & (state.num_in_trick == 0)
                   & (action < NUM_ACTIONS))
        unit = (action < N) | (action >= PAIR0)
        rest = lead_cards(state, action) - part > 0
        nxt = jnp.where(jnp.any(rest), jnp.argmax(rest), tractor.DONE)
        return jnp.where(leading & unit, nxt, action).astype(jnp.int32)

    def lift(self, act):
        """``act(params, key, state) -> env action`` of a plain-env player as a player of this
        view: at a trick's start its whole lead is built (its calls until done, at most 25) and
        named as this view's action, or -1 if the lead is not a single unit; elsewhere its action
        as it is."""
        env = self.env

        def lifted(params, key, state):
            def build(c):
                s, a, i = c
                a = act(params, jax.random.fold_in(key, i), s).astype(jnp.int32)
                nxt = env.step(s, a)
                s = jax.tree_util.tree_map(lambda x, y: jnp.where(a == tractor.DONE, x, y), s, nxt)
                return s, a, i + 1

            def going(c):
                return (c[1] != tractor.DONE) & (c[2] <= MAX_LEAD)

            start = lead_start(state)
            first = act(params, key, state).astype(jnp.int32)
            s, _, _ = jax.lax.while_loop(lambda c: going(c) & start, build,
                                         (state, jnp.int32(-1), jnp.int32(0)))
            unit = unit_of(state, s.trick[state.current_player])
            return jnp.where(start, unit, first).astype(jnp.int32)

        return lifted
