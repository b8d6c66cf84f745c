"""Tractor with whole-unit leads: a view of the env in which a lead is ONE action.

The env builds a lead card by card and then ``done``; any cards of one suit may be led, and a
lead of several units is a throw that may fail.  :class:`UnitLeads` wraps a
:class:`~cardjax.games.tractor.env.Tractor` env: same states, same transitions, but at the start of
a trick the seat to act chooses a whole unit of its hand -- a single, a pair, or a tractor (any
held run of two or more pairs, a trump run through the level cards included) -- and the unit is
led at once (:meth:`Tractor.lead`).  Without ``throws`` no throw is offered, so no lead fails.
With ``throws=True`` two throws per effective suit are offered too: the seat's *boss cards* of
the suit (every card of it no unseen card beats as a single, every pair no unseen pair beats:
such a throw cannot fail) and its *whole suit* (which may fail; :func:`throw_safe` says whether
no unseen cards could make it fail), each only where it is more than one unit.  Every other
decision (declarations, burial, chaodi, follows) is the env's own action.

Actions (``num_actions = 663``, 673 with throws):
  ``0..65``      the env's actions; at a trick's start, card ``t`` leads the single ``t``;
  ``66..119``    lead the pair of type ``a - 66``;
  ``120..662``   lead a tractor: the run of pairs along row ``TRACTOR_ROW[j]`` of the path table
                 (:data:`~cardjax.games.tractor.moves.P_LEN`: start, length, alternative) in the
                 effective suit ``TRACTOR_SUIT[j]`` (4: trump), ``j = a - 120``;
  ``663..667``   throw the boss cards of effective suit ``a - 663`` (4: trump);
  ``668..672``   throw the whole effective suit ``a - 668``.

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
from cardjax.gate import gated
from cardjax.games.tractor import env as tractor
from cardjax.games.tractor import state_facts
from cardjax.games.tractor import moves as tm
from cardjax.games.tractor import tricks

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
NUM_ACTIONS = TRACTOR0 + len(TRACTOR_ROW)  # without throws
THROW0 = NUM_ACTIONS  # the boss cards of suit a - THROW0, then the whole suit a - THROW0 - 5
NUM_THROWS = 2 * 5
NUM_ACTIONS_THROWS = THROW0 + NUM_THROWS
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


def throw_cards(state) -> Array:
    """int32[NUM_THROWS, 54]: the cards of each throw action of the seat to act: per effective
    suit (4: trump), its boss cards -- the held cards of the suit no unseen card beats as a
    single, and the held pairs no unseen pair beats -- then per suit all its held cards."""
    me = state.current_player
    hand = state._hands[me].astype(jnp.int32)
    eff, order, _ = tm.context(state.level, state.trump)
    eff, order = eff[:N], order[:N]
    boss1, boss2 = tm.unbeaten(state_facts.unseen_cards(state, me), eff, order)
    boss = jnp.where(hand == 2, boss2, boss1)
    suits = eff[None, :] == jnp.arange(5)[:, None]  # [5, 54]
    whole = jnp.where(suits, hand[None, :], 0)
    return jnp.concatenate([jnp.where(boss[None, :], whole, 0), whole])


def one_unit(state, cards, suit) -> Array:
    """bool: whether ``cards`` (int[54], of effective suit ``suit``) are one unit -- a single, a
    pair or a run of pairs (what :func:`unit_of` names, found here from the pair runs alone)."""
    _, _, slot = tm.context(state.level, state.trump)
    n = jnp.sum(cards)
    pairs = tm.pad(cards) == 2
    run = jnp.max(tm.pair_runs(slot[suit], pairs))
    return (n == 1) | (jnp.all((cards == 0) | (cards == 2)) & (2 * run >= n))


def throw_mask(state) -> Array:
    """bool[NUM_THROWS]: the throws offered to the seat to act (whether or not it starts a
    trick): those of more than one unit, a whole suit only where it is more than its boss
    cards."""
    cards = throw_cards(state)
    units = jax.vmap(lambda c, e: one_unit(state, c, e))(cards, jnp.arange(NUM_THROWS) % 5)
    several = (jnp.sum(cards, axis=1) >= 2) & ~units
    new = jnp.concatenate([jnp.ones(5, bool), jnp.any(cards[5:] != cards[:5], axis=1)])
    return several & new  # a whole suit that is its boss cards is offered once


def throw_safe(state) -> Array:
    """bool[NUM_THROWS]: whether no cards the seat to act has not seen could make each throw of
    :func:`throw_cards` fail (the env's throw check against all of them held by one seat, which
    any split of them among the seats passes too).  A boss-card throw always is."""
    me = state.current_player
    eff, order, slot = tm.context(state.level, state.trump)
    unseen = tm.pad(state_facts.unseen_cards(state, me))
    others = jnp.stack([unseen, jnp.zeros_like(unseen), jnp.zeros_like(unseen)])
    whole = throw_cards(state)[5:]
    stands = jax.vmap(lambda c: tricks.throw_check(tm.pad(c), others, eff, order, slot)[0])(whole)
    return jnp.concatenate([jnp.ones(5, bool), stands])


def _no_throws(state) -> Array:
    return jnp.zeros(NUM_THROWS, bool)


def lead_cards(state, action, throws: bool = False) -> Array:
    """int32[54]: the cards of the unit (with ``throws``: or throw) ``action`` leads (zeros for
    the env's actions other than a card)."""
    _, _, slot = tm.context(state.level, state.trump)
    a = jnp.asarray(action, jnp.int32)
    j = jnp.clip(a - TRACTOR0, 0, len(TRACTOR_ROW) - 1)
    path = jnp.asarray(TRACTOR_ROW)[j]
    types = tm.path_types(slot[jnp.asarray(TRACTOR_SUIT)[j]], path[None])[0]  # dummy off path
    run = jnp.zeros(tm.PAD, jnp.int32).at[types].set(2)[:N]
    card = jnp.arange(N) == jnp.clip(jnp.where(a < PAIR0, a, a - PAIR0), 0, N - 1)
    if throws:
        run = jnp.where(a < THROW0, run, throw_cards(state)[jnp.clip(a - THROW0, 0,
                                                                     NUM_THROWS - 1)])
    return jnp.where(a < N, card.astype(jnp.int32),
                     jnp.where(a < PAIR0, 0, jnp.where(a < TRACTOR0, 2 * card, run)))


def unit_of(state, cards, throws: bool = False) -> Array:
    """int32: the action that leads ``cards`` (int[54]) in ``state``'s level and trump -- a
    single, a pair or a held tractor (with ``throws``: or one of the seat's offered throws,
    :func:`throw_mask`) -- or -1 if they are none of these."""
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
    unit = jnp.where(n == 1, first, jnp.where((n == 2) & (cards[first] == 2), PAIR0 + first,
                                               tractor_id)).astype(jnp.int32)
    if not throws:
        return unit
    offered = throw_cards(state)
    same = jnp.all(offered == cards[None, :], axis=1) & throw_mask(state)
    return jnp.where((unit < 0) & jnp.any(same), THROW0 + jnp.argmax(same), unit).astype(
        jnp.int32)


class UnitLeads:
    """The view of ``env`` (a :class:`~cardjax.games.tractor.env.Tractor`) whose leads are whole
    units: ``init``, ``step``, ``legal_mask``, ``legal_words`` and ``random_action`` in this
    view's actions; states are the env's (their ``legal_action_mask`` is the env's)."""

    def __init__(self, env: tractor.Tractor, throws: bool = False):
        if env.name != "tractor":
            raise ValueError(f"whole-unit leads are a view of the tractor env, got {env.name!r}")
        self.env = env
        self.throws = bool(throws)
        self.num_actions = NUM_ACTIONS_THROWS if self.throws else NUM_ACTIONS
        self.name = env.name
        self.num_players = env.num_players
        self.max_steps = env.max_steps

    def init(self, key):
        return self.env.init(key)

    def legal_mask(self, state) -> Array:
        """bool[num_actions]: at a trick's start, the held singles, pairs and tractors (and the
        offered throws); else the env's mask (and none of the unit actions)."""
        start = lead_start(state)
        base = state.legal_action_mask
        units = unit_mask(state) & start
        if not self.throws:
            return jnp.concatenate([base, units])
        throws = gated(start, throw_mask, _no_throws, state)
        return jnp.concatenate([base, units, throws & start])

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
        ok = (action >= 0) & (action < self.num_actions)
        whole = lead_start(state) & ok & self.legal_mask(state)[jnp.clip(action, 0,
                                                                          self.num_actions - 1)]
        led = self.env.lead(state, lead_cards(state, action, self.throws), whole)
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
                   & (action < self.num_actions))
        unit = (action < N) | (action >= PAIR0)
        rest = lead_cards(state, action, self.throws) - part > 0
        nxt = jnp.where(jnp.any(rest), jnp.argmax(rest), tractor.DONE)
        return jnp.where(leading & unit, nxt, action).astype(jnp.int32)

    def lift(self, act):
        """``act(params, key, state) -> env action`` of a plain-env player as a player of this
        view: at a trick's start its whole lead is built (its calls until done, at most 25) and
        named as this view's action, or -1 if the lead is not a single unit (or an offered
        throw); elsewhere its action as it is."""
        env, throws = self.env, self.throws

        def lifted(params, key, state):
            start = lead_start(state)

            # one call of ``act`` in the program (it may be large): the loop's first pass is
            # the action itself elsewhere than at a trick's start, with the key as it is
            def build(c):
                s, a, i, first = c
                k = jax.tree_util.tree_map(lambda x, y: jnp.where(start, x, y),
                                           jax.random.fold_in(key, i), key)
                a = act(params, k, s).astype(jnp.int32)
                nxt = env.lead_card(s, jnp.minimum(a, tractor.DONE - 1))  # at a start, env.step
                s = jax.tree_util.tree_map(lambda x, y: jnp.where(a == tractor.DONE, x, y), s, nxt)
                return s, a, i + 1, jnp.where(i == 0, a, first)

            def going(c):
                _, a, i, _ = c
                return (i == 0) | (start & (a != tractor.DONE) & (i <= MAX_LEAD))

            s, _, _, first = jax.lax.while_loop(
                going, build, (state, jnp.int32(-1), jnp.int32(0), jnp.int32(-1)))
            unit = unit_of(state, s.trick[state.current_player], throws)
            return jnp.where(start, unit, first).astype(jnp.int32)

        return lifted
