"""The web table's view of a Tractor game (:class:`TractorWebView`, mixed into
:class:`~cardjax.games.tractor.table.TractorTable`): the cards as faces in display order, each
seat's hand, play and badges, the kitty in the centre, the info rows, and what the person is
asked to do."""

from __future__ import annotations

import numpy as np

from cardjax.games.tractor import moves as tm
from cardjax.table.base import SEAT_NAMES, face

DONE, PASS, DECL_SINGLE, DECL_PAIR, DECL_XJ, DECL_DJ = 54, 55, 56, 60, 64, 65  # tractor's actions


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


PHASES = {tm.DECLARE: "declare", tm.BURY: "bury", tm.CHAODI: "overturn", tm.PLAY: "play"}
DISPLAY_SUITS = (0, 1, 3, 2)  # ♠ ♥ ♣ ♦: the colours alternate in a hand
MAX_SUGGESTIONS = 24
FOLLOW_BUDGET = 150  # env steps spent looking for follows (about 1 ms each on a CPU)


def card_face(t: int, trump: bool = False) -> dict:
    """A card type as the web table draws it (``trump``: marked as a trump)."""
    t = int(t)
    if t >= 52:
        big = t == 53
        out = face(t, "JOKER", red=big, joker="big" if big else "small")
    else:
        suit = t // 13
        out = face(t, tm.RANKS[t % 13], tm.SUIT_SYMBOLS[suit], suit in (1, 2))
    if trump:
        out["trump"] = True
    return out


class TractorWebView:
    """The web view's methods of :class:`~cardjax.games.tractor.table.TractorTable` (a mixin: it
    uses the table's ``legal``, ``name``, ``side``, ``trump_text``, ``follow_counts`` and
    ``me``)."""

    def pause(self, state):
        return 0.1 if int(state.phase) == tm.DECLARE else 1.0  # a card dealt, then the next

    def eff(self, s) -> np.ndarray:
        return tm.EFF[int(s.level), int(s.trump), :tm.NUM_TYPES]

    def faces(self, s, counts) -> list[dict]:
        """The cards of ``counts``: trumps first, then ♠ ♥ ♣ ♦; high cards first."""
        lv, tr = int(s.level), int(s.trump)
        eff, order = self.eff(s), tm.ORD[lv, tr, :tm.NUM_TYPES]
        rank = {tm.TRUMP: -1, **{suit: DISPLAY_SUITS.index(suit) for suit in range(4)}}
        types = sorted((t for t in range(tm.NUM_TYPES) for _ in range(int(counts[t]))),
                       key=lambda t: (rank[int(eff[t])], -int(order[t]), t))
        return [card_face(t, eff[t] == tm.TRUMP) for t in types]

    def phase(self, s):
        return PHASES[int(s.phase)]

    def seat_view(self, s, seat, moves, show_hand):
        phase = int(s.phase)
        hand = np.asarray(s._hands[seat])
        table = []
        if phase == tm.PLAY or bool(s.terminated):
            if int(s.num_in_trick) or int(s.trick_no) == 0:
                table = self.faces(s, np.asarray(s.trick[seat]))
            else:  # the finished trick stays on the table until the next card
                table = self.faces(s, np.asarray(s.last_trick[seat]))
        label = None
        if int(s.decl_seat) == seat and phase in (tm.DECLARE, tm.BURY, tm.CHAODI):
            label = self.decl_words(s)
        if phase == tm.BURY and int(s.burier) == seat:
            label = "burying"
        dealer = int(s.dealer)
        badges = []
        if dealer >= 0:
            badges = (["dealer"] if seat == dealer else []) + [self.side(s, seat) + "ers"]
        return {"name": self.name(seat), "count": int(hand.sum()),
                "hand": self.faces(s, hand) if show_hand else None,
                "table": table, "label": label, "badges": badges, "note": None}

    def decl_words(self, s) -> str:
        kind, suit = int(s.decl_kind), int(s.decl_suit)
        if kind == 0:
            return ""
        if kind >= 3:
            return "declares " + ("small jokers" if kind == 3 else "big jokers")
        return f"declares {tm.SUIT_SYMBOLS[suit]}" + (" pair" if kind == 2 else "")

    def trick_note(self, s, moves):
        if int(s.phase) in (tm.PLAY, tm.OVER) and int(s.num_in_trick) == 0 and int(s.trick_no):
            points = int(tm.POINTS[:tm.NUM_TYPES] @ np.asarray(s.last_trick).sum(axis=0))
            winner = SEAT_NAMES[int(s.last_winner)]
            return f"{winner} takes trick {int(s.trick_no)} ({points} points)"
        return None

    def centre(self, s, reveal):
        phase = int(s.phase)
        if bool(s.terminated):
            return {"label": f"Kitty ({int(s.kitty_points)} points)",
                    "cards": self.faces(s, np.asarray(s._kitty))}
        if phase == tm.DECLARE:
            return {"label": "Kitty", "backs": 8}
        if phase == tm.BURY:
            return {"label": "Kitty", "backs": int(s.buried)} if int(s.buried) else None
        if reveal or int(s.burier) == self.me:
            return {"label": "Kitty", "cards": self.faces(s, np.asarray(s._kitty))}
        return {"label": "Kitty", "backs": 8}

    def info(self, s):
        dealer = int(s.dealer)
        rows = [["Level", tm.RANKS[int(s.level)].replace("T", "10")],
                ["Trump", self.trump_text(s) if int(s.decl_kind) or int(s.phase) > tm.DECLARE
                 else "not declared"],
                ["Dealer", SEAT_NAMES[dealer] if dealer >= 0 else "the first declarer"]]
        if int(s.phase) >= tm.PLAY:
            rows += [["Trick", str(int(s.trick_no) + (0 if bool(s.terminated) else 1))],
                     ["Attackers' points", str(int(s.attacker_points))]]
        if self.me is not None and dealer >= 0:
            rows.append(["You", self.side(s) + " (" + ("with" if self.side(s) == "defend"
                                                       else "against") + " the dealer)"])
        if bool(s.terminated):
            gain = [int(g) for g in np.asarray(s.level_gain)]
            rows.append(["Levels gained", f"South+North +{gain[0]}, West+East +{gain[1]}"])
        return rows

    def person_view(self, state):
        phase = int(state.phase)
        if phase == tm.DECLARE:
            return {"prompt": "You can declare trumps (or pass)", "multi": False,
                    "hint": {"text": self.declare_hint(state)}}
        if phase == tm.CHAODI:  # overturning means burying again: the Hint keeps the trump
            return {"prompt": f"You can overturn the trump ({self.trump_text(state)})",
                    "multi": False, "hint": {"text": "pass"}}
        playable = [int(t) for t in np.flatnonzero(self.legal(state)[:tm.NUM_TYPES])]
        if phase == tm.BURY:
            return {"prompt": "Bury 8 cards: choose them, then Bury", "submit": "Bury",
                    "playable": playable, "suggestions": [self.bury_suggestion(state)]}
        if int(state.num_in_trick) == 0:
            return {"prompt": "Your lead: choose cards of one suit (a single, pair, tractor or "
                              "a throw), then Play", "submit": "Play", "playable": playable,
                    "suggestions": self.lead_suggestions(state)}
        n = int(state.lead_n)
        return {"prompt": f"Follow with {n} card{'s' if n > 1 else ''}, then Play",
                "submit": "Play", "playable": playable,
                "suggestions": self.follow_suggestions(state)}

    # -- the Hint's moves: each the cards of a whole move in an order the env takes them
    def declare_hint(self, state) -> str:
        """The declaration of the suit the hand holds most of (a pair before a single), else
        pass."""
        hand = np.asarray(state._hands[int(state.current_player)])

        def worth(a):
            if a >= DECL_XJ:
                return (0, a)  # no trump: for a hand without a long suit
            suit = (a - DECL_SINGLE) % 4
            return (int(hand[13 * suit:13 * suit + 13].sum()), a >= DECL_PAIR)

        options = sorted(self.declarations(state), key=worth)
        return decl_text(options[-1]) if options else "pass"

    def bury_suggestion(self, state) -> list[int]:
        """8 cards to bury, chosen one at a time among those the env allows: plain cards
        before trumps, cards without points first, low cards first."""
        lv, tr = int(state.level), int(state.trump)
        eff, order = tm.EFF[lv, tr, :tm.NUM_TYPES], tm.ORD[lv, tr, :tm.NUM_TYPES]
        sim, chosen = state, []
        while not self.move_done(state, sim):
            legal = np.flatnonzero(self.legal(sim)[:tm.NUM_TYPES])
            t = int(min(legal, key=lambda t: (eff[t] == tm.TRUMP, tm.POINTS[t] > 0,
                                              order[t], t)))
            chosen.append(t)
            sim = self.step(sim, t)
        return chosen

    def lead_suggestions(self, state) -> list[list[int]]:
        """Leads that never fail as a throw: the hand's tractors (longest first), its pairs,
        then its singles, high cards first."""
        hand = np.asarray(state._hands[int(state.current_player)])
        lv, tr = int(state.level), int(state.trump)
        eff, order = tm.EFF[lv, tr, :tm.NUM_TYPES], tm.ORD[lv, tr, :tm.NUM_TYPES]
        legal = [int(t) for t in np.flatnonzero(self.legal(state)[:tm.NUM_TYPES])]
        high = sorted(legal, key=lambda t: (-order[t], t))
        pairs = [t for t in high if hand[t] >= 2]
        tractors = []
        for suit in sorted({int(eff[t]) for t in pairs}):
            by_order = {}  # one pair a place (off-suit level cards share theirs)
            for t in pairs:
                if eff[t] == suit:
                    by_order.setdefault(int(order[t]), t)
            run = []
            for o in sorted(by_order):
                run = run + [by_order[o]] if run and order[run[-1]] == o - 1 else [by_order[o]]
                if len(run) >= 2:
                    tractors.append(list(run))
        tractors.sort(key=lambda r: (-len(r), -order[r[-1]]))
        moves = [[t for t in reversed(r) for _ in (0, 1)] for r in tractors]
        moves += [[t, t] for t in pairs] + [[t] for t in high]
        return moves[:MAX_SUGGESTIONS]

    def follow_suggestions(self, state) -> list[list[int]]:
        """Whole follows, found by walking the env's own masks from ``state`` (low cards
        first), at least one; each in an order the env takes card by card."""
        seat = int(state.current_player)
        order = tm.ORD[int(state.level), int(state.trump), :tm.NUM_TYPES]
        found, seen, done = [], set(), set()
        steps = 0

        def walk(sim, seq):
            nonlocal steps
            if self.move_done(state, sim):
                if tuple(sorted(seq)) not in done:
                    done.add(tuple(sorted(seq)))
                    found.append(seq)
                return
            key = (np.asarray(sim.trick[seat]).tobytes(), np.asarray(sim.follow_base).tobytes())
            if key in seen:  # the same cards so far in another order
                return
            seen.add(key)
            legal = np.flatnonzero(self.legal(sim)[:tm.NUM_TYPES])
            for t in sorted(legal, key=lambda t: (order[t], t)):
                if len(found) >= MAX_SUGGESTIONS or (found and steps >= FOLLOW_BUDGET):
                    return
                steps += 1
                walk(self.step(sim, int(t)), seq + [int(t)])

        walk(state, [])
        return found
