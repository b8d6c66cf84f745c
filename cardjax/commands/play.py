"""Play a card game in the terminal against agents: Gongzhu, Dou Dizhu, Mini Dou Di Zhu, Tractor.

    cardjax play                          # Gongzhu: you at seat 0, Mr Greed elsewhere
    cardjax play --partner if --opponents runs/scrofazero --seed 7
    cardjax play --game doudizhu --seat 1 # a peasant; the rule player elsewhere
    cardjax play --game mini_doudizhu
    cardjax play --game tractor --seed 3  # Tractor against the rule player

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
* Tractor: the whole move's cards (``SA SA SK SK``, ``A♠ A♠ K♠ K♠``, ``XJ`` small joker,
  ``DJ`` big joker; ``SJ`` too is the small joker: type ``JS`` or ``J♠`` for a jack); a lead
  ends with the typed cards.  A follow typed short is kept and the rest asked for at ``more>``;
  end a lead line with ``+`` to go on typing it at ``more>`` (``done`` ends it there); ``back`` at
  ``more>`` starts the move again.  Burial: the 8 cards at once, or some now and the rest at
  ``more>``.
  While the cards are dealt you are asked ``declare?`` only when you can declare something new
  (``pass``, ``declare S``, ``declare S pair``, ``declare XJ``, ``declare DJ``), and ``overturn?``
  after the burial only when you hold a pair that overturns the trump.
"""

from __future__ import annotations

import argparse
import time
from typing import Callable

import numpy as np

import cardjax
from cardjax.games.doudizhu import table as doudizhu_table
from cardjax.games.gongzhu import table as gongzhu_table
from cardjax.games.mini_doudizhu import table as mini_table
from cardjax.games.tractor import cards as tc
from cardjax.games.tractor import moves as tm
from cardjax.games.tractor import table as tractor_table
from cardjax.games.tractor.table import DONE, decl_text
from cardjax.play import Game, default_opponent
from cardjax.play.players import is_baseline, load_player
from cardjax.table import IllegalMove, compiled_step
from cardjax.table.text import listing, show, show_hand

QUIT = ("quit", "exit", "q")
HELP = ("?", "help", "")


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


def refused(e: IllegalMove) -> str:
    """A refused move's reason, with the legal moves where the table lists them."""
    return str(e) + (f"; legal: {listing(e.legal)}" if e.legal else "")


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


# ---------------------------------------------------------------------------- the tables
class Terminal:
    """The terminal side of a table (:mod:`cardjax.table`): the person's prompts.  The game's
    words and rules come from the table class it is mixed with."""

    def __init__(self, env, me: int, input_fn: Callable, print_fn: Callable, step: Callable):
        super().__init__(env, me, step)
        self.ask, self.say = input_fn, print_fn

    def tell(self, lines) -> None:
        for line in lines:
            self.say(line)

    def person_move(self, state) -> list[int]:
        raise NotImplementedError


class GongzhuTable(Terminal, gongzhu_table.GongzhuTable):
    """Gongzhu: a card a move, typed as people write it (``Q♠``, ``QS``, ``10h``)."""

    def person_move(self, state):
        self.say(f"\ntable: {self.table_text(state) or '(you lead)'}")
        self.say(f"hand:  {show_hand(self.hand(state, self.me))}")
        while True:
            text = read(self.ask, "your card> ")
            if text.lower() in HELP:
                self.say("legal: " + " ".join(show(c) for c in self.legal_cards(state)))
                continue
            try:
                return self.from_text(state, text)
            except IllegalMove as e:
                self.say(refused(e))


class DouDizhuTable(Terminal, doudizhu_table.DouDizhuTable):
    """Dou Dizhu (default env: no bidding, seat 0 is the landlord): one move string a turn."""

    def person_move(self, state):
        legal = self.legal(state)
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
                return self.from_text(state, text)
            except IllegalMove as e:
                self.say(refused(e))


class MiniTable(DouDizhuTable, mini_table.MiniTable):
    """Mini Dou Di Zhu: two seats, one move string a turn; seat 0 leads."""


class TractorTable(Terminal, tractor_table.TractorTable):
    """Tractor: the person types the whole move (checked card by card against the legal mask
    on copies of the state, so a refused move leaves the game as it was), or a lead or burial
    in parts at ``more>``.  Declarations and overturns are asked only when the person has one
    to make; otherwise they pass."""

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
        auto = self.auto_move(state)
        if auto:
            return auto[0]
        verb = "declare" if phase == tm.DECLARE else "overturn with"
        choices = [decl_text(a) for a in sorted(self.declarations(state))]
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
                return self.from_text(state, text)[0]
            except IllegalMove as e:
                self.say(str(e) + (f"; legal: {', '.join(e.legal)}" if e.legal else ""))

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
                if self.legal(sim)[DONE]:
                    return acts + [DONE]
                self.say("the lead cannot end here: " + self.legal_text(sim))
            if int(state.phase) == tm.BURY:
                left = 8 - int(sim.buried)
            else:
                left = int(sim.lead_n) - int(np.sum(sim.trick[self.me])) if not leading else 0
            self.say(f"so far: {self.cards(state, self.part(state, sim))}"
                     + (f"; {left} more card{'s' if left > 1 else ''}" if left else
                        "; more cards, or done"))


TABLES = {"gongzhu": GongzhuTable, "doudizhu": DouDizhuTable, "mini_doudizhu": MiniTable,
          "tractor": TractorTable}


# ---------------------------------------------------------------------------- the game
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
    partner = args.partner or default_opponent(args.game)
    opponents = args.opponents or default_opponent(args.game)
    tab = TABLES[args.game](env, me, input_fn, print_fn, compiled_step(env))
    game = Game(env, tab, {}, args.seed)
    seats = tab.seating(game.state, partner, opponents)
    try:
        game.players.update({s: load_player(env, spec) for s, spec in seats.items()})
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None

    # compile once, before the first move, so that the game itself does not stall
    print_fn("preparing the table (compiling, one time)…")
    t0 = time.perf_counter()
    game.prepare()
    print_fn(f"ready ({time.perf_counter() - t0:.1f} s)")

    tab.tell(tab.intro(game.state, seats))
    try:
        while not game.over:
            seat = game.turn
            if seat == me:
                move = game.person_move(tab.person_move(game.state))
            else:
                if not is_baseline(env, seats[seat]) and tab.legal(game.state).sum() > 1:
                    print_fn(f"{tab.names[seat]} is thinking…")
                move = game.agent_move()
            tab.tell(game.commit(move).lines)
    except Quit:
        print_fn("game abandoned")
        return None
    summary = tab.summary(game.state)
    tab.tell(["\n" + summary[0]] + summary[1:])
    return tab.result(game.state)


def main(argv=None) -> None:
    play(parse_args(argv))  # a finished or abandoned game alike ends with status 0
