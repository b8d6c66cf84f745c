"""Gongzhu (拱猪) as pure JAX functions, with the ScrofaZero paper's rules (section 2, table 1).

Cards use the deck of :mod:`cardjax.cards` (``i = 13*suit + rank``, suits S H D C, ranks 2..A).
Four seats in two teams, {0, 2} and {1, 3}; 13 tricks; follow the led suit if you can; the highest
card of the led suit takes the trick and leads the next.  Each seat's pile is scored on its own
(:func:`pile_scores`): hearts 0 (H2-H4), -10 (H5-H10), -20/-30/-40/-50 (HJ, HQ, HK, HA), SQ -100,
DJ +100; all 13 hearts add 400 (they count +200); C10 doubles the pile if it holds another score
card and is worth +50 alone.  At the end each seat's reward is its team's total minus the other
team's (zero-sum); ``scores`` keeps the raw pile scores.

Actions: ``0..51`` play (or, in the exposure phase, expose) that card.  With ``exposure=True``
there is one more action, ``52`` = "done exposing", so ``num_actions`` is 53.

The exposure phase (option ``exposure``): starting with the first leader, each seat in turn
exposes any of SQ, DJ, C10, HA it holds, one card per action, then plays ``52``.  An exposed SQ
counts -200, an exposed DJ +200, an exposed C10 multiplies by 4 (+100 alone), an exposed HA
doubles every heart (all hearts then count +400).  An exposed card may not be played to the first
trick of its suit (leading it counts) unless it is its holder's only card of that suit.

State fields beyond the contract (all public except ``_owner``):
``leader`` seat leading the current trick, ``num_played`` cards played, ``trick[seat]`` card that
seat put on the current trick (-1 none), ``played_by[card]`` / ``taken_by[card]`` seat that played /
collected it (-1 none), ``history[t]`` card played at play t, ``scores[seat]`` pile score so far,
``voids[seat, suit]`` revealed voids, ``exposed[card]``, ``suit_led[suit]`` whether a trick of that
suit has been completed, ``exposing`` seats done exposing (4 = playing), ``_owner[card]`` the deal.

Hidden-state sampling (the worlds of a search): :mod:`~cardjax.games.gongzhu.hidden`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from cardjax import cards as _cards
from cardjax import shuffle
from cardjax.core import HiddenCards, Env, MaskedState, PRNGKey
from cardjax.games.gongzhu import hidden as gz_hidden

Array = jax.Array

NUM_PLAYERS = 4
NUM_CARDS = 52
DONE_EXPOSING = 52
OBS_SIZE = 52 + 4 * 52 + 4 * 52 + 4 * 16 + 4 * 4 + 4 * 4 + 4  # 568
ORACLE_SIZE = 4 * 52 + 3 * 54 + 4 * 16  # 434

SUIT = np.arange(NUM_CARDS) // 13
RANK = np.arange(NUM_CARDS) % 13
SPADES, HEARTS, DIAMONDS, CLUBS = range(4)
SQ, DJ, C10, HA = (_cards.card_index(c) for c in ("SQ", "DJ", "C10", "HA"))
HEART_CARDS = np.arange(13, 26)
# The 16 score cards in the order of the oracle observation: H2..HA, SQ, DJ, C10.
SCORE_CARDS = np.concatenate([HEART_CARDS, [SQ, DJ, C10]])
EXPOSABLE = np.array([SQ, DJ, C10, HA])

POINTS = np.zeros(NUM_CARDS, np.float32)
POINTS[HEART_CARDS] = [0, 0, 0, -10, -10, -10, -10, -10, -10, -20, -30, -40, -50]
POINTS[SQ] = -100
POINTS[DJ] = 100
# The score cards in SCORE_CARDS order: 13 hearts, SQ, DJ, C10.
SCORE_POINTS = POINTS[SCORE_CARDS].astype(np.int32)
SCORE_IS_HEART = np.arange(16) < 13
SCORE_IS_PIG_OR_SHEEP = (np.arange(16) == 13) | (np.arange(16) == 14)
IS_SCORE = np.zeros(NUM_CARDS, bool)
IS_SCORE[SCORE_CARDS] = True
IS_HEART = SUIT == HEARTS


@struct.dataclass
class State(MaskedState):
    leader: Array
    num_played: Array
    trick: Array
    played_by: Array
    history: Array
    taken_by: Array
    scores: Array
    voids: Array
    exposed: Array
    suit_led: Array
    exposing: Array
    _owner: Array


def pile_scores(piles: Array, exposed: Array | None = None) -> Array:
    """Score of each pile: ``piles`` is bool[..., 52]; returns float32[...].

    ``exposed`` (bool[52], optional) applies the exposure option's doublings.
    """
    return _score_card_piles(jnp.asarray(piles, bool)[..., SCORE_CARDS], exposed)


def _score_card_piles(piles: Array, exposed: Array | None = None) -> Array:
    """:func:`pile_scores` from the 16 score cards of each pile (bool[..., 16], SCORE_CARDS
    order), the only cards that count; integer sums, which XLA's CPU backend reduces faster."""
    if exposed is None:
        exposed = jnp.zeros(NUM_CARDS, bool)
    heart_mult = jnp.where(exposed[HA], 2, 1)
    card_mult = jnp.where(jnp.asarray(SCORE_IS_HEART), heart_mult,
                          jnp.where(jnp.asarray(SCORE_IS_PIG_OR_SHEEP) & exposed[SCORE_CARDS], 2, 1))
    s = jnp.sum(jnp.where(piles, SCORE_POINTS * card_mult, 0), axis=-1)
    all_hearts = jnp.all(piles[..., :13], axis=-1)
    s = s + jnp.where(all_hearts, 400 * heart_mult, 0)
    has_c10 = piles[..., 15]
    others = jnp.any(piles[..., :15], axis=-1)
    c10_mult = jnp.where(exposed[C10], 4, 2)
    c10_alone = jnp.where(exposed[C10], 100, 50)
    return jnp.where(has_c10, jnp.where(others, c10_mult * s, c10_alone), s).astype(jnp.float32)


_pile_scores_jit = jax.jit(pile_scores)


def pile_score(cards, exposed=()) -> int:
    """Score of one pile given as card strings (``"C10 H2"``), indices or a bool[52] mask.

    >>> pile_score("C10 SQ")
    -200
    """
    pile = _as_mask(cards, "cards")
    exp = _as_mask(exposed, "exposed")
    return int(_pile_scores_jit(pile, exp))


def _as_mask(cards, what: str) -> np.ndarray:
    if isinstance(cards, str):
        return _cards.cards_mask(cards)
    arr = np.asarray(cards)
    if arr.dtype == bool:
        if arr.shape != (NUM_CARDS,):
            raise ValueError(f"{what}: a card mask must have shape (52,), got {arr.shape}")
        return arr
    if arr.size and isinstance(arr.reshape(-1)[0], str):
        return _cards.cards_mask(list(arr.reshape(-1)))
    mask = np.zeros(NUM_CARDS, bool)
    for i in arr.reshape(-1).astype(int):
        if not 0 <= i < NUM_CARDS:
            raise ValueError(f"{what}: card index {i} is not in 0..51")
        if mask[i]:
            raise ValueError(f"{what}: card {_cards.card_str(i)} is named twice")
        mask[i] = True
    return mask


def owner_from_hands(hands) -> np.ndarray:
    """``owner`` array (52,) from four hands written as card strings (or index lists)."""
    if len(hands) != NUM_PLAYERS:
        raise ValueError(f"expected 4 hands, got {len(hands)}")
    owner = np.full(NUM_CARDS, -1, np.int32)
    for seat, hand in enumerate(hands):
        for c in np.flatnonzero(_as_mask(hand, f"hand of seat {seat}")):
            if owner[c] >= 0:
                raise ValueError(
                    f"card {_cards.card_str(c)} is in the hands of seats {owner[c]} and {seat}"
                )
            owner[c] = seat
    _check_owner(owner)
    return owner


def _check_owner(owner: np.ndarray) -> None:
    if owner.shape != (NUM_CARDS,):
        raise ValueError(f"owner must have shape (52,) (the seat of every card), got {owner.shape}")
    bad = np.flatnonzero((owner < 0) | (owner >= NUM_PLAYERS))
    if bad.size:
        names = ", ".join(_cards.card_str(c) for c in bad[:5])
        raise ValueError(f"owner must hold a seat 0..3 for every card; not so for {names}")
    counts = np.bincount(owner, minlength=NUM_PLAYERS)
    if not np.all(counts == 13):
        raise ValueError(f"every seat must hold 13 cards, got {counts.tolist()} for seats 0..3")


def _is_concrete(x) -> bool:
    return not isinstance(x, jax.core.Tracer)


def _onehot(cards: Array, size: int = NUM_CARDS) -> Array:
    """bool[..., size] from card indices (-1 -> all False)."""
    return cards[..., None] == jnp.arange(size)


class Gongzhu(Env):
    """Gongzhu for four seats in two teams {0, 2} and {1, 3}. Options: see the module docstring."""

    name = "gongzhu"
    version = "1"  # the rules' version: runs, corpora and players record gongzhu@1
    num_players = NUM_PLAYERS
    teams = (0, 1, 0, 1)

    def __init__(self, exposure: bool = False, first_leader: str = "seat0",
                 illegal_penalty: float = 1000.0):
        if not isinstance(exposure, (bool, np.bool_)):
            raise ValueError(f"exposure must be True or False, got {exposure!r}")
        if first_leader not in ("seat0", "holder_of_S2"):
            raise ValueError(
                f"first_leader must be 'seat0' or 'holder_of_S2', got {first_leader!r}"
            )
        self.exposure = bool(exposure)
        self.first_leader = first_leader
        self.illegal_penalty = float(illegal_penalty)
        self.num_actions = NUM_CARDS + (1 if self.exposure else 0)
        # 52 plays; exposing adds at most the four special cards and each seat's "done"
        self.max_steps = NUM_CARDS + (8 if self.exposure else 0)
        self.options = {"exposure": self.exposure, "first_leader": first_leader}
        if illegal_penalty != 1000.0:
            self.options["illegal_penalty"] = self.illegal_penalty
        self.observation_shape = (OBS_SIZE,)
        self.oracle_shape = (ORACLE_SIZE,)

    # ------------------------------------------------------------------ dealing
    def init(self, key: PRNGKey) -> State:
        """A uniformly random deal."""
        # = jax.random.permutation(key, jnp.repeat(jnp.arange(NUM_PLAYERS), 13)), without a sort
        owner = shuffle.permutation(key, NUM_CARDS) // 13
        leader = 0 if self.first_leader == "seat0" else owner[0]  # card 0 is S2
        return self._deal(owner, leader)

    def init_from_deal(self, owner, leader=None) -> State:
        """The game of an explicit deal: ``owner[card]`` is the seat holding it (int, (52,)).

        ``leader`` defaults to the ``first_leader`` option (seat 0, or the holder of S2). Outside
        ``jit`` the deal is checked and a bad one raises ``ValueError``; ``owner`` may also be a
        list of four hands written as card strings.
        """
        if (isinstance(owner, (list, tuple)) and len(owner) > 0
                and (isinstance(owner[0], str) or not np.isscalar(owner[0]))):
            owner = owner_from_hands(owner)
        if _is_concrete(owner):
            arr = np.asarray(owner)
            if not np.issubdtype(arr.dtype, np.integer):
                raise ValueError(f"owner must be integer seats, got dtype {arr.dtype}")
            _check_owner(arr)
        if leader is None:
            leader = 0 if self.first_leader == "seat0" else jnp.asarray(owner)[0]
        elif _is_concrete(leader) and not 0 <= int(leader) < NUM_PLAYERS:
            raise ValueError(f"leader must be a seat 0..3, got {leader}")
        return self._deal(jnp.asarray(owner), leader)

    def rotate(self, state: State, shift: int = 1) -> State:
        """The same deal with every hand, and the first lead, moved ``shift`` seats on.

        For initial states (the arena's duplicate rotation); play so far is not carried.
        """
        return self._deal((state._owner + shift) % NUM_PLAYERS, (state.leader + shift) % NUM_PLAYERS)

    def _deal(self, owner: Array, leader) -> State:
        leader = jnp.asarray(leader, jnp.int32)
        state = State(
            current_player=leader,
            legal_action_mask=jnp.zeros(self.num_actions, bool),
            rewards=jnp.zeros(NUM_PLAYERS, jnp.float32),
            terminated=jnp.bool_(False),
            step_count=jnp.int32(0),
            leader=leader,
            num_played=jnp.int32(0),
            trick=jnp.full(NUM_PLAYERS, -1, jnp.int8),
            played_by=jnp.full(NUM_CARDS, -1, jnp.int8),
            history=jnp.full(NUM_CARDS, -1, jnp.int8),
            taken_by=jnp.full(NUM_CARDS, -1, jnp.int8),
            scores=jnp.zeros(NUM_PLAYERS, jnp.float32),
            voids=jnp.zeros((NUM_PLAYERS, 4), bool),
            exposed=jnp.zeros(NUM_CARDS, bool),
            suit_led=jnp.zeros(4, bool),
            exposing=jnp.int32(0 if self.exposure else NUM_PLAYERS),
            _owner=owner.astype(jnp.int8),
        )
        return state.replace(legal_action_mask=self._legal_mask(state))

    # ------------------------------------------------------------------ rules
    def hand(self, state: State, seat) -> Array:
        """bool[52]: the cards ``seat`` still holds (hidden information of that seat)."""
        return (state._owner == seat) & (state.played_by < 0)

    def _legal_mask(self, s: State) -> Array:
        p = s.current_player
        hand = self.hand(s, p)
        k = s.num_played % 4
        led = jnp.maximum(s.trick[s.leader], 0) // 13
        follow = hand & (SUIT == led)
        legal = jnp.where((k > 0) & jnp.any(follow), follow, hand)
        if not self.exposure:
            return legal
        suit_count = jnp.sum(hand.reshape(4, 13), axis=1)
        first_of_suit = ~s.suit_led[SUIT]
        relevant = (k == 0) | (SUIT == led)
        legal = legal & ~(s.exposed & first_of_suit & relevant & (suit_count[SUIT] > 1))
        expose = hand & np.isin(np.arange(NUM_CARDS), EXPOSABLE) & ~s.exposed
        in_exposure = s.exposing < NUM_PLAYERS
        return jnp.concatenate([jnp.where(in_exposure, expose, legal), in_exposure[None]])

    def _step(self, s: State, action: Array, key=None) -> State:
        nxt = self._play(s, action)
        if self.exposure:
            nxt = jax.tree_util.tree_map(
                lambda a, b: jnp.where(s.exposing < NUM_PLAYERS, a, b), self._expose(s, action), nxt
            )
        mask = jnp.where(nxt.terminated, True, self._legal_mask(nxt))
        return nxt.replace(legal_action_mask=mask, step_count=s.step_count + 1)

    def _expose(self, s: State, a: Array) -> State:
        done = a == DONE_EXPOSING
        exposed = s.exposed | (~done & (jnp.arange(NUM_CARDS) == a))
        exposing = s.exposing + done.astype(jnp.int32)
        return s.replace(
            exposed=exposed,
            exposing=exposing,
            current_player=(s.leader + exposing) % NUM_PLAYERS,
            rewards=jnp.zeros_like(s.rewards),
        )

    def _play(self, s: State, a: Array) -> State:
        p = s.current_player
        k = s.num_played % 4
        card = jnp.minimum(a, NUM_CARDS - 1)
        led = jnp.where(k == 0, card // 13, jnp.maximum(s.trick[s.leader], 0) // 13)
        # Updates are written as selects over an iota, not scatters: they fuse on accelerators.
        seats, cards = jnp.arange(NUM_PLAYERS), jnp.arange(NUM_CARDS)
        trick = jnp.where(seats == p, card.astype(jnp.int8), s.trick)
        played_by = jnp.where(cards == card, p.astype(jnp.int8), s.played_by)
        history = jnp.where(cards == s.num_played, card.astype(jnp.int8), s.history)
        shows_void = (seats[:, None] == p) & (jnp.arange(4) == led) & (card // 13 != led)
        voids = s.voids | shows_void
        n = s.num_played + 1
        trick_done = n % 4 == 0

        t = trick.astype(jnp.int32)
        strength = jnp.where((t >= 0) & (t // 13 == led), t % 13, -1)
        winner = jnp.argmax(strength).astype(jnp.int32)
        on_table = (cards == t[0]) | (cards == t[1]) | (cards == t[2]) | (cards == t[3])
        taken_by = jnp.where(trick_done & on_table, winner.astype(jnp.int8), s.taken_by)
        piles = taken_by[SCORE_CARDS][None, :] == jnp.arange(NUM_PLAYERS, dtype=jnp.int8)[:, None]
        scores = jnp.where(trick_done, _score_card_piles(piles, s.exposed), s.scores)

        terminated = n == NUM_CARDS
        margin = scores[0] + scores[2] - scores[1] - scores[3]
        rewards = jnp.where(terminated, jnp.array([1.0, -1.0, 1.0, -1.0]) * margin, 0.0)
        return s.replace(
            current_player=jnp.where(trick_done, winner, (p + 1) % NUM_PLAYERS),
            rewards=rewards.astype(jnp.float32),
            terminated=terminated,
            leader=jnp.where(trick_done, winner, s.leader),
            num_played=n,
            trick=jnp.where(trick_done, jnp.int8(-1), trick),
            played_by=played_by,
            history=history,
            taken_by=taken_by,
            scores=scores,
            voids=voids,
            suit_led=s.suit_led | (trick_done & (jnp.arange(4) == led)),
        )

    # ------------------------------------------------------------------ observations
    def observe(self, state: State, seat) -> Array:
        """float32[568]: what ``seat`` may know, seats ordered relative to it (itself first).

        Own hand (52); the current trick's card of each seat (4x52); every card played so far by
        each seat (4x52); score cards collected by each seat (4x16, order H2..HA, SQ, DJ, C10);
        revealed voids (4x4 suits); exposed cards by holder (4x4: SQ, DJ, C10, HA); leader (4).
        """
        s = state
        rel = (jnp.arange(NUM_PLAYERS) + seat) % NUM_PLAYERS
        hand = self.hand(s, seat)
        table = _onehot(s.trick[rel].astype(jnp.int32))
        played = s.played_by[None, :] == rel[:, None]
        collected = s.taken_by[SCORE_CARDS][None, :] == rel[:, None]
        exposed = s.exposed[EXPOSABLE][None, :] & (s._owner[EXPOSABLE][None, :] == rel[:, None])
        leader = jnp.arange(NUM_PLAYERS) == (s.leader - seat) % NUM_PLAYERS
        parts = [hand, table, played, collected, s.voids[rel], exposed, leader]
        return jnp.concatenate([x.reshape(-1) for x in parts]).astype(jnp.float32)

    def observe_oracle(self, state: State, seat) -> Array:
        """float32[434]: the ScrofaZero input (paper 8.4) from ``seat``'s point of view.

        4x52 hands (itself first, then the following seats), 3x54 cards of the current trick in
        play order (leader first) in the "diffuse" encoding (card i lights slots i, i+1, i+2), and
        4x16 collected score cards (H2..HA, SQ, DJ, C10) per seat in the same relative order.
        """
        s = state
        rel = (jnp.arange(NUM_PLAYERS) + seat) % NUM_PLAYERS
        hands = (s._owner[None, :] == rel[:, None]) & (s.played_by[None, :] < 0)
        k = s.num_played % 4
        order = (s.leader + jnp.arange(3)) % NUM_PLAYERS
        table = jnp.where(jnp.arange(3) < k, s.trick[order].astype(jnp.int32), -1)
        slots = jnp.arange(54)
        diffuse = (table[:, None] >= 0) & (slots >= table[:, None]) & (slots <= table[:, None] + 2)
        collected = s.taken_by[SCORE_CARDS][None, :] == rel[:, None]
        parts = [hands, diffuse, collected]
        return jnp.concatenate([x.reshape(-1) for x in parts]).astype(jnp.float32)

    # ------------------------------------------------------------------ hidden information
    def sample_hidden(self, key: PRNGKey, state: State, seat) -> State:
        """A full state that ``seat`` cannot tell from ``state``.

        The cards ``seat`` has not seen (not in its hand, not played, not exposed) are re-dealt to
        the other seats, each keeping its number of cards, no seat receiving a suit it has shown
        void in.  Cards are placed one at a time in random order, each to a seat drawn in
        proportion to its free places among the seats that keep the rest placeable (Hall's
        condition over the 16 suit subsets), so sampling never dead-ends; with no voids it is
        exactly uniform.  (:meth:`sample_hidden_fixed` with nothing fixed.)
        """
        return self.sample_hidden_fixed(key, state, seat, jnp.full(NUM_CARDS, -1, jnp.int32))[0]

    def sample_hidden_fixed(self, key: PRNGKey, state: State, seat, fixed) -> tuple[State, Array]:
        """:meth:`sample_hidden` with some hidden cards forced to given seats: ``(world,
        feasible)`` (:func:`~cardjax.games.gongzhu.hidden.sample_hidden_fixed`)."""
        return gz_hidden.sample_hidden_fixed(self, key, state, seat, fixed)

    hidden_space = gz_hidden.HIDDEN_SPACE

    def hidden_cards(self, state: State, seat) -> HiddenCards:
        return gz_hidden.hidden_cards(state, seat)

    def with_hidden(self, state: State, seat, counts) -> State:
        return gz_hidden.with_hidden(self, state, seat, counts)

    # ------------------------------------------------------------------ people
    def action_to_str(self, action: int) -> str:
        action = int(action)
        if action == DONE_EXPOSING and self.exposure:
            return "done"
        return _cards.card_str(action)

    def render(self, state: State) -> str:
        s = jax.device_get(state)
        if np.ndim(s.current_player) != 0:
            raise ValueError("render takes one game, not a batch; index the batch first")
        lines = [
            f"Gongzhu  play {int(s.num_played)}/52  trick {min(int(s.num_played) // 4 + 1, 13)}/13  "
            + ("finished" if s.terminated else f"to act: seat {int(s.current_player)}")
        ]
        owner = np.asarray(s._owner)
        played_by = np.asarray(s.played_by)
        taken_by = np.asarray(s.taken_by)
        for seat in range(NUM_PLAYERS):
            hand = (owner == seat) & (played_by < 0)
            pile = (taken_by == seat) & IS_SCORE
            exp = np.flatnonzero(np.asarray(s.exposed) & (owner == seat))
            lines.append(
                f"seat {seat}: {_cards.cards_str(hand) or '-':<40} pile: {_cards.cards_str(pile) or '-'}"
                f" ({int(s.scores[seat]):+d})" + (f"  exposed: {_cards.cards_str(exp)}" if exp.size else "")
            )
        k = int(s.num_played) % 4
        if k:
            order = [(int(s.leader) + i) % NUM_PLAYERS for i in range(k)]
            lines.append("table: " + ", ".join(
                f"seat {p} {_cards.card_str(int(s.trick[p]))}" for p in order))
        if s.terminated:
            lines.append(f"rewards: {np.asarray(s.rewards).astype(int).tolist()}")
        return "\n".join(lines)
