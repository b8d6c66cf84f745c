"""Dou Dizhu (斗地主) as pure JAX functions: three seats, landlord against two peasants.

Cards are rank counts over ``3 4 5 6 7 8 9 T J Q K A 2 B R`` (:mod:`~cardjax.games.doudizhu.moves`); suits do not
matter.  Actions ``0 .. 27,471`` are RLCard's moves (:data:`ACTIONS`, pass = 27,471); with the
``bidding`` option four more come after them: ``27,472`` = no bid, ``27,473 .. 27,475`` = bid 1..3.

Play: the landlord leads; a leader plays any move and may not pass; otherwise a move must beat the
move to beat (same type and length, higher main rank; bombs and the rocket as usual) or pass;
after two passes in a row the last mover leads again.  The game ends when a seat empties its hand.

Rewards (option ``reward``), zero-sum, given at the end with ``m = 2 ** (bombs + rockets)``
(x2 with ``spring`` when the losing side never played a card — the landlord only its first move —
and x the winning bid with ``bidding``): ``"adp"`` landlord ``+-2m``, each peasant ``-+m``;
``"wp"`` landlord ``+-1``, peasants ``-+0.5``; ``"logadp"`` landlord ``+-(bombs + 1)``, peasants
``-+(bombs + 1) / 2``.

Bidding (the usual single round, not OpenSpiel's auction, which goes on until two passes follow a
bid and lets seats bid again): a random seat bids first; each seat in turn, once, bids higher than
the current bid or passes; a bid of 3 ends it.  The highest bidder becomes landlord and takes the
bottom cards; if nobody bids the deal is void (terminated, rewards 0).  Without bidding the
landlord is seat 0 (``init``) or the seat given to ``init_from_deal``.

The legal actions are not stored: they follow from the hand to move and the move to beat.
``state.legal_words`` (864 ``uint32`` words, see :mod:`cardjax.legal_words`) and
``state.legal_action_mask`` build them on demand; ``env.is_legal`` tests one move, and
``env.random_action`` reads only a window of words where it holds the whole set (a follow's
same-class moves, a lead from a hand without adjacent trios or four of a rank) and builds every
word for the other states (:func:`~cardjax.games.doudizhu.moves.pick_legal`).

State fields beyond the contract (public unless ``_``-prefixed): ``landlord``; ``played[seat]``
rank counts played; ``cards_left[seat]``; ``bottom`` (zeros until revealed) and ``_bottom``;
``to_beat`` action id of the move to beat (-1 when leading) and ``to_beat_seat``; ``passes`` in a
row; ``bombs`` bombs and rockets played; ``history`` / ``history_seat`` the last 18 moves (oldest
first, -1 = none: DeepRocket's six rounds; ``observe`` reads the last 15); ``landlord_moves`` /
``peasant_moves`` non-pass moves made; ``bidding`` (auction running), ``bid``, ``bid_seat``,
``bids_made``; ``_hands[seat]`` rank counts held.

Observations (and the count-level planes, the seats' roles): :mod:`~cardjax.games.doudizhu.observe`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from cardjax import core, legal_words, shuffle
from cardjax.core import Env, HiddenCards, PRNGKey, _select
from cardjax.games.doudizhu import moves as moves
from cardjax.games.doudizhu import observe as ddz_observe
from cardjax.games.doudizhu.moves import (
    ACTIONS, COUNTS, NUM_RANKS, PASS, action_index, action_string, counts_to_str, hand_counts,
    legal_moves,
)
from cardjax.games.doudizhu.observe import OBS_SIZE, ORACLE_SIZE

Array = jax.Array

NUM_PLAYERS = 3
NUM_MOVES = len(ACTIONS)  # 27,472
NUM_WORDS = moves.NUM_WORDS  # the legal actions packed, bidding ones included
BID_PASS = NUM_MOVES  # bidding actions, with the option only
HISTORY = 18  # moves kept in the state: six rounds of three
DECK = np.array([4] * 13 + [1, 1], np.int32)  # rank counts of the full deck
RANK_OF_CARD = np.repeat(np.arange(NUM_RANKS), DECK)  # the 54 physical cards
_IS_BOMB = np.isin(moves.TYPE, [moves.TYPE_NAMES.index("bomb"), moves.TYPE_NAMES.index("rocket")])
_LENGTH = COUNTS.sum(axis=1).astype(np.int32)

__all__ = ["DouDizhu", "State", "ACTIONS", "legal_moves", "action_index", "action_string"]


@struct.dataclass
class State(core.State):
    landlord: Array
    played: Array
    cards_left: Array
    bottom: Array
    to_beat: Array
    to_beat_seat: Array
    passes: Array
    bombs: Array
    history: Array
    history_seat: Array
    landlord_moves: Array
    peasant_moves: Array
    bidding: Array
    bid: Array
    bid_seat: Array
    bids_made: Array
    _bottom: Array
    _hands: Array
    num_actions: int = struct.field(pytree_node=False, default=NUM_MOVES)

    @property
    def legal_words(self) -> Array:
        """uint32[..., 864]: the legal actions packed, built on demand (:mod:`cardjax.legal_words`;
        all actions at a terminal state)."""
        words = _legal_words
        for _ in range(jnp.ndim(self.current_player)):  # a batch of states
            words = jax.vmap(words)
        return words(self)

    @property
    def legal_action_mask(self) -> Array:
        """bool[..., num_actions]: the legal actions, built on demand (27 kB a state; the state
        itself takes 400 bytes)."""
        return legal_words.unpack(self.legal_words, self.num_actions)


def _bid_words(s: State) -> Array:
    """uint32[864]: no bid, then the bids above the current one."""
    bids = legal_words.span(NUM_MOVES + 1 + s.bid, NUM_MOVES + 4, NUM_WORDS)
    return bids | legal_words.span(NUM_MOVES, NUM_MOVES + 1, NUM_WORDS)


def _legal_words(s: State) -> Array:
    """The legal actions of one state, packed."""
    words = moves.legal_words_of(s._hands[s.current_player], s.to_beat)
    if s.num_actions > NUM_MOVES:  # the bidding option
        words = jnp.where(s.bidding, _bid_words(s), words)
    return jnp.where(s.terminated, legal_words.full(s.num_actions, NUM_WORDS), words)


def deal_counts(key: PRNGKey) -> Array:
    """int8[4, 15]: the rank counts of the three hands and the bottom when the deck, shuffled by
    ``jax.random.permutation(key, 54)``, is dealt 17, 17, 17 and 3 cards.

    The shuffle is computed without a sort (:mod:`cardjax.shuffle`); the cards are in rank order.
    """
    place = shuffle.places(key, 54)
    holder = (place >= 17).astype(jnp.int32) + (place >= 34) + (place >= 51)  # 0..3, 3 = bottom
    held = (holder[:, None] == jnp.arange(4)).astype(jnp.int8)  # [card, holder]
    per_rank = jnp.concatenate([held[:52].reshape(13, 4, 4).sum(axis=1, dtype=jnp.int8),
                                held[52:]])  # [15, 4]: the cards are in rank order, 4 a rank
    return per_rank.T


def _check_counts(counts: np.ndarray, what: str) -> None:
    if counts.shape != (NUM_RANKS,):
        raise ValueError(f"{what}: rank counts must have shape (15,), got {counts.shape}")
    moves._check_counts(counts, what)


class DouDizhu(Env):
    """Dou Dizhu. Options: ``bidding`` (bool), ``spring`` (bool), ``reward`` (adp, wp, logadp)."""

    name = "doudizhu"
    version = "1"  # the rules' version: runs, corpora and players record doudizhu@1
    num_players = NUM_PLAYERS
    teams = (0, 1, 1)  # with the landlord at seat 0; the state's ``landlord`` decides in general

    def __init__(self, bidding: bool = False, spring: bool = False, reward: str = "adp",
                 illegal_penalty: float = 10.0):
        for flag, value in (("bidding", bidding), ("spring", spring)):
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{flag} must be True or False, got {value!r}")
        if reward not in ("adp", "wp", "logadp"):
            raise ValueError(f"reward must be 'adp', 'wp' or 'logadp', got {reward!r}")
        self.bidding, self.spring, self.reward = bool(bidding), bool(spring), reward
        self.illegal_penalty = float(illegal_penalty)
        self.num_actions = NUM_MOVES + (4 if self.bidding else 0)
        # at most 52 non-pass moves before a seat is empty (the two others keep a card each) and
        # two passes between them; bidding adds a bid per seat
        self.max_steps = 154 + (3 if self.bidding else 0)
        self.options = {"bidding": self.bidding, "spring": self.spring, "reward": reward}
        self.observation_shape = (OBS_SIZE,)
        self.oracle_shape = (ORACLE_SIZE,)

    # ------------------------------------------------------------------ dealing
    def init(self, key: PRNGKey) -> State:
        """A random deal: 17 cards each and 3 bottom cards; landlord seat 0 unless bidding."""
        k_deal, k_first = jax.random.split(key)
        counts = deal_counts(k_deal)
        first = jax.random.randint(k_first, (), 0, NUM_PLAYERS)
        return self._deal(counts[:3], counts[3], jnp.int32(0), first)

    def init_from_deal(self, hands, bottom=None, landlord: int = 0, first_bidder: int = 0) -> State:
        """The game of an explicit deal.

        ``hands``: (3, 15) rank counts, or three rank strings (``"33344556..."``). Without
        ``bottom`` the landlord's hand holds its 20 cards; with it (3 cards) the landlord's
        hand has 17 and gets the bottom.  With ``bidding`` every hand has 17 cards and the bottom
        is required; ``first_bidder`` opens the auction.  Outside ``jit`` the deal is checked (each
        card of the 54 exactly once) and a bad one raises ``ValueError``.
        """
        if isinstance(hands, (list, tuple)) and hands and isinstance(hands[0], str):
            if len(hands) != NUM_PLAYERS:
                raise ValueError(f"expected 3 hands, got {len(hands)}")
            hands = np.stack([hand_counts(h) for h in hands])
        if isinstance(bottom, str):
            bottom = hand_counts(bottom)
        concrete = not any(isinstance(x, jax.core.Tracer) for x in (hands, bottom, landlord))
        if concrete:
            hands = np.asarray(hands)
            if hands.shape != (NUM_PLAYERS, NUM_RANKS):
                raise ValueError(f"hands must have shape (3, 15), got {hands.shape}")
            for seat in range(NUM_PLAYERS):
                _check_counts(hands[seat], f"hand of seat {seat}")
            if not 0 <= int(landlord) < NUM_PLAYERS:
                raise ValueError(f"landlord must be a seat 0..2, got {landlord}")
            sizes = hands.sum(axis=1)
            if bottom is None:
                if self.bidding:
                    raise ValueError("with bidding the bottom cards must be given")
                want = [20 if s == landlord else 17 for s in range(NUM_PLAYERS)]
                bottom_counts = np.zeros(NUM_RANKS, np.int32)
            else:
                bottom_counts = np.asarray(bottom)
                _check_counts(bottom_counts, "bottom")
                if bottom_counts.sum() != 3:
                    raise ValueError(f"the bottom must hold 3 cards, got {bottom_counts.sum()}")
                want = [17] * NUM_PLAYERS
            if sizes.tolist() != want:
                raise ValueError(f"hand sizes must be {want}, got {sizes.tolist()}")
            total = hands.sum(axis=0) + bottom_counts
            if not np.array_equal(total, DECK):
                wrong = [moves.RANKS[r] for r in np.flatnonzero(total != DECK)]
                raise ValueError("the deal must hold each of the 54 cards once; wrong counts for "
                                 f"rank(s) {', '.join(wrong)}")
        hands = jnp.asarray(hands, jnp.int8)
        if bottom is None:
            # The landlord already holds the bottom; it is unknown which 3 cards it was.
            holds = jnp.zeros(NUM_RANKS, jnp.int8)
            return self._deal(hands, holds, jnp.int32(landlord), jnp.int32(first_bidder),
                              bottom_in_hand=True)
        return self._deal(hands, jnp.asarray(bottom, jnp.int8), jnp.int32(landlord),
                          jnp.int32(first_bidder))

    def _deal(self, hands, bottom, landlord, first_bidder, bottom_in_hand=False) -> State:
        seats = jnp.arange(NUM_PLAYERS)
        if not self.bidding and not bottom_in_hand:
            hands = hands + jnp.where((seats == landlord)[:, None], bottom, 0).astype(jnp.int8)
        bidding = jnp.bool_(self.bidding)
        return State(
            current_player=jnp.int32(first_bidder if self.bidding else landlord),
            rewards=jnp.zeros(NUM_PLAYERS, jnp.float32),
            terminated=jnp.bool_(False),
            step_count=jnp.int32(0),
            landlord=jnp.int32(-1 if self.bidding else landlord),
            played=jnp.zeros((NUM_PLAYERS, NUM_RANKS), jnp.int8),
            cards_left=jnp.sum(hands, axis=1, dtype=jnp.int32),
            bottom=jnp.zeros(NUM_RANKS, jnp.int8) if self.bidding else bottom.astype(jnp.int8),
            to_beat=jnp.int32(-1),
            to_beat_seat=jnp.int32(-1),
            passes=jnp.int32(0),
            bombs=jnp.int32(0),
            history=jnp.full(HISTORY, -1, jnp.int32),
            history_seat=jnp.full(HISTORY, -1, jnp.int32),
            landlord_moves=jnp.int32(0),
            peasant_moves=jnp.int32(0),
            bidding=bidding,
            bid=jnp.int32(0),
            bid_seat=jnp.int32(-1),
            bids_made=jnp.int32(0),
            _bottom=bottom.astype(jnp.int8),
            _hands=hands.astype(jnp.int8),
            num_actions=self.num_actions,
        )

    # ------------------------------------------------------------------ rules
    def hand(self, state: State, seat) -> Array:
        """int8[15]: the rank counts ``seat`` holds (hidden information of that seat)."""
        return state._hands[seat]

    def legal_words(self, state: State) -> Array:
        return state.legal_words

    def is_legal(self, state: State, action) -> Array:
        s, action = state, jnp.asarray(action, jnp.int32)
        legal = (action < NUM_MOVES) & moves.is_legal(
            s._hands[s.current_player], s.to_beat, jnp.minimum(action, NUM_MOVES - 1))
        if self.bidding:
            legal = jnp.where(s.bidding, legal_words.contains(_bid_words(s), action), legal)
        return legal | s.terminated

    def pick_action(self, u: Array, state: State) -> Array:
        # The same action as legal_words.pick(state.legal_words, u), without building the whole
        # set for a follow.
        s = state
        action = moves.pick_legal(u, s._hands[s.current_player], s.to_beat)
        if self.bidding:
            action = jnp.where(s.bidding, legal_words.pick(_bid_words(s), u), action)
        anything = jnp.minimum(jnp.floor(u * self.num_actions).astype(jnp.int32),
                               self.num_actions - 1)  # at a terminal state every action is legal
        return jnp.where(s.terminated, anything, action)

    def _all_legal(self, state: State) -> State:
        return state  # a terminal state's legal set is every action (State.legal_words)

    def move_groups(self) -> np.ndarray:
        """Moves with kickers by main group (:data:`moves.KICKER_GROUP`); bids are not grouped."""
        return np.concatenate([moves.KICKER_GROUP,
                               np.full(self.num_actions - NUM_MOVES, -1, np.int32)])

    def seat_teams(self, state: State) -> Array:
        # Landlord (team 0) against the peasants; during the auction, seat 0's view.
        return jnp.where(jnp.arange(NUM_PLAYERS) == jnp.maximum(state.landlord, 0), 0, 1)

    def _step(self, s: State, action: Array, key=None) -> State:
        nxt = self._play(s, jnp.minimum(action, NUM_MOVES - 1))
        if self.bidding:
            nxt = _select(s.bidding, self._bid(s, action - NUM_MOVES), nxt)
        return nxt.replace(step_count=s.step_count + 1)

    def _bid(self, s: State, bid: Array) -> State:
        seats = jnp.arange(NUM_PLAYERS)
        raised = bid > 0
        high = jnp.where(raised, bid, s.bid)
        high_seat = jnp.where(raised, s.current_player, s.bid_seat)
        made = s.bids_made + 1
        over = (made == NUM_PLAYERS) | (high == 3)
        void = over & (high == 0)
        landlord = jnp.where(over & ~void, high_seat, -1)
        takes = (seats == landlord)[:, None]
        hands = (s._hands + jnp.where(takes, s._bottom, 0)).astype(jnp.int8)
        return s.replace(
            current_player=jnp.where(over, jnp.maximum(landlord, 0),
                                     (s.current_player + 1) % NUM_PLAYERS),
            rewards=jnp.zeros_like(s.rewards),
            terminated=void,
            landlord=landlord,
            bottom=jnp.where(over & ~void, s._bottom, s.bottom),
            bidding=~over,
            bid=high,
            bid_seat=high_seat,
            bids_made=made,
            cards_left=jnp.sum(hands, axis=1, dtype=jnp.int32),
            _hands=hands,
        )

    def _play(self, s: State, a: Array) -> State:
        p = s.current_player
        seats = jnp.arange(NUM_PLAYERS)
        mine = (seats == p)[:, None]
        cards = jnp.asarray(COUNTS)[a]
        is_pass = a == PASS
        hands = (s._hands - jnp.where(mine, cards, 0)).astype(jnp.int8)
        played = (s.played + jnp.where(mine, cards, 0)).astype(jnp.int8)
        cards_left = s.cards_left - jnp.where(seats == p, jnp.asarray(_LENGTH)[a], 0)
        passes = jnp.where(is_pass, s.passes + 1, 0)
        to_beat = jnp.where(is_pass, s.to_beat, a)
        to_beat_seat = jnp.where(is_pass, s.to_beat_seat, p)
        to_beat = jnp.where(passes >= 2, -1, to_beat)  # two passes: the last mover leads
        bombs = s.bombs + jnp.asarray(_IS_BOMB)[a].astype(jnp.int32)
        is_landlord = p == s.landlord
        landlord_moves = s.landlord_moves + (is_landlord & ~is_pass)
        peasant_moves = s.peasant_moves + (~is_landlord & ~is_pass)

        won = cards_left[p] == 0
        landlord_won = is_landlord
        multiplier = 2.0 ** bombs.astype(jnp.float32)
        if self.spring:
            spring = jnp.where(landlord_won, peasant_moves == 0, landlord_moves == 1)
            multiplier = multiplier * jnp.where(spring, 2.0, 1.0)
        if self.bidding:
            multiplier = multiplier * jnp.maximum(s.bid, 1).astype(jnp.float32)
        if self.reward == "adp":
            stake = 2.0 * multiplier
        elif self.reward == "wp":
            stake = jnp.float32(1.0)
        else:  # logadp
            stake = (bombs + 1).astype(jnp.float32)
        sign = jnp.where(landlord_won, 1.0, -1.0)
        rewards = sign * jnp.where(seats == s.landlord, stake, -stake / 2)
        return s.replace(
            current_player=(p + 1) % NUM_PLAYERS,
            rewards=jnp.where(won, rewards, 0.0).astype(jnp.float32),
            terminated=won,
            played=played,
            cards_left=cards_left,
            to_beat=to_beat,
            to_beat_seat=jnp.where(passes >= 2, -1, to_beat_seat),
            passes=jnp.where(passes >= 2, 0, passes),
            bombs=bombs,
            history=jnp.concatenate([s.history[1:], a[None]]),
            history_seat=jnp.concatenate([s.history_seat[1:], p[None]]),
            landlord_moves=landlord_moves,
            peasant_moves=peasant_moves,
            _hands=hands,
        )

    # ------------------------------------------------------------------ observations
    def observe(self, state: State, seat) -> Array:
        """float32[OBS_SIZE] (:func:`~cardjax.games.doudizhu.observe.observe`)."""
        return ddz_observe.observe(state, seat)

    def observe_oracle(self, state: State, seat) -> Array:
        """float32[ORACLE_SIZE]: ``observe`` plus the hands of the next and previous seats
        (:func:`~cardjax.games.doudizhu.observe.observe_oracle`)."""
        return ddz_observe.observe_oracle(state, seat)

    # ------------------------------------------------------------------ hidden information
    def sample_hidden(self, key: PRNGKey, state: State, seat) -> State:
        """A full state that ``seat`` cannot tell from ``state``.

        The cards ``seat`` has not seen (not in its hand, not played, and, once shown, not the
        bottom cards the landlord has not played yet) are dealt at random to the other seats (and
        to the unrevealed bottom during the auction), each keeping its number of cards.
        """
        s = state
        holders = jnp.arange(4)  # seats 0..2 and the hidden bottom (3)
        revealed = ~s.bidding
        lord = jnp.maximum(s.landlord, 0)
        free, forced, _ = self._unseen(s, seat)  # forced: bottom cards the landlord still holds
        sizes = jnp.concatenate([s.cards_left, jnp.where(revealed, 0, 3)[None]])
        need = jnp.where(holders == seat, 0, sizes)
        need = need - jnp.where(holders == lord, jnp.sum(forced), 0) * revealed
        # The physical cards: the first `forced[r]` copies of rank r go to the landlord, the
        # next `free[r]` are dealt at random, the rest are elsewhere.
        rank = jnp.asarray(RANK_OF_CARD)
        copy = jnp.arange(54) - jnp.asarray(np.concatenate([[0], np.cumsum(DECK)[:-1]]))[rank]
        is_free = (copy >= forced[rank]) & (copy < (forced + free)[rank])
        order = jnp.argsort(jnp.where(is_free, jax.random.uniform(key, (54,)), 2.0))
        slot = jnp.zeros(54, jnp.int32).at[order].set(jnp.arange(54))  # position among free cards
        bounds = jnp.cumsum(need)
        holder = jnp.sum(slot[:, None] >= bounds[None, :], axis=1)  # 0..3 for free cards
        dealt = jnp.sum(
            (is_free[:, None, None] & (holder[:, None, None] == holders[None, :, None]))
            & (rank[:, None, None] == jnp.arange(NUM_RANKS)[None, None, :]), axis=0,
        )  # [4, 15]
        forced_to = (holders == lord)[:, None] & revealed
        dealt = dealt + jnp.where(forced_to, forced, 0)
        keep = (holders == seat)[:, None]
        hands = jnp.where(keep[:3], s._hands, dealt[:3]).astype(jnp.int8)
        bottom = jnp.where(revealed, s._bottom, dealt[3]).astype(jnp.int8)
        return s.replace(_hands=hands, _bottom=bottom)

    # The 15 ranks are the kinds (up to four copies); the places are the two other seats in turn,
    # then the bottom while it is face down (during the auction).
    hidden_space = ((20, 20, 3), 4)

    def _unseen(self, s: State, seat):
        """(free int[15], forced int[15], places int[2]): the ranks ``seat`` has not seen and
        that may be anywhere hidden, those the landlord must still hold (shown bottom cards it
        has not played), and the two other seats."""
        lord = jnp.maximum(s.landlord, 0)
        forced = jnp.where(~s.bidding & (s.landlord >= 0) & (lord != seat),
                           jnp.maximum(s.bottom - s.played[lord], 0), 0).astype(jnp.int32)
        unseen = jnp.asarray(DECK) - s._hands[seat] - jnp.sum(s.played, axis=0)
        places = (seat + 1 + jnp.arange(NUM_PLAYERS - 1)) % NUM_PLAYERS
        return unseen.astype(jnp.int32) - forced, forced, places

    def hidden_cards(self, state: State, seat) -> HiddenCards:
        s = state
        free, forced, places = self._unseen(s, seat)
        in_hands = s._hands[places].astype(jnp.int32) - jnp.where(
            (places == s.landlord)[:, None], forced[None, :], 0)  # [2, 15]
        bottom = jnp.where(s.bidding, s._bottom, 0).astype(jnp.int32)
        truth = jnp.concatenate([in_hands, bottom[None]]).T  # [15, 3]
        return HiddenCards(copies=free, allowed=jnp.ones((NUM_RANKS, 3), bool),
                           capacity=jnp.sum(truth, axis=0, dtype=jnp.int32), truth=truth)

    def with_hidden(self, state: State, seat, counts) -> State:
        s = state
        _, forced, places = self._unseen(s, seat)
        counts = jnp.asarray(counts, jnp.int32)
        held = counts[:, :2].T + jnp.where((places == s.landlord)[:, None], forced[None, :], 0)
        hands = s._hands.at[places].set(held.astype(s._hands.dtype))
        bottom = jnp.where(s.bidding, counts[:, 2], s._bottom).astype(s._bottom.dtype)
        return s.replace(_hands=hands, _bottom=bottom)

    # ------------------------------------------------------------------ people
    def action_to_str(self, action: int) -> str:
        action = int(action)
        if action >= NUM_MOVES:
            return "no bid" if action == BID_PASS else f"bid {action - NUM_MOVES}"
        return action_string(action)

    def render(self, state: State) -> str:
        s = jax.device_get(state)
        if np.ndim(s.current_player) != 0:
            raise ValueError("render takes one game, not a batch; index the batch first")
        lines = [f"Dou Dizhu  step {int(s.step_count)}  "
                 + ("finished" if s.terminated else f"to act: seat {int(s.current_player)}")
                 + (f"  (auction, bid {int(s.bid)})" if s.bidding else "")]
        for seat in range(NUM_PLAYERS):
            role = "landlord" if seat == int(s.landlord) else "peasant "
            lines.append(f"seat {seat} {role}: {counts_to_str(s._hands[seat]) or '-':<22} "
                         f"played: {counts_to_str(s.played[seat]) or '-'}")
        if int(s.to_beat) >= 0:
            lines.append(f"to beat: {action_string(int(s.to_beat))} (seat {int(s.to_beat_seat)})")
        lines.append(f"bottom: {counts_to_str(s.bottom) or '-'}  bombs: {int(s.bombs)}")
        if s.terminated:
            lines.append(f"rewards: {np.asarray(s.rewards).tolist()}")
        return "\n".join(lines)
