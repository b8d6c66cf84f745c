"""Tractor / Sheng Ji (升级, 拖拉机) as pure JAX functions: the env, one hand per episode (deal and
declarations, burial, chaodi, tricks).  Rules: shared/rules/tractor.md; this implementation's
choices and options: docs/games.md ("Tractor").  Cards are 54 *types* (``13 * suit + rank``, suits
S H D C, ranks 2..A; ``52`` = XJ, ``53`` = DJ), two copies each; hands and plays are count vectors
``int8[54]``.  Elsewhere: the state's fields in :mod:`~cardjax.games.tractor.state`, move
arithmetic in :mod:`~cardjax.games.tractor.moves` (and the phase
ids), throws and trick winners in :mod:`~cardjax.games.tractor.tricks`, the levels a score gains
and jitted functions of a state for trainers and agents in
:mod:`~cardjax.games.tractor.state_facts` (``trick_holder``, ``table_points``,
``completing_holders``, ``point_swing``, ``unseen_cards``, ``level_change``), legal action masks in
:mod:`~cardjax.games.tractor.legal` (and the action ids), observations in
:mod:`~cardjax.games.tractor.observe`, hidden-state sampling in
:mod:`~cardjax.games.tractor.hidden`, card text in :mod:`~cardjax.games.tractor.cards`, deals
read and states drawn as text in :mod:`~cardjax.games.tractor.env_text`, string helpers for
people in :mod:`~cardjax.games.tractor.helpers`, matches across hands in
:mod:`~cardjax.games.tractor.match`.

Actions (``num_actions = 66``):
  ``0..53``  add one card of that type: to the lead / follow being built (tricks) or to the kitty
             (burial, one card per action);
  ``54``     done: ends a lead (a follow ends by itself at the lead's size);
  ``55``     pass (declaration and chaodi phases);
  ``56..59`` declare one level card of suit S, H, D, C;
  ``60..63`` declare (or, in chaodi, overturn with) a pair of level cards of suit S, H, D, C;
  ``64, 65`` declare / overturn with a pair of XJ, of DJ (no trump).

The fields of :class:`~cardjax.games.tractor.state.State` beyond the contract are described where
they are declared (:mod:`~cardjax.games.tractor.state`); they are public unless they start with
``_``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from cardjax.core import Env, HiddenCards, PRNGKey
from cardjax.games.tractor import cards as tc
from cardjax.games.tractor import env_text
from cardjax.games.tractor import hidden as tractor_hidden
from cardjax.games.tractor import legal as tl
from cardjax.games.tractor import moves as tm
from cardjax.games.tractor import observe as tobs
from cardjax.games.tractor import state_facts
from cardjax.games.tractor import tricks
from cardjax.gate import gated
from cardjax.games.tractor.moves import BURY, CHAODI, DECLARE, OVER, PLAY
from cardjax.games.tractor.state import State  # noqa: F401 -- the env's state, also env.State

Array = jax.Array

NUM_PLAYERS = 4
NUM_TYPES = tm.NUM_TYPES
# the action ids (see the module docstring), defined with the masks
NUM_ACTIONS, DONE, PASS = tl.NUM_ACTIONS, tl.DONE, tl.PASS
DECL_SINGLE, DECL_PAIR, DECL_XJ, DECL_DJ = tl.DECL_SINGLE, tl.DECL_PAIR, tl.DECL_XJ, tl.DECL_DJ
CHAODI_SUIT_KEY = tl.CHAODI_SUIT_KEY
HAND = 25
KITTY = 8


# ---------------------------------------------------------------------------- the env
_JITS: dict = {}


def _row(i, n=4):
    """bool[n, 1]: row ``i`` of a [n, k] array.  Updates of one row (a seat's hand) are selects,
    not scatters: under vmap a scatter at a per-game index is a slow loop on CPUs."""
    return (jnp.arange(n) == i)[:, None]


def _sizes(hands):
    """int32[4]: the cards in each hand, summed in int8 (at most 108 cards): a sum in int32 makes
    XLA convert the whole [4, 54] array first."""
    return jnp.sum(hands, axis=1, dtype=jnp.int8).astype(jnp.int32)


def _onehot(i, n=NUM_TYPES):
    return jnp.arange(n) == i


def _card_added(trick, seat, add):
    """``(part, trick)``: ``seat``'s part of the trick with the cards ``add`` (bool[54]) added,
    and the trick with that part."""
    part = trick[seat] + add.astype(jnp.int8)
    return part, jnp.where(_row(seat), part, trick)


def _jitted(env, name: str):
    """``jax.jit(env.<name>)`` shared by every env with the same options: eager calls (checked
    mode, tests, helpers) run compiled code, compiled once per option set; inside an outer jit
    the call is simply inlined."""
    key = (name, tuple(sorted((k, repr(v)) for k, v in env.options.items())))
    if key not in _JITS:
        _JITS[key] = jax.jit(getattr(env, name))
    return _JITS[key]


class Tractor(Env):
    name = "tractor"
    version = "1"  # the rules' version: runs, corpora and players record tractor@1
    num_players = NUM_PLAYERS
    num_actions = NUM_ACTIONS
    teams = (0, 1, 0, 1)
    illegal_penalty = 3.0
    observation_shape = (tobs.OBS_SIZE,)

    max_steps = 620  # a bound: 104 declare + 8 bury + 76 chaodi + 425 trick sub-actions = 613

    def __init__(self, throws: bool = True, throw_penalty: int = 0, chaodi: bool = True,
                 kitty_multiplier: str = "power", levels: str = "standard", level=None,
                 dealer="random"):
        if throw_penalty not in (0, 10):
            raise ValueError(f"throw_penalty must be 0 or 10, got {throw_penalty!r}")
        if kitty_multiplier not in ("power", "times"):
            raise ValueError(
                f"kitty_multiplier must be 'power' or 'times', got {kitty_multiplier!r}")
        if levels not in ("standard", "shengji_plus"):
            raise ValueError(f"levels must be 'standard' or 'shengji_plus', got {levels!r}")
        if not (dealer in ("random", "declarer") or (isinstance(dealer, int) and 0 <= dealer < 4)):
            raise ValueError(f"dealer must be 'random', 'declarer' or a seat 0..3, got {dealer!r}")
        self.throws = bool(throws)
        self.throw_penalty = int(throw_penalty)
        self.chaodi = bool(chaodi)
        self.kitty_multiplier = kitty_multiplier
        self.levels = levels
        self.fixed_level = None if level is None else tc.parse_level(level)
        self.dealer_mode = dealer
        self.options = dict(throws=self.throws, throw_penalty=self.throw_penalty,
                            chaodi=self.chaodi, kitty_multiplier=kitty_multiplier, levels=levels,
                            level=level, dealer=dealer)

    # ------------------------------------------------------------------ dealing
    def init(self, key: PRNGKey) -> State:
        """A random deal at a random level (or the option ``level``) and dealer (option)."""
        return _jitted(self, "_init_impl")(key)

    def _init_impl(self, key: PRNGKey) -> State:
        k_deal, k_lv, k_d = jax.random.split(key, 3)
        deal = jax.random.permutation(k_deal, jnp.arange(108) % NUM_TYPES)
        level = (jax.random.randint(k_lv, (), 0, 13) if self.fixed_level is None
                 else jnp.int32(self.fixed_level))
        if self.dealer_mode == "random":
            dealer = jax.random.randint(k_d, (), 0, 4)
        elif self.dealer_mode == "declarer":
            dealer = jnp.int32(-1)
        else:
            dealer = jnp.int32(self.dealer_mode)
        return self._new(deal, level, dealer)

    def init_from_deal(self, order, level, dealer) -> State:
        """A hand from an explicit deal order: 108 card strings or type indices (each type twice);
        cards 0..99 go one at a time to the seats from the one after ``dealer`` (seat 0 when
        ``dealer`` is None: the dealer is then the last declarer), 100..107 form the kitty."""
        types = env_text.parse_deal(order)
        if dealer is not None and not (isinstance(dealer, (int, np.integer)) and 0 <= dealer < 4):
            raise ValueError(f"dealer must be a seat 0..3 or None, got {dealer!r}")
        d = jnp.int32(-1 if dealer is None else dealer)
        return self._new(jnp.asarray(types, jnp.int32), jnp.int32(tc.parse_level(level)), d)

    def _new(self, deal, level, dealer) -> State:
        return _jitted(self, "_new_impl")(jnp.asarray(deal, jnp.int32),
                                          jnp.asarray(level, jnp.int32),
                                          jnp.asarray(dealer, jnp.int32))

    def _new_impl(self, deal, level, dealer) -> State:
        i32 = lambda x: jnp.asarray(x, jnp.int32)  # noqa: E731
        z4 = jnp.zeros((4, NUM_TYPES), jnp.int8)
        first = jnp.where(dealer >= 0, (dealer + 1) % 4, 0).astype(jnp.int32)
        hands = (_row(first) & _onehot(deal[0])).astype(jnp.int8)
        s = State(
            current_player=first, legal_action_mask=jnp.zeros(NUM_ACTIONS, bool),
            rewards=jnp.zeros(4, jnp.float32), terminated=jnp.bool_(False), step_count=i32(0),
            phase=i32(DECLARE), level=i32(level), trump=i32(tm.NT), dealer=i32(dealer),
            deal_first=first, decl_seat=i32(-1), decl_kind=i32(0), decl_suit=i32(tm.NT),
            turn=i32(0), burier=i32(0), buried=i32(0), passes=i32(0), leader=i32(0),
            trick_no=i32(0), trick=z4, num_in_trick=i32(0), holder=i32(-1), hold_suit=i32(0),
            hold_key=i32(0), lead_suit=i32(0), lead_n=i32(0),
            lead_k1=i32(0), lead_pairs=i32(0), lead_tractors=jnp.zeros(tm.MAX_TRACTORS, jnp.int32),
            follow_base=jnp.zeros(NUM_TYPES, jnp.int8), played=z4, revealed=z4,
            voids=jnp.zeros((4, 5), bool), led=z4, sloughed=z4, last_trick=z4,
            last_leader=i32(-1), last_winner=i32(-1),
            hand_sizes=_onehot(first, 4).astype(jnp.int32), attacker_points=i32(0),
            defender_points=i32(0), kitty_points=i32(0), kitty_bonus=i32(0), penalty=i32(0),
            level_gain=jnp.zeros(2, jnp.int32), _hands=hands,
            _kitty=jnp.zeros(NUM_TYPES, jnp.int8), _deal=deal.astype(jnp.int8),
            _bury_mark=z4, _takers=jnp.zeros((4, 4), bool),
        )
        # a new hand is in its declaration phase: its mask is that phase's (the whole mask's
        # other phases would put a second copy of the trick phase's legality in every program
        # that deals, such as a trainer's step with its resets)
        return s.replace(legal_action_mask=tl.decl_mask(s))

    def trick_state(self, hands, level, trump, leader=0, dealer=None) -> State:
        """A state at the start of the trick phase with the given hands (4 count vectors or card
        strings; any sizes), for tests and the helpers.  The kitty is empty."""
        hs = env_text.parse_hands(hands)
        dealer = leader if dealer is None else dealer
        s = self._new(jnp.arange(108, dtype=jnp.int32) % NUM_TYPES,
                      jnp.int32(tc.parse_level(level)), jnp.int32(dealer))
        tr = tc.parse_trump(trump)
        s = s.replace(phase=jnp.int32(PLAY), trump=jnp.int32(tr), _hands=jnp.asarray(hs, jnp.int8),
                      hand_sizes=jnp.asarray(hs.sum(1), jnp.int32), leader=jnp.int32(leader),
                      current_player=jnp.int32(leader), turn=jnp.int32(104),
                      decl_kind=jnp.int32(0 if tr == tm.NT else 2), decl_suit=jnp.int32(tr))
        return s.replace(legal_action_mask=self._legal_mask(s))

    # ------------------------------------------------------------------ legality
    def _legal_mask(self, s: State) -> Array:
        """bool[66]: the legal actions of ``s``
        (:func:`~cardjax.games.tractor.legal.legal_mask`)."""
        return tl.legal_mask(s, self.throws)

    # ------------------------------------------------------------------ transitions
    def _step(self, s: State, action: Array, key=None) -> State:
        return _jitted(self, "_step_impl")(s, action)

    def _step_impl(self, s: State, action: Array) -> State:
        s = s.replace(rewards=jnp.zeros_like(s.rewards))  # rewards of this step only
        branches = [self._declare(s, action), self._bury(s, action), self._chaodi_step(s, action),
                    self._play(s, action)]
        phase = s.phase
        nxt = branches[0]
        for i in range(1, 4):
            nxt = jax.tree_util.tree_map(lambda a, b, i=i: jnp.where(phase == i, a, b),
                                         branches[i], nxt)
        nxt = nxt.replace(step_count=s.step_count + 1)
        mask = jnp.where(nxt.terminated, jnp.ones(NUM_ACTIONS, bool), self._legal_mask(nxt))
        return nxt.replace(legal_action_mask=mask)

    def _apply_decl(self, s: State, action: Array, seat) -> State:
        """Record a declaration action (56..65) by ``seat``; pass leaves ``s`` unchanged."""
        is_decl = action >= DECL_SINGLE
        k = action - DECL_SINGLE
        kind = jnp.where(k < 4, 1, jnp.where(k < 8, 2, jnp.where(k == 8, 3, 4)))
        suit = jnp.where(k < 8, k % 4, tm.NT)
        return s.replace(
            decl_seat=jnp.where(is_decl, seat, s.decl_seat),
            decl_kind=jnp.where(is_decl, kind, s.decl_kind).astype(jnp.int32),
            decl_suit=jnp.where(is_decl, suit, s.decl_suit).astype(jnp.int32),
            trump=jnp.where(is_decl, suit, s.trump).astype(jnp.int32))

    def _to_bury(self, s: State, seat) -> State:
        """``seat`` takes the kitty (the deal's last 8 cards, or the buried kitty) and buries."""
        first_kitty = jnp.zeros(NUM_TYPES, jnp.int8).at[s._deal[100:].astype(jnp.int32)].add(1)
        kitty = jnp.where(s.phase == DECLARE, first_kitty, s._kitty)
        me = jnp.arange(4) == seat
        hands = s._hands + jnp.where(me[:, None], kitty, 0).astype(jnp.int8)
        # every earlier burier now knows its cards are in this seat's hand or buried again; the
        # seat's own earlier burial is forgotten (it sees the kitty it takes back)
        takers = (s._takers | (~me[:, None] & me[None, :])) & ~me[:, None]
        return s.replace(phase=jnp.int32(BURY), burier=seat, buried=jnp.int32(0),
                         current_player=seat, _hands=hands, _kitty=jnp.zeros_like(s._kitty),
                         hand_sizes=_sizes(hands), _takers=takers,
                         _bury_mark=jnp.where(me[:, None], 0, s._bury_mark).astype(jnp.int8))

    def _declare(self, s: State, action: Array) -> State:
        s = self._apply_decl(s, action, s.current_player)
        t = s.turn + 1
        dealing = t < 100
        recv = (s.deal_first + t) % 4
        card = s._deal[jnp.minimum(t, 107)].astype(jnp.int32)
        hands = s._hands + (dealing & _row(recv) & _onehot(card)).astype(jnp.int8)
        dealt = s.replace(turn=t, _hands=hands, current_player=recv,
                          hand_sizes=_sizes(hands))
        dealer = jnp.where(s.dealer >= 0, s.dealer, jnp.maximum(s.decl_seat, 0))
        done = s.replace(turn=t, dealer=dealer)
        done = self._to_bury(done, dealer)
        return jax.tree_util.tree_map(lambda a, b: jnp.where(t >= 104, a, b), done, dealt)

    def _start_play(self, s: State) -> State:
        return s.replace(phase=jnp.int32(PLAY), leader=s.dealer, current_player=s.dealer,
                         num_in_trick=jnp.int32(0))

    def lead(self, state: State, cards, need=True) -> State:
        """``state`` after the seat to act leads ``cards`` (int[54]) whole in one transition (as
        its cards then done, but ``step_count`` + 1); the caller makes sure it is legal.
        ``need``: whether it applies (else the throw check is skipped, as under vmap)."""
        return _jitted(self, "_lead_impl")(state, jnp.asarray(cards), need)

    def _lead_impl(self, s: State, cards, need) -> State:
        seat = s.current_player
        s = s.replace(rewards=jnp.zeros_like(s.rewards),
                      trick=jnp.where(_row(seat), cards.astype(jnp.int8), s.trick))
        nxt = self._end_lead(s, need)
        nxt = nxt.replace(step_count=s.step_count + 1)
        return nxt.replace(legal_action_mask=self._legal_mask(nxt))

    def lead_card(self, state: State, card) -> State:
        """:meth:`step` where the seat to act adds ``card`` (not done) to a lead it builds at a
        trick's start, without the other phases and the trick's end: a smaller program (the
        lift of :mod:`~cardjax.games.tractor.leads` builds leads card by card)."""
        _, trick = _card_added(state.trick, state.current_player, _onehot(card))
        s = state.replace(rewards=jnp.zeros_like(state.rewards), trick=trick,
                          step_count=state.step_count + 1)
        return s.replace(legal_action_mask=self._legal_mask(s))

    def _bury(self, s: State, action: Array) -> State:
        seat = s.burier
        card = _onehot(action).astype(jnp.int8)
        hands = s._hands - jnp.where(_row(seat), card, 0).astype(jnp.int8)
        s = s.replace(_hands=hands, _kitty=s._kitty + card, buried=s.buried + 1,
                      hand_sizes=_sizes(hands))
        fin = s.buried == KITTY
        s = s.replace(_bury_mark=jnp.where(fin & _row(seat), s._kitty, s._bury_mark))
        if self.chaodi:
            after = s.replace(phase=jnp.int32(CHAODI), passes=jnp.int32(0),
                              current_player=(seat + 1) % 4)
        else:
            after = self._start_play(s)
        return jax.tree_util.tree_map(lambda a, b: jnp.where(fin, a, b), after, s)

    def _chaodi_step(self, s: State, action: Array) -> State:
        seat = s.current_player
        passed = action == PASS
        p = s.replace(passes=s.passes + 1, current_player=(seat + 1) % 4)
        p = jax.tree_util.tree_map(lambda a, b: jnp.where(p.passes >= 4, a, b),
                                   self._start_play(p), p)
        o = self._to_bury(self._apply_decl(s, action, seat), seat)
        return jax.tree_util.tree_map(lambda a, b: jnp.where(passed, a, b), p, o)

    def _play(self, s: State, action: Array) -> State:
        seat = s.current_player
        is_done = action == DONE
        part, trick = _card_added(s.trick, seat,
                                  ~is_done & _onehot(jnp.minimum(action, NUM_TYPES - 1)))
        size = jnp.sum(part, dtype=jnp.int32)
        leading = s.num_in_trick == 0
        # a follower finished a unit of a lead with several tractors (see
        # cardjax.games.tractor.legal.follow_unit)
        unit_done = ~leading & jnp.any(size == jnp.cumsum(2 * s.lead_tractors))
        s1 = s.replace(trick=trick, follow_base=jnp.where(unit_done, part, s.follow_base))
        # the moves' arithmetic runs only for the games where it applies (a game in another
        # phase computes this branch too, to be discarded)
        lead_ends = leading & is_done
        follow_ends = ~leading & (size == s.lead_n)
        in_play = s.phase == PLAY
        lead_end = self._end_lead(s1, in_play & lead_ends)
        follow_end = self._end_follow(s1, in_play & follow_ends)
        out = s1
        out = jax.tree_util.tree_map(lambda a, b: jnp.where(lead_ends, a, b), lead_end, out)
        out = jax.tree_util.tree_map(lambda a, b: jnp.where(follow_ends, a, b), follow_end, out)
        return out

    def _commit(self, s: State, seat, cards) -> State:
        """Move ``cards`` (int[54]) from ``seat``'s hand to the table record."""
        row = _row(seat)
        moved = jnp.where(row, cards.astype(jnp.int8), 0).astype(jnp.int8)
        hands = s._hands - moved
        played = s.played + moved
        revealed = jnp.where(row, jnp.minimum(s.revealed, hands), s.revealed)
        return s.replace(_hands=hands, played=played, revealed=revealed,
                         hand_sizes=_sizes(hands))

    def _end_lead(self, s: State, need=True) -> State:
        """The lead being built is complete; ``need``: whether this applies (the throw check of
        the games where it does not is skipped)."""
        eff, order, slot = tm.context(s.level, s.trump)
        seat = s.current_player
        lead = tm.pad(s.trick[seat])
        if self.throws:
            stands, actual, tractors = gated(need, tricks.throw_check_at, tricks.no_throw_check,
                                             lead, s._hands, seat, s.level, s.trump)
        else:  # one unit: at most one tractor
            stands, actual = jnp.bool_(True), lead
            tractors = jnp.zeros(tm.MAX_TRACTORS, jnp.int32).at[0].set(
                tm.longest_tractor(lead, s.level, s.trump))
        back = (lead - actual)[:NUM_TYPES]
        actual = actual[:NUM_TYPES]
        suit, n, tractors, pairs = tm.lead_info(tm.pad(actual), eff, slot, tractors)
        hold_key = tricks.lead_key(tm.pad(actual), suit, tractors, pairs, order, slot)
        s = self._commit(s, seat, actual)
        # the returned cards are known to be in hand (perhaps the same copies as ones already
        # revealed, so the known count is the larger one, not the sum)
        s = s.replace(revealed=jnp.where(_row(seat), jnp.maximum(s.revealed, back.astype(jnp.int8)),
                                         s.revealed))
        attacker = (seat % 2) != (s.dealer % 2)
        pen = jnp.where(stands, 0, self.throw_penalty)
        return s.replace(trick=jnp.where(_row(seat), actual.astype(jnp.int8), s.trick),
                         led=jnp.where(_row(seat), s.led + actual.astype(jnp.int8), s.led),
                         lead_suit=suit,
                         lead_n=n, lead_k1=tractors[0], lead_pairs=pairs, lead_tractors=tractors,
                         num_in_trick=jnp.int32(1), current_player=(seat + 1) % 4,
                         holder=seat, hold_suit=suit, hold_key=hold_key,
                         penalty=s.penalty + jnp.where(attacker, -pen, pen))

    def _end_follow(self, s: State, need=True) -> State:
        eff, order, slot = tm.context(s.level, s.trump)
        seat = s.current_player
        cards = s.trick[seat].astype(jnp.int32)
        # the trick's holder so far: the one trick-winner test a follow is put to, once
        take, suit, key = tricks.follow_result(s.trick[seat], s.lead_suit, s.lead_tractors,
                                               s.lead_pairs, s.hold_suit, s.hold_key, s.level,
                                               s.trump, need)
        s = s.replace(holder=jnp.where(take, seat, s.holder),
                      hold_suit=jnp.where(take, suit, s.hold_suit),
                      hold_key=jnp.where(take, key, s.hold_key))
        off_cards = jnp.where(eff[:NUM_TYPES] != s.lead_suit, cards, 0).astype(jnp.int8)
        off = jnp.any(off_cards > 0)
        s = self._commit(s, seat, cards)
        s = s.replace(voids=s.voids | (off & _row(seat) & _onehot(s.lead_suit, 5)),
                      sloughed=jnp.where(_row(seat), s.sloughed + off_cards, s.sloughed),
                      follow_base=jnp.zeros_like(s.follow_base),
                      num_in_trick=s.num_in_trick + 1, current_player=(seat + 1) % 4)
        return jax.tree_util.tree_map(lambda a, b: jnp.where(s.num_in_trick == 4, a, b),
                                      self._end_trick(s), s)

    def _end_trick(self, s: State) -> State:
        win = s.holder
        pts = state_facts.table_points(s)
        defender_won = (win % 2) == (s.dealer % 2)
        s = s.replace(
            attacker_points=s.attacker_points + jnp.where(defender_won, 0, pts),
            defender_points=s.defender_points + jnp.where(defender_won, pts, 0),
            last_trick=s.trick, last_leader=s.leader, last_winner=win,
            trick=jnp.zeros_like(s.trick), trick_no=s.trick_no + 1, leader=win,
            current_player=win, num_in_trick=jnp.int32(0), holder=jnp.int32(-1))
        over = jnp.sum(s.hand_sizes) == 0  # the last trick: every card is played
        return jax.tree_util.tree_map(lambda a, b: jnp.where(over, a, b),
                                      self._end_hand(s, ~defender_won), s)

    def _end_hand(self, s: State, attackers_last: Array) -> State:
        kitty = jnp.sum(s._kitty.astype(jnp.int32) * jnp.asarray(tm.POINTS)[:NUM_TYPES])
        # the largest unit of the last trick's winning play (a ruff's, not the lead's)
        won = tm.pad(s.last_trick[s.last_winner])
        longest = tm.longest_tractor(won, s.level, s.trump)
        unit = jnp.where(longest >= 2, 2 * longest, jnp.where(jnp.any(won == 2), 2, 1))
        if self.kitty_multiplier == "times":
            mult = 2 * unit
        else:
            mult = 2 ** jnp.minimum(unit, 6)
        mult = jnp.minimum(mult, 64)
        bonus = jnp.where(attackers_last, kitty * mult, 0)
        score = jnp.maximum(s.attacker_points + bonus + s.penalty, 0)
        att_gain, def_gain = state_facts.level_change(score, self.levels)
        dteam = s.dealer % 2
        gain = jnp.where(jnp.arange(2) == dteam, def_gain, att_gain)
        team = jnp.arange(4) % 2
        rewards = (gain[team] - gain[1 - team]).astype(jnp.float32)
        return s.replace(kitty_points=kitty, kitty_bonus=bonus, level_gain=gain, rewards=rewards,
                         terminated=jnp.bool_(True), phase=jnp.int32(OVER))

    # ------------------------------------------------------------------ observations
    def observe(self, state: State, seat) -> Array:
        """float32[OBS_SIZE] (:func:`~cardjax.games.tractor.observe.observe`)."""
        return tobs.observe(state, seat)

    def observe_oracle(self, state: State, seat) -> Array:
        """float32[ORACLE_SIZE]: ``observe``, every hand and the kitty
        (:func:`~cardjax.games.tractor.observe.observe_oracle`)."""
        return tobs.observe_oracle(state, seat)

    # ------------------------------------------------------------------ hidden information
    def sample_hidden(self, key: PRNGKey, state: State, seat) -> State:
        """A full state consistent with what ``seat`` has seen
        (:func:`~cardjax.games.tractor.hidden.sample_hidden`)."""
        return tractor_hidden.sample_hidden(self, key, state, seat)

    hidden_space = tractor_hidden.HIDDEN_SPACE

    def hidden_cards(self, state: State, seat) -> HiddenCards:
        return tractor_hidden.hidden_cards(state, seat)

    def with_hidden(self, state: State, seat, counts) -> State:
        return tractor_hidden.with_hidden(self, state, seat, counts)

    # ------------------------------------------------------------------ people
    def action_to_str(self, action: int) -> str:
        return env_text.action_text(action)

    def render(self, state: State) -> str:
        return env_text.render(state)
