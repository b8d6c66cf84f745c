"""Tractor at a table: the deal with declarations, the burial, overturns and tricks.  A move of
several cards is built from the env's sub-actions (cards one at a time, then ``done`` for a
lead): the person's whole move is checked card by card against the legal mask on copies of the
state (states are immutable), so a refused move leaves the game as it was."""

from __future__ import annotations

import numpy as np

from cardjax.games.tractor import cards as tc
from cardjax.games.tractor import helpers as tractor_helpers
from cardjax.games.tractor import moves as tm
from cardjax.games.tractor.table_web import (DECL_DJ, DECL_PAIR, DECL_SINGLE, DECL_XJ, DONE,
                                              PASS, TractorWebView, decl_text)
from cardjax.table.base import SEAT_NAMES, IllegalMove, Table
from cardjax.table.text import listing

_DECL_WORDS = {"S": 0, "H": 1, "D": 2, "C": 3, "♠": 0, "♥": 1, "♦": 2, "♣": 3}


def card_word(t: int) -> str:
    """A card as a reason names it: ``10♠``, ``small joker``, ``big joker`` (not the typed
    ``T♠``, ``XJ``, ``DJ``)."""
    t = int(t)
    if t >= 52:
        return ("small joker", "big joker")[t - 52]
    return tm.RANKS[t % 13].replace("T", "10") + tm.SUIT_SYMBOLS[t // 13]


def decl_label(action: int, overturn: bool = False) -> str:
    """A declaration as a button says it: ``Declare ♠``, ``Overturn with ♥ pair``, ..."""
    a = int(action)
    if a == PASS:
        return "Pass"
    if a in (DECL_XJ, DECL_DJ):
        what = "small jokers (no trump)" if a == DECL_XJ else "big jokers (no trump)"
    else:
        pair = a >= DECL_PAIR
        what = tm.SUIT_SYMBOLS[a - (DECL_PAIR if pair else DECL_SINGLE)] + (" pair" if pair else "")
    return ("Overturn with " if overturn else "Declare ") + what


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




class TractorTable(TractorWebView, Table):
    """Tractor.  A move is several of the env's sub-actions (cards, then DONE for a lead; one
    card a sub-action in the burial).  Declarations and overturns are asked only when the
    person has one to make (:meth:`auto_move` passes otherwise).  The web view's methods are in
    :class:`~cardjax.games.tractor.table_web.TractorWebView`."""

    game = "tractor"
    multi = True

    def __init__(self, env, me, step=None, brief=False):
        super().__init__(env, me, step, brief)
        self.asked, self.asked_turn = frozenset(), -1  # the declarations the person last saw

    def intro(self, state, seats):
        me = self.me
        return [f"You are {SEAT_NAMES[me]} (seat {me}); partner {SEAT_NAMES[(me + 2) % 4]} "
                f"({seats[(me + 2) % 4]}); opponents {seats[(me + 1) % 4]}.",
                f"level {tm.RANKS[int(state.level)]}; {self.team_text(state)}. The cards are "
                "dealt one at a time: you are asked to declare when you can."]

    # -- what the person sees
    def team_text(self, state) -> str:
        dealer = int(state.dealer)
        if dealer < 0:
            return "the first declarer deals"
        if self.me is None:
            return (f"dealer {self.name(dealer)}: {SEAT_NAMES[dealer]} and "
                    f"{SEAT_NAMES[(dealer + 2) % 4]} defend")
        return f"dealer {self.name(dealer)}: you {self.side(state)}" + (
            " (the dealer's side)" if self.side(state) == "defend" else "")

    def side(self, state, seat: int | None = None) -> str:
        seat = self.me if seat is None else seat
        return "attack" if seat % 2 != int(state.dealer) % 2 else "defend"

    def trump_text(self, state) -> str:
        tr = int(state.trump)
        return "no trump" if tr == tm.NT else tm.SUIT_SYMBOLS[tr]

    def in_order(self, state, counts) -> list[int]:
        """The card types of ``counts``, once per card, by effective suit (trumps last), high
        cards first."""
        lv, tr = int(state.level), int(state.trump)
        eff, order = tm.EFF[lv, tr, :tm.NUM_TYPES], tm.ORD[lv, tr, :tm.NUM_TYPES]
        return sorted((t for t in range(tm.NUM_TYPES) for _ in range(int(counts[t]))),
                      key=lambda t: (eff[t], -order[t]))

    def cards(self, state, counts) -> str:
        """Card strings of ``counts`` by effective suit (trumps last), high cards first: as a
        page draws them (``10♠``, ``small joker``), or for the terminal as they are typed."""
        name = card_word if self.brief else tc.type_str
        return " ".join(name(t) for t in self.in_order(state, counts))

    def words(self, state, counts) -> str:
        """Cards of ``counts`` as a reason names them (``10♠ small joker``), in hand order."""
        return " ".join(card_word(t) for t in self.in_order(state, counts))

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

    def declarations(self, state) -> frozenset:
        """The declarations (or overturns) the seat to act may make."""
        return frozenset(int(a) for a in np.flatnonzero(self.legal(state)) if a >= DECL_SINGLE)

    def auto_move(self, state):
        phase = int(state.phase)
        if phase not in (tm.DECLARE, tm.CHAODI):
            return None
        options = self.declarations(state)
        if phase == tm.CHAODI:
            return None if options else [PASS]
        turn = int(state.turn)
        if not options or (options == self.asked and turn != self.asked_turn):
            return [PASS]  # nothing new to declare: do not ask at every card dealt
        self.asked, self.asked_turn = options, turn
        return None

    # -- a move of several cards
    def legal_text(self, sim) -> str:
        """The legal next cards (and ``done`` when a lead may end); for a follow, the whole
        moves too when there are few."""
        mask = self.legal(sim)
        items = [tc.type_str(t) for t in np.flatnonzero(mask[:tm.NUM_TYPES])]
        text = "legal: " + listing(items + (["done"] if mask[DONE] else []))
        whole = self.follows(sim) if int(sim.phase) == tm.PLAY else None
        if whole and len(whole) > 1 and int(sim.lead_n) > 1:
            text += "\nwhole moves: " + listing(whole, sep="  |  ", limit=12)
        return text

    def follow_counts(self, sim, budget: int = 150):
        """The legal completions (count vectors) of the follow being built in ``sim``, or None
        when leading or past ``budget`` mask evaluations."""
        if int(sim.num_in_trick) == 0:
            return None
        return tractor_helpers.follow_completions(sim, budget)

    def follows(self, sim, budget: int = 150):
        """The legal completions of the follow being built in ``sim`` as card strings, or None
        when leading or past ``budget`` mask evaluations
        (:func:`~cardjax.games.tractor.helpers.follow_completions`)."""
        found = self.follow_counts(sim, budget)
        return None if found is None else [self.cards(sim, c) for c in found]

    def part(self, state, sim) -> np.ndarray:
        """The cards of the move being built in ``sim`` since ``state`` (the terminal's "so
        far")."""
        if int(state.phase) == tm.BURY:
            return np.asarray(state._hands[self.me]) - np.asarray(sim._hands[self.me])
        return np.asarray(sim.trick[self.me]) - np.asarray(state.trick[self.me])

    def feed(self, state, types, hint: bool = True):
        """Step a copy of ``state`` through the cards ``types``, each checked against the legal
        mask first: (the state after them, the order used, None), or (``state`` itself, None,
        a message naming the first card that is not allowed; with ``hint``, the legal cards
        after it)."""
        sim = state
        for i, t in enumerate(types):
            if self.move_done(state, sim):  # (the trick may be over: name the cards given)
                return state, None, ("too many cards: the move is complete with "
                                     + " ".join(card_word(x) for x in types[:i]))
            if not self.legal(sim)[t]:
                found = self.reorder(state, types)
                if found is not None:  # the same cards in another order (units of a follow)
                    return found + (None,)
                why = self.refusal(state, sim, t, types)
                return state, None, why + (". " + self.legal_text(sim) if hint else "")
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
            mask = self.legal(sim)
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
        """Why the move ``types`` is not played: ``t``, its first card that ``sim`` (the move so
        far) refuses."""
        seat = int(state.current_player)
        in_play = int(sim.phase) == tm.PLAY
        so_far = np.asarray(sim.trick[seat]) if in_play else self.part_of(state, sim, seat)
        hand = np.asarray(sim._hands[seat]) - (so_far if in_play else 0)
        if hand[t] <= 0:
            why = f"you do not hold {'another ' if so_far[t] else ''}{card_word(t)}"
        else:
            after = self.words(state, so_far)
            why = f"{card_word(t)} is not allowed" + (f" after {after}" if after else "")
            reason = self.rule_broken(sim, hand, t)
            if reason:
                why += f" ({reason})"
        chosen = " ".join(card_word(x) for x in types)
        return f"{chosen} is not played: {why}"

    def part_of(self, state, sim, seat) -> np.ndarray:
        return np.asarray(state._hands[seat]) - np.asarray(sim._hands[seat])

    def rule_broken(self, sim, hand, t) -> str | None:
        """The rule a card ``t`` of the move breaks, where it is a simple one: the suit to
        follow, or one suit for a lead; else None."""
        if int(sim.phase) != tm.PLAY:
            return None
        eff = tm.EFF[int(sim.level), int(sim.trump), :tm.NUM_TYPES]
        suit_name = lambda e: "trumps" if e == tm.TRUMP else tm.SUIT_SYMBOLS[e]  # noqa: E731
        seat = int(sim.current_player)
        if int(sim.num_in_trick) > 0:
            led = int(sim.lead_suit)
            if eff[t] != led and (hand[eff == led] > 0).any():
                return f"you must follow {suit_name(led)}"
            return None
        chosen = np.flatnonzero(np.asarray(sim.trick[seat]))
        if len(chosen) and eff[t] != eff[chosen[0]]:
            return f"a lead is of one suit: {suit_name(eff[chosen[0]])}"
        return None

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

    def events(self, before, after, seat, actions):
        lines = []
        phase, name = int(before.phase), self.name(seat)
        if phase == tm.DECLARE and actions[0] != PASS:
            lines.append(f"{name}: {decl_label(actions[0]).lower()}")  # "declare ♥ pair"
        elif phase == tm.CHAODI and actions[0] != PASS:
            lines.append(f"{name}: {decl_label(actions[0], True).lower()}"
                         f": trump {self.trump_text(after)}")
        elif phase == tm.BURY:
            lines.append(f"{name} buried 8 cards" + (
                f": {self.cards(after, self.part_of(before, after, seat))}"
                if seat == self.me else ""))
        elif phase == tm.PLAY:
            lines += self.play_events(before, after, seat, actions)
        if int(after.phase) == tm.BURY and phase != tm.BURY:
            burier = int(after.burier)
            if phase == tm.DECLARE:
                who = (f" (declared by {self.name(int(after.decl_seat))})"
                       if int(after.decl_seat) >= 0 else " (nobody declared)")
                lines.append(f"\ndealing done: trump {self.trump_text(after)}{who}; "
                             f"{self.team_text(after)}")
                if self.me is not None and burier != self.me:  # (the burier sees the kitty)
                    lines.append(f"your hand: {self.hand_text(after, before._hands[self.me])}")
            taken = np.asarray(after._hands[burier]) - np.asarray(before._hands[burier])
            lines.append(f"{self.name(burier)} takes the kitty"
                         + (f": {self.cards(after, taken)}" if burier == self.me else ""))
        if int(after.phase) == tm.PLAY and phase != tm.PLAY:
            lines.append(f"\ntricks: trump {self.trump_text(after)}; {self.team_text(after)}; "
                         f"{self.name(int(after.leader))} leads")
        return lines

    def play_events(self, before, after, seat, actions) -> list[str]:
        lines = []
        played = np.asarray(after.played[seat]) - np.asarray(before.played[seat])
        meant = np.bincount([a for a in actions if a < tm.NUM_TYPES], minlength=tm.NUM_TYPES)
        failed = not np.array_equal(played, meant)
        trick_over = int(after.trick_no) > int(before.trick_no)
        if failed:
            lines.append(f"{self.name(seat)} throws {self.cards(after, meant)}: the throw fails, "
                         f"{self.cards(after, played)} is played")
        elif (seat != self.me or self.brief) and not trick_over:  # (the person typed theirs)
            lines.append(f"  {self.name(seat)}: {self.cards(after, played)}")
        if trick_over:
            lead = int(after.last_leader)
            plays = "  |  ".join(f"{SEAT_NAMES[s]} {self.cards(after, after.last_trick[s])}"
                                 for s in ((lead + i) % 4 for i in range(4)))
            points = self.trick_points(before, after)
            you = f" (you {self.side(after)})" if self.me is not None else ""
            score = "" if self.brief else f"; attackers {int(after.attacker_points)}{you}"
            lines.append(f"trick {int(after.trick_no):2d}: {plays}  -> "
                         f"{SEAT_NAMES[int(after.last_winner)]} takes it ({points} points)"
                         + score)
        return lines

    @staticmethod
    def trick_points(before, after) -> int:
        return (int(after.attacker_points) + int(after.defender_points)
                - int(before.attacker_points) - int(before.defender_points))

    def result(self, state):
        rewards = [float(r) for r in np.asarray(state.rewards)]
        gain = [int(g) for g in np.asarray(state.level_gain)]
        return {"rewards": rewards, "level_gain": gain, "tricks": int(state.trick_no),
                "attacker_points": int(state.attacker_points)}

    def summary(self, state):
        r = self.result(state)
        gain = r["level_gain"]
        if self.me is None:
            levels = f"levels: South and North +{gain[0]}, West and East +{gain[1]}"
        else:
            mine = self.me % 2
            levels = (f"levels: your team ({self.side(state)}ers) +{gain[mine]}, "
                      f"theirs +{gain[1 - mine]}")
        return [f"kitty: {self.cards(state, state._kitty)} ({int(state.kitty_points)} points, "
                f"bonus to the attackers {int(state.kitty_bonus)})",
                f"attackers: {int(state.attacker_points)} points in tricks, kitty bonus "
                f"{int(state.kitty_bonus)}, throw penalties {int(state.penalty)}",
                levels,
                "rewards: " + "  ".join(f"{SEAT_NAMES[s]} {x:+g}"
                                        for s, x in enumerate(r["rewards"]))]

    # -- the person's moves
    def from_text(self, state, text):
        phase = int(state.phase)
        if phase in (tm.DECLARE, tm.CHAODI):
            try:
                a = parse_decl(text)
            except ValueError as e:
                raise IllegalMove(str(e)) from None
            if not self.legal(state)[a]:
                said = decl_label(a, phase == tm.CHAODI).lower()
                raise IllegalMove(f"you cannot {said} now",
                                  legal=["pass"] + [decl_text(x)
                                                    for x in sorted(self.declarations(state))])
            return [a]
        words = text.replace(",", " ").split()
        done = bool(words) and words[-1].lower() == "done"
        try:
            types = [tc.card_type(w) for w in (words[:-1] if done else words)]
        except ValueError as e:
            raise IllegalMove(str(e)) from None
        return self.from_cards(state, types)

    def from_cards(self, state, chosen):
        phase = int(state.phase)
        if phase in (tm.DECLARE, tm.CHAODI):
            raise IllegalMove("choose a declaration or pass: the cards are not played yet")
        types = [int(t) for t in chosen]
        if any(not 0 <= t < tm.NUM_TYPES for t in types):
            raise IllegalMove(f"no card has id {max(types, key=lambda t: abs(t))}")
        if not types:
            raise IllegalMove("choose the cards to " + ("bury" if phase == tm.BURY else "play"))
        sim, order, why = self.feed(state, types, hint=False)
        if why:
            raise IllegalMove(why)
        if self.move_done(state, sim):
            return order
        n = len(types)
        if phase == tm.BURY:
            raise IllegalMove(f"bury 8 cards: you chose {n}")
        if int(state.num_in_trick) == 0:
            if self.legal(sim)[DONE]:
                return order + [DONE]
            more = [card_word(t) for t in np.flatnonzero(self.legal(sim)[:tm.NUM_TYPES])]
            raise IllegalMove("the lead cannot end here: add one of " + listing(more))
        raise IllegalMove(f"follow with {int(state.lead_n)} cards: you chose {n}")

    def preview(self, state, chosen):
        phase = int(state.phase)
        if phase not in (tm.BURY, tm.PLAY):
            return {"playable": [], "ready": False}
        sim, _, why = self.feed(state, [int(t) for t in chosen], hint=False)
        if why:
            return {"playable": [], "ready": False, "reason": why}
        if self.move_done(state, sim):
            return {"playable": [], "ready": True}
        mask = self.legal(sim)
        leading = phase == tm.PLAY and int(state.num_in_trick) == 0
        return {"playable": [int(t) for t in np.flatnonzero(mask[:tm.NUM_TYPES])],
                "ready": bool(chosen) and leading and bool(mask[DONE])}

    def choices(self, state):
        phase = int(state.phase)
        if phase not in (tm.DECLARE, tm.CHAODI):
            return []
        overturn = phase == tm.CHAODI
        return [{"label": decl_label(a, overturn), "text": decl_text(a), "enabled": True}
                for a in [PASS] + sorted(self.declarations(state))]
