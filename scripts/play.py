#!/usr/bin/env python
"""Play a card game in the terminal against agents: Gongzhu, Dou Dizhu, Mini Dou Di Zhu, Tractor.

    python scripts/play.py                          # Gongzhu: you at seat 0, Mr Greed elsewhere
    python scripts/play.py --partner if --opponents runs/scrofazero --seed 7
    python scripts/play.py --game doudizhu --seat 1 # a peasant; the rule player elsewhere
    python scripts/play.py --game mini_doudizhu
    python scripts/play.py --game tractor --seed 3  # Tractor against the rule player

You hold seat ``--seat`` (0-3 in Gongzhu and Tractor, 0-2 in Dou Dizhu where seat 0 is the
landlord, 0-1 in Mini Dou Di Zhu where seat 0 leads).  ``--partner`` and ``--opponents`` take a
baseline name (gongzhu: random, if, greed; doudizhu: random, rule; tractor: random, rule;
mini_doudizhu: random) or a training run directory, whose newest checkpoint plays; by default
the game's strongest baseline.  In the four-seat games the partner sits opposite.  Dou Dizhu has
no partner seat: ``--partner`` plays the other peasant when you are a peasant (the landlord plays
alone: then both other seats are ``--opponents``); Mini Dou Di Zhu is two seats, so only
``--opponents`` counts.

At any prompt ``?`` (or ``help``, or an empty line) lists your legal moves and ``quit``, ``exit``,
``q`` or end of input abandons the game.  Moves:

* Gongzhu: a card as people write it: ``Q♠``, ``QS``, ``SQ``, ``10h``, ``TH``.
* Dou Dizhu: the move's ranks in any order from ``3456789TJQKA2BR`` (``T`` or ``10`` = ten,
  ``B`` / ``R`` = black / red joker): ``33344``, ``3 4 5 6 7``, ``BR``, or ``pass``.
* Mini Dou Di Zhu: 1-4 cards of one rank of ``1234``, or ``B`` / ``R``: ``33``, ``R``, ``pass``.
* Tractor: the whole move's cards (``SA SA SK SK``, ``A♠ A♠ K♠ K♠``, ``XJ`` small joker, ``DJ``
  big joker; ``SJ`` too is the small joker: type ``JS`` or ``J♠`` for a jack); a lead ends with
  the typed cards.  A follow typed short is kept and the rest asked for at ``more>``; end a lead
  line with ``+`` to go on typing it at ``more>`` (``done`` ends it there); ``back`` at ``more>``
  starts the move again.  Burial: the 8 cards at once, or some now and the rest at ``more>``.
  While the cards are dealt you are asked ``declare?`` only when you can declare something new
  (``pass``, ``declare S``, ``declare S pair``, ``declare XJ``, ``declare DJ``), and ``overturn?``
  after the burial only when you hold a pair that overturns the trump.
"""

from __future__ import annotations

import argparse
import itertools
import time
from typing import Callable

import jax
import numpy as np

import cardjax
from cardjax import agents, cards
from cardjax.cli import run_command
from cardjax.games import doudizhu_moves, gongzhu, mini_doudizhu
from cardjax.games import tractor_cards as tc
from cardjax.games import tractor_helpers
from cardjax.games import tractor_moves as tm

SEAT_NAMES = ("South", "West", "North", "East")  # four seats, in the order of play
NAMES_BY_SEATS = {4: SEAT_NAMES, 3: ("South", "West", "East"), 2: ("South", "North")}
STRONGEST = {"gongzhu": "greed", "doudizhu": "rule", "mini_doudizhu": "random", "tractor": "rule"}
QUIT = ("quit", "exit", "q")
HELP = ("?", "help", "")
MAX_LISTED = 40


class Quit(Exception):
    """The person ended the game (quit, exit, q, or the end of the input)."""


def read(input_fn: Callable, prompt: str) -> str:
    """A stripped line from the person; ``Quit`` when they quit or the input ends."""
    try:
        text = input_fn(prompt).strip()
    except EOFError:
        raise Quit from None
    if text.lower() in QUIT:
        raise Quit
    return text


def listing(items, sep: str = " ", limit: int = MAX_LISTED) -> str:
    """``items`` joined; past ``limit`` the first ones and "... and N more"."""
    items = list(items)
    if len(items) <= limit:
        return sep.join(items)
    return sep.join(items[:limit]) + f" ... and {len(items) - limit} more"


def show(card: int) -> str:
    """``Q♠``, ``10♥``: rank then suit symbol, as people write cards."""
    return cards.RANKS[card % 13] + cards.SUIT_SYMBOLS[card // 13]


def show_hand(mask) -> str:
    """A hand by suit, high cards first: ``♠ A Q 3   ♥ 10 9  ...``."""
    mask = np.asarray(mask, bool)
    parts = []
    for suit in range(4):
        held = [cards.RANKS[r] for r in range(12, -1, -1) if mask[13 * suit + r]]
        if held:
            parts.append(cards.SUIT_SYMBOLS[suit] + " " + " ".join(held))
    return "   ".join(parts) or "(empty)"


def grouped(ranks: str) -> str:
    """``"3334456"`` -> ``"333 44 5 6"``: a rank string, one group a rank."""
    return " ".join("".join(g) for _, g in itertools.groupby(ranks)) or "(empty)"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--game", default="gongzhu",
                   help="gongzhu (default), doudizhu, mini_doudizhu or tractor")
    p.add_argument("--seat", type=int, default=0,
                   help="your seat: 0-3 (gongzhu, tractor), 0-2 (doudizhu; 0 is the landlord), "
                        "0-1 (mini_doudizhu)")
    p.add_argument("--partner", default=None,
                   help="baseline name or run directory (default: the game's strongest baseline)")
    p.add_argument("--opponents", default=None,
                   help="baseline name or run directory (default: the game's strongest baseline)")
    p.add_argument("--seed", type=int, default=0, help="the deal")
    return p.parse_args(argv)


def ask_card(hand, legal, input_fn: Callable, print_fn: Callable) -> int | None:
    """Read a legal Gongzhu card from the player; None when they quit."""
    while True:
        try:
            text = read(input_fn, "your card> ")
        except Quit:
            return None
        if text.lower() in HELP:
            print_fn("legal: " + " ".join(show(c) for c in np.flatnonzero(legal)))
            continue
        try:
            card = cards.card_index(text)
        except ValueError as e:
            print_fn(str(e))
            continue
        if not hand[card]:
            print_fn(f"you do not hold {show(card)}")
        elif not legal[card]:
            print_fn(f"{show(card)} is not legal: you must follow suit. legal: "
                     + " ".join(show(c) for c in np.flatnonzero(legal)))
        else:
            return card


# ---------------------------------------------------------------------------- the tables
class Table:
    """One game at the terminal: who sits where, what the person sees, how their move is read.

    A *move* is what a seat does in one turn; in Tractor it is several of the env's sub-actions
    (``move_done`` says when it is over), elsewhere one action."""

    def __init__(self, env, me: int, input_fn: Callable, print_fn: Callable, step: Callable):
        self.env, self.me, self.ask, self.say, self.step = env, me, input_fn, print_fn, step
        self.names = NAMES_BY_SEATS[env.num_players]

    def name(self, seat: int) -> str:
        return self.names[seat] + (" (you)" if seat == self.me else "")

    def seating(self, state, partner: str, opponents: str) -> dict:
        """seat -> agent spec for every seat but the person's."""
        n = self.env.num_players
        return {s: partner if (s - self.me) % n == n // 2 else opponents
                for s in range(n) if s != self.me}

    def intro(self, state, seats: dict) -> None:
        pass

    def person_move(self, state) -> list[int]:
        raise NotImplementedError

    def move_done(self, before, after) -> bool:
        return True

    def after_move(self, before, after, seat: int, actions: list[int]) -> None:
        pass

    def result(self, state) -> dict:
        rewards = [float(r) for r in np.asarray(state.rewards)]
        self.say("rewards: " + "  ".join(f"{self.names[s]} {r:+g}" for s, r in enumerate(rewards)))
        return {"rewards": rewards}


# ---------------------------------------------------------------------------- Gongzhu
class GongzhuTable(Table):
    """Gongzhu: one card a move; a trick line and the running score after every trick."""

    def intro(self, state, seats):
        me = self.me
        self.trick = []
        self.say(f"You are {SEAT_NAMES[me]} (seat {me}); partner {SEAT_NAMES[(me + 2) % 4]} "
                 f"({seats[(me + 2) % 4]}); opponents {seats[(me + 1) % 4]}.")

    def person_move(self, state):
        hand = np.asarray(self.env.hand(state, self.me))
        self.say(f"\ntable: {' '.join(self.trick) or '(you lead)'}")
        self.say(f"hand:  {show_hand(hand)}")
        card = ask_card(hand, np.asarray(state.legal_action_mask), self.ask, self.say)
        if card is None:
            raise Quit
        return [card]

    def after_move(self, before, after, seat, actions):
        self.trick.append(f"{SEAT_NAMES[seat]}:{show(actions[0])}")
        if int(after.num_played) % 4 == 0:
            self.say(f"trick {int(after.num_played) // 4:2d}: {'  '.join(self.trick)}  -> "
                     f"{SEAT_NAMES[int(after.leader)]} takes it")
            self.trick = []
            self.say("          " + self.score_line(after))

    def score_line(self, state) -> str:
        """Who took the pig, sheep and transformer, hearts and points per team (the game's pile
        scores, ``state.scores``)."""
        gz = gongzhu
        taken = np.asarray(state.taken_by)
        ours = lambda seat: seat in (self.me, (self.me + 2) % 4)  # noqa: E731
        holder = lambda c: SEAT_NAMES[taken[c]] if taken[c] >= 0 else "-"  # noqa: E731
        hearts = [int(taken[c]) for c in gz.HEART_CARDS if taken[c] >= 0]
        scores = np.asarray(state.scores)
        mine, theirs = self.team_points(scores)
        return (f"pig {show(gz.SQ)} {holder(gz.SQ)}, sheep {show(gz.DJ)} {holder(gz.DJ)}, "
                f"transformer {show(gz.C10)} {holder(gz.C10)}; hearts: yours "
                f"{sum(map(ours, hearts))}, theirs {len(hearts) - sum(map(ours, hearts))}; "
                f"points: yours {mine:+.0f}, theirs {theirs:+.0f}")

    def team_points(self, scores):
        me = self.me
        return scores[me] + scores[(me + 2) % 4], scores[(me + 1) % 4] + scores[(me + 3) % 4]

    def result(self, state):
        scores = np.asarray(state.scores)
        mine, theirs = self.team_points(scores)
        self.say("\n" + "  ".join(f"{SEAT_NAMES[s]} {scores[s]:+.0f}" for s in range(4)))
        self.say(f"your team {mine:+.0f}, theirs {theirs:+.0f}: margin {mine - theirs:+.0f}")
        return {"scores": scores.tolist(), "margin": float(mine - theirs),
                "rewards": [float(r) for r in np.asarray(state.rewards)]}


# ---------------------------------------------------------------------------- Dou Dizhu
class DouDizhuTable(Table):
    """Dou Dizhu (default env: no bidding, seat 0 is the landlord): one move string a turn."""

    moves = doudizhu_moves

    def landlord(self, state) -> int:
        return int(state.landlord)

    def seating(self, state, partner, opponents):
        lord = self.landlord(state)
        # the other peasant is the partner of a peasant; the landlord plays alone
        return {s: partner if lord not in (s, self.me) else opponents
                for s in range(self.env.num_players) if s != self.me}

    def role(self, seat, state) -> str:
        return "landlord" if seat == self.landlord(state) else "peasant"

    def intro(self, state, seats):
        me, lord = self.me, self.landlord(state)
        others = ", ".join(f"{self.names[s]} {self.role(s, state)} ({spec})"
                           for s, spec in sorted(seats.items()))
        article = "the" if me == lord else "a"
        self.say(f"You are {self.names[me]} (seat {me}), {article} {self.role(me, state)}; "
                 f"{others}.")
        if me == lord:
            self.say("(you play alone: --partner is not used)")
        self.say(f"the landlord's bottom cards: {self.bottom(state)}; {self.status(state)}")

    def bottom(self, state) -> str:
        return grouped(self.moves.counts_to_str(np.asarray(state.bottom)))

    # the game's strings (Mini Dou Di Zhu overrides these)
    def hand_text(self, state) -> str:
        return grouped(self.moves.counts_to_str(np.asarray(self.env.hand(state, self.me))))

    def move_text(self, action: int) -> str:
        return self.moves.action_string(action)

    def parse(self, text: str) -> int:
        return self.moves.action_index(text.upper().replace("10", "T"))

    def cards_left(self, state) -> list[int]:
        return [int(n) for n in np.asarray(state.cards_left)]

    def to_beat(self, state) -> tuple[int, int]:
        return int(state.to_beat), int(state.to_beat_seat)

    def status(self, state) -> str:
        left = ", ".join(f"{self.names[s]} {n}" for s, n in enumerate(self.cards_left(state)))
        return f"cards left: {left}; bombs {int(state.bombs)}"

    def person_move(self, state):
        legal = np.asarray(state.legal_action_mask)
        moves = [self.move_text(a) for a in np.flatnonzero(legal)]
        beat, by = self.to_beat(state)
        self.say("")
        self.say(f"to beat: {self.move_text(beat)} ({self.name(by)}, {self.role(by, state)})"
                 if beat >= 0
                 else "you lead")
        self.say(f"hand: {self.hand_text(state)}")
        while True:
            text = read(self.ask, "your move> ")
            if text.lower() in HELP:
                self.say("legal: " + listing(moves))
                continue
            try:
                a = self.parse(text)
            except ValueError as e:
                self.say(str(e))
                continue
            if legal[a]:
                return [a]
            move = self.move_text(a)
            if move == "pass":
                self.say("you lead: you cannot pass")
            elif move not in self.holdable(state):
                self.say(f"you do not hold {move}")
            else:
                self.say(f"{move} does not beat {self.move_text(beat)}; legal: " + listing(moves))

    def holdable(self, state) -> set:
        """The moves the person's hand holds (what a lead could play)."""
        return set(self.moves.legal_moves(np.asarray(self.env.hand(state, self.me))))

    def after_move(self, before, after, seat, actions):
        self.say(f"{self.name(seat) + ':':<13}{self.move_text(actions[0]):<14}{self.status(after)}")
        if not bool(after.terminated) and self.to_beat(after)[0] < 0 \
                and self.to_beat(before)[0] >= 0:
            self.say(f"-- {self.name(int(after.current_player))} leads")

    def result(self, state):
        rewards = [float(r) for r in np.asarray(state.rewards)]
        lord = self.landlord(state)
        side = "landlord" if rewards[lord] > 0 else "peasants"
        self.say(f"\nthe {side} win{'s' if side == 'landlord' else ''}; rewards: "
                 + "  ".join(f"{self.names[s]} {r:+g}" for s, r in enumerate(rewards))
                 + f"; you {rewards[self.me]:+g}")
        return {"rewards": rewards, "landlord": lord, "winner": side}


class MiniTable(DouDizhuTable):
    """Mini Dou Di Zhu: two seats, one move string a turn; seat 0 leads."""

    mini = mini_doudizhu

    def landlord(self, state) -> int:
        return int(state.leader)  # no landlord: the first player stands in for it in the display

    def seating(self, state, partner, opponents):
        return {1 - self.me: opponents}

    def role(self, seat, state) -> str:
        return "first player" if seat == int(state.leader) else "second player"

    def intro(self, state, seats):
        self.say(f"You are {self.names[self.me]} (seat {self.me}), the {self.role(self.me, state)};"
                 f" {self.names[1 - self.me]} plays {seats[1 - self.me]}; {self.status(state)}.")

    def hand_text(self, state):
        return grouped(self.mini.hand_str(np.asarray(state._hands[self.me])))

    def move_text(self, action):
        return self.mini.action_str(action)

    def parse(self, text):
        return self.mini.parse_action(text.replace(" ", ""))

    def cards_left(self, state):
        # public: a hand's size less what it played
        return [self.mini.HAND_SIZE - int(n) for n in np.asarray(state.played).sum(1)]

    def to_beat(self, state):
        # after a pass the other player leads, so the move to beat is the last one made
        return int(state.to_beat), 1 - int(state.current_player)

    def status(self, state):
        return "cards left: " + ", ".join(f"{self.names[s]} {n}"
                                          for s, n in enumerate(self.cards_left(state)))

    def holdable(self, state):
        return set(self.mini.legal_moves(np.asarray(state._hands[self.me])))

    def result(self, state):
        rewards = [float(r) for r in np.asarray(state.rewards)]
        winner = int(state.winner)
        self.say(f"\n{self.name(winner)} wins; rewards: "
                 + "  ".join(f"{self.names[s]} {r:+g}" for s, r in enumerate(rewards)))
        return {"rewards": rewards, "winner": winner}


# ---------------------------------------------------------------------------- Tractor
DONE, PASS, DECL_SINGLE, DECL_PAIR, DECL_XJ, DECL_DJ = 54, 55, 56, 60, 64, 65  # tractor's actions
_DECL_WORDS = {"S": 0, "H": 1, "D": 2, "C": 3, "♠": 0, "♥": 1, "♦": 2, "♣": 3}


def decl_text(action: int) -> str:
    """A declaration as the person types it: ``pass``, ``declare S``, ``declare S pair``,
    ``declare XJ`` (a pair of small jokers), ``declare DJ``."""
    a = int(action)
    if a == PASS:
        return "pass"
    if a in (DECL_XJ, DECL_DJ):
        return f"declare {'XJ' if a == DECL_XJ else 'DJ'}"
    pair = a >= DECL_PAIR
    suit = tm.SUITS[a - (DECL_PAIR if pair else DECL_SINGLE)]
    return f"declare {suit}" + (" pair" if pair else "")


def parse_decl(text: str) -> int:
    """The action of ``pass``, ``declare S`` / ``S`` / ``declare ♠``, ``declare S pair``,
    ``declare XJ`` (``XJ XJ``), ``declare DJ``; ``overturn`` may stand for ``declare``."""
    words = text.upper().replace("DECLARE", " ").replace("OVERTURN", " ").split()
    if words in (["PASS"], ["P"]):
        return PASS
    if words and all(w in ("XJ", "SJ") for w in words):
        return DECL_XJ
    if words and all(w in ("DJ", "BJ") for w in words):
        return DECL_DJ
    if words and words[0] in _DECL_WORDS and words[1:] in ([], ["PAIR"], [words[0]]):
        return (DECL_SINGLE if len(words) == 1 else DECL_PAIR) + _DECL_WORDS[words[0]]
    raise ValueError(f"unknown declaration {text!r}: type pass, or e.g. 'declare S', "
                     "'declare S pair', 'declare XJ'")


class TractorTable(Table):
    """Tractor.  A move is several of the env's sub-actions (cards, then DONE for a lead; one
    card a sub-action in the burial): the person types the whole move and it is checked card by
    card against ``legal_action_mask`` on copies of the state (states are immutable), so a
    refused move leaves the game as it was.  Declarations and overturns are asked only when the
    person has one to make; otherwise they pass."""

    def intro(self, state, seats):
        me = self.me
        self.asked = frozenset()  # the declarations the person was last asked about
        self.say(f"You are {SEAT_NAMES[me]} (seat {me}); partner {SEAT_NAMES[(me + 2) % 4]} "
                 f"({seats[(me + 2) % 4]}); opponents {seats[(me + 1) % 4]}.")
        self.say(f"level {tm.RANKS[int(state.level)]}; {self.team_text(state)}. The cards are "
                 "dealt one at a time: you are asked to declare when you can.")

    # -- what the person sees
    def team_text(self, state) -> str:
        dealer = int(state.dealer)
        if dealer < 0:
            return "the first declarer deals"
        return f"dealer {self.name(dealer)}: you {self.side(state)}" + (
            " (the dealer's side)" if self.side(state) == "defend" else "")

    def side(self, state) -> str:
        return "attack" if self.me % 2 != int(state.dealer) % 2 else "defend"

    def trump_text(self, state) -> str:
        tr = int(state.trump)
        return "no trump" if tr == tm.NT else tm.SUIT_SYMBOLS[tr]

    def cards(self, state, counts) -> str:
        """Card strings of ``counts`` by effective suit (trumps last), high cards first."""
        lv, tr = int(state.level), int(state.trump)
        eff, order = tm.EFF[lv, tr, :tm.NUM_TYPES], tm.ORD[lv, tr, :tm.NUM_TYPES]
        return tc.counts_str(np.asarray(counts), sort_key=lambda t: (eff[t], -order[t]))

    def hand_text(self, state, counts=None) -> str:
        """The person's cards by effective suit, trumps last, high cards first."""
        counts = np.asarray(state._hands[self.me] if counts is None else counts)
        eff = tm.EFF[int(state.level), int(state.trump), :tm.NUM_TYPES]
        return "   ".join(
            f"{'trump' if suit == tm.TRUMP else tm.SUIT_SYMBOLS[suit]}: "
            + self.cards(state, np.where(eff == suit, counts, 0))
            for suit in range(5) if counts[eff == suit].any()) or "(empty)"

    def table_text(self, state) -> str:
        lead = int(state.leader)
        seats = [(lead + i) % 4 for i in range(int(state.num_in_trick))]
        return "  |  ".join(f"{SEAT_NAMES[s]} {self.cards(state, state.trick[s])}" for s in seats)

    # -- the person's move
    def person_move(self, state):
        phase = int(state.phase)
        if phase in (tm.DECLARE, tm.CHAODI):
            return [self.ask_declaration(state, phase)]
        if phase == tm.BURY:
            self.say(f"\nyour hand ({int(np.sum(state._hands[self.me]))} cards): "
                     f"{self.hand_text(state)}")
            self.say("bury 8 cards: type them (some now and the rest at more>)")
            return self.ask_cards(state, "bury> ")
        leading = int(state.num_in_trick) == 0
        self.say(f"\ntrick {int(state.trick_no) + 1} · level {tm.RANKS[int(state.level)]} · "
                 f"trump {self.trump_text(state)} · you {self.side(state)} · attackers' points "
                 f"{int(state.attacker_points)}")
        self.say(f"table: {self.table_text(state) or '(you lead)'}")
        self.say(f"hand:  {self.hand_text(state)}")
        return self.ask_cards(state, "your lead> " if leading else "your play> ")

    def ask_declaration(self, state, phase) -> int:
        legal = np.asarray(state.legal_action_mask)
        options = frozenset(int(a) for a in np.flatnonzero(legal) if a >= DECL_SINGLE)
        if phase == tm.DECLARE:
            if not options or options == self.asked:
                return PASS  # nothing new to declare: do not ask at every card dealt
            self.asked = options
        elif not options:
            return PASS
        verb = "declare" if phase == tm.DECLARE else "overturn with"
        choices = [decl_text(a) for a in sorted(options)]
        self.say(f"\nyour cards: {self.hand_text(state)}")
        self.say(f"you can {verb}: {', '.join(choices)}")
        prompt = ('declare? (pass, or e.g. "declare S", "declare S pair", "declare XJ") '
                  if phase == tm.DECLARE else
                  'overturn? (pass, or e.g. "declare S pair", "declare XJ") ')
        while True:
            text = read(self.ask, prompt)
            if text.lower() in HELP:
                self.say("legal: " + ", ".join(["pass"] + choices))
                continue
            try:
                a = parse_decl(text)
            except ValueError as e:
                self.say(str(e))
                continue
            if legal[a]:
                return a
            self.say(f"{decl_text(a)} is not legal now; legal: " + ", ".join(["pass"] + choices))

    def ask_cards(self, state, prompt) -> list[int]:
        """A whole move (trick phase) or burial, typed at once or in parts (``more>``)."""
        leading = int(state.phase) == tm.PLAY and int(state.num_in_trick) == 0
        sim, acts = state, []  # the move so far, applied to a copy
        while True:
            text = read(self.ask, prompt if not acts else "more> ")
            low = text.lower()
            if low in HELP:
                self.say(self.legal_text(sim))
                continue
            if low == "back":
                sim, acts = state, []
                self.say("the move is discarded: type it again")
                continue
            go_on = leading and text.endswith("+")  # a lead to go on with at more>
            if not (leading and acts and low == "done"):
                try:
                    types = [tc.card_type(w) for w in text.rstrip("+").replace(",", " ").split()]
                except ValueError as e:
                    self.say(str(e))
                    continue
                if not types:
                    self.say("type cards, e.g. 'SA SA SK SK', or ? for the legal ones")
                    continue
                nxt, order, why = self.feed(sim, types)
                if why:
                    self.say(why)
                    continue
                sim, acts = nxt, acts + order
            if self.move_done(state, sim):
                return acts
            if leading and not go_on:
                if np.asarray(sim.legal_action_mask)[DONE]:
                    return acts + [DONE]
                self.say("the lead cannot end here: " + self.legal_text(sim))
            if int(state.phase) == tm.BURY:
                left = 8 - int(sim.buried)
            else:
                left = int(sim.lead_n) - int(np.sum(sim.trick[self.me])) if not leading else 0
            self.say(f"so far: {self.cards(state, self.part(state, sim))}"
                     + (f"; {left} more card{'s' if left > 1 else ''}" if left else
                        "; more cards, or done"))

    def part(self, state, sim) -> np.ndarray:
        """The cards of the move being built in ``sim`` since ``state``."""
        if int(state.phase) == tm.BURY:
            return np.asarray(state._hands[self.me]) - np.asarray(sim._hands[self.me])
        return np.asarray(sim.trick[self.me]) - np.asarray(state.trick[self.me])

    def feed(self, state, types):
        """Step a copy of ``state`` through the cards ``types``, each checked against the legal
        mask first: (the state after them, the order used, None), or (``state`` itself, None,
        a message naming the first card that is not allowed)."""
        sim = state
        for t in types:
            if self.move_done(state, sim):
                return state, None, (f"too many cards: the move is complete with "
                                     f"{self.cards(state, self.part(state, sim))}")
            if not np.asarray(sim.legal_action_mask)[t]:
                found = self.reorder(state, types)
                if found is not None:  # the same cards in another order (units of a follow)
                    return found + (None,)
                return state, None, self.refusal(state, sim, t, types)
            sim = self.step(sim, t)
        return sim, list(types), None

    def reorder(self, state, types, budget: int = 200):
        """(state, order) for an order of ``types`` that the masks allow, or None.  A follow of
        a lead with several tractors is built unit by unit, so the typed order can matter."""
        left = {t: types.count(t) for t in set(types)}
        steps = 0

        def walk(sim, order):
            nonlocal steps
            if len(order) == len(types):
                return sim, order
            if self.move_done(state, sim):
                return None
            mask = np.asarray(sim.legal_action_mask)
            for t in sorted(left):
                if left[t] and mask[t] and steps < budget:
                    steps += 1
                    left[t] -= 1
                    found = walk(self.step(sim, t), order + [t])
                    left[t] += 1
                    if found:
                        return found
            return None

        return walk(state, [])

    def refusal(self, state, sim, t, types) -> str:
        """Why the typed move ``types`` is not played: ``t``, its first card that ``sim`` (the
        move so far) refuses."""
        in_play = int(sim.phase) == tm.PLAY
        so_far = np.asarray(sim.trick[self.me]) if in_play else self.part(state, sim)
        hand = np.asarray(sim._hands[self.me]) - (so_far if in_play else 0)
        if hand[t] <= 0:
            why = f"you do not hold {'another ' if so_far[t] else ''}{tc.type_str(t)}"
        else:
            after = self.cards(state, so_far)
            why = f"{tc.type_str(t)} is not allowed" + (f" after {after}" if after else "")
        typed = " ".join(tc.type_str(x) for x in types)
        return f"{typed} is not played: {why}. " + self.legal_text(sim)

    def legal_text(self, sim) -> str:
        """The legal next cards (and ``done`` when a lead may end); for a follow, the whole
        moves too when there are few."""
        mask = np.asarray(sim.legal_action_mask)
        items = [tc.type_str(t) for t in np.flatnonzero(mask[:tm.NUM_TYPES])]
        text = "legal: " + listing(items + (["done"] if mask[DONE] else []))
        whole = self.follows(sim) if int(sim.phase) == tm.PLAY else None
        if whole and len(whole) > 1 and int(sim.lead_n) > 1:
            text += "\nwhole moves: " + listing(whole, sep="  |  ", limit=12)
        return text

    def follows(self, sim, budget: int = 150):
        """The legal completions of the follow being built in ``sim``, or None when leading or
        past ``budget`` mask evaluations (:func:`tractor_helpers.follow_completions`)."""
        if int(sim.num_in_trick) == 0:
            return None
        found = tractor_helpers.follow_completions(sim, budget)
        return None if found is None else [self.cards(sim, c) for c in found]

    # -- moves and their display
    def move_done(self, before, after) -> bool:
        if bool(after.terminated):
            return True
        phase = int(before.phase)
        if phase == tm.PLAY:  # a lead or follow ends when the trick's count of plays moves
            return (int(after.trick_no), int(after.num_in_trick)) != \
                (int(before.trick_no), int(before.num_in_trick))
        if phase == tm.BURY:
            return int(after.phase) != tm.BURY
        return True

    def after_move(self, before, after, seat, actions):
        phase, name = int(before.phase), self.name(seat)
        if phase == tm.DECLARE and actions[0] != PASS:
            self.say(f"{name}: {self.env.action_to_str(actions[0])}")
        elif phase == tm.CHAODI and actions[0] != PASS:
            self.say(f"{name} overturns with {self.env.action_to_str(actions[0])[len('declare '):]}"
                     f": trump {self.trump_text(after)}")
        elif phase == tm.BURY:
            self.say(f"{name} buried 8 cards" + (
                f": {self.cards(after, self.part(before, after))}" if seat == self.me else ""))
        elif phase == tm.PLAY:
            self.after_play(before, after, seat, actions)
        if int(after.phase) == tm.BURY and phase != tm.BURY:
            burier = int(after.burier)
            if phase == tm.DECLARE:
                who = (f" (declared by {self.name(int(after.decl_seat))})"
                       if int(after.decl_seat) >= 0 else " (nobody declared)")
                self.say(f"\ndealing done: trump {self.trump_text(after)}{who}; "
                         f"{self.team_text(after)}")
                if burier != self.me:  # (the burier sees it with the kitty)
                    self.say(f"your hand: {self.hand_text(after, before._hands[self.me])}")
            taken = np.asarray(after._hands[burier]) - np.asarray(before._hands[burier])
            self.say(f"{self.name(burier)} takes the kitty"
                     + (f": {self.cards(after, taken)}" if burier == self.me else ""))
        if int(after.phase) == tm.PLAY and phase != tm.PLAY:
            self.say(f"\ntricks: trump {self.trump_text(after)}; {self.team_text(after)}; "
                     f"{self.name(int(after.leader))} leads")

    def after_play(self, before, after, seat, actions):
        played = np.asarray(after.played[seat]) - np.asarray(before.played[seat])
        meant = np.bincount([a for a in actions if a < tm.NUM_TYPES], minlength=tm.NUM_TYPES)
        failed = not np.array_equal(played, meant)
        trick_over = int(after.trick_no) > int(before.trick_no)
        if failed:
            self.say(f"{self.name(seat)} throws {self.cards(after, meant)}: the throw fails, "
                     f"{self.cards(after, played)} is played")
        elif seat != self.me and not trick_over:
            self.say(f"  {self.name(seat)}: {self.cards(after, played)}")
        if trick_over:
            lead = int(after.last_leader)
            plays = "  |  ".join(f"{SEAT_NAMES[s]} {self.cards(after, after.last_trick[s])}"
                                 for s in ((lead + i) % 4 for i in range(4)))
            points = (int(after.attacker_points) + int(after.defender_points)
                      - int(before.attacker_points) - int(before.defender_points))
            self.say(f"trick {int(after.trick_no):2d}: {plays}  -> "
                     f"{SEAT_NAMES[int(after.last_winner)]} takes it ({points} points); "
                     f"attackers {int(after.attacker_points)} (you {self.side(after)})")

    def result(self, state):
        rewards = [float(r) for r in np.asarray(state.rewards)]
        gain = [int(g) for g in np.asarray(state.level_gain)]
        mine = self.me % 2
        side = self.side(state) + "ers"  # attackers, defenders
        self.say(f"\nkitty: {self.cards(state, state._kitty)} ({int(state.kitty_points)} points, "
                 f"bonus to the attackers {int(state.kitty_bonus)})")
        self.say(f"attackers: {int(state.attacker_points)} points in tricks, kitty bonus "
                 f"{int(state.kitty_bonus)}, throw penalties {int(state.penalty)}")
        self.say(f"levels: your team ({side}) +{gain[mine]}, theirs +{gain[1 - mine]}")
        self.say("rewards: " + "  ".join(f"{SEAT_NAMES[s]} {r:+g}" for s, r in enumerate(rewards)))
        return {"rewards": rewards, "level_gain": gain, "tricks": int(state.trick_no),
                "attacker_points": int(state.attacker_points)}


TABLES = {"gongzhu": GongzhuTable, "doudizhu": DouDizhuTable, "mini_doudizhu": MiniTable,
          "tractor": TractorTable}


# ---------------------------------------------------------------------------- the game
_STEPS: dict = {}


def compiled_step(env) -> Callable:
    """``jax.jit(env.step)``, one per game and option set in this process (Tractor's takes
    seconds to compile: several games in one process compile it once)."""
    key = repr(env)
    if key not in _STEPS:
        _STEPS[key] = jax.jit(env.step)
    return _STEPS[key]


def play(args, input_fn: Callable = input, print_fn: Callable = print) -> dict | None:
    """Play one game; returns its result (``rewards`` for every game; Gongzhu adds the pile
    ``scores`` and the team ``margin``), or None if the person quit."""
    try:
        env = cardjax.make(args.game)
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    me, n = args.seat, env.num_players
    if not 0 <= me < n:
        raise SystemExit(f"error: --seat must be 0-{n - 1} in {args.game} ({n} seats), got {me}")
    partner = args.partner or STRONGEST[args.game]
    opponents = args.opponents or STRONGEST[args.game]
    key = jax.random.PRNGKey(args.seed)
    key, deal = jax.random.split(key)
    state = env.init(deal)
    table = TABLES[args.game](env, me, input_fn, print_fn, compiled_step(env))
    seats = table.seating(state, partner, opponents)
    try:
        loaded = {spec: agents.load(env, spec) for spec in sorted(set(seats.values()))}
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    baseline = set(agents.baselines(env.name))
    acts = {spec: jax.jit(a.act) for spec, a in loaded.items()}

    # compile once, before the first move, so that the game itself does not stall
    print_fn("preparing the table (compiling, one time)…")
    t0 = time.perf_counter()
    first = int(np.flatnonzero(np.asarray(state.legal_action_mask))[0])
    jax.block_until_ready(table.step(state, first))
    for spec, act in acts.items():
        jax.block_until_ready(act(loaded[spec].params, key, state))
    print_fn(f"ready ({time.perf_counter() - t0:.1f} s)")

    table.intro(state, seats)
    try:
        while not bool(state.terminated):
            seat, before = int(state.current_player), state
            todo = table.person_move(state) if seat == me else None
            if todo is None and seats[seat] not in baseline \
                    and np.asarray(state.legal_action_mask).sum() > 1:
                print_fn(f"{table.names[seat]} is thinking…")
            done = []
            while True:
                if todo is not None:
                    a = todo[len(done)]
                else:
                    agent = loaded[seats[seat]]
                    key, sub = jax.random.split(key)
                    a = int(acts[seats[seat]](agent.params, sub, state))
                state = table.step(state, a)
                done.append(a)
                if table.move_done(before, state) or (todo is not None and len(done) == len(todo)):
                    break
            table.after_move(before, state, seat, done)
    except Quit:
        print_fn("game abandoned")
        return None
    return table.result(state)


def main(argv=None) -> None:
    play(parse_args(argv))  # a finished or abandoned game alike ends with status 0


if __name__ == "__main__":
    run_command(main)
