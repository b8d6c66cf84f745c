"""Gongzhu at a table: one card a move (and, with the ``exposure`` option, the exposure phase);
a trick line and the running score after every trick."""

from __future__ import annotations

import numpy as np

from cardjax import cards
from cardjax.games.gongzhu import env as gz
from cardjax.table.base import SEAT_NAMES, IllegalMove, Table, deck_face
from cardjax.table.text import show

DISPLAY_SUITS = (0, 1, 3, 2)  # ♠ ♥ ♣ ♦: the colours alternate in a hand


def sort_hand(held) -> list[int]:
    """Card ids by suit (♠ ♥ ♣ ♦), high cards first."""
    return sorted(held, key=lambda c: (DISPLAY_SUITS.index(c // 13), -(c % 13)))


class GongzhuTable(Table):
    """Gongzhu: one card a move; a trick line and the running score after every trick."""

    game = "gongzhu"

    def intro(self, state, seats):
        me = self.me
        return [f"You are {SEAT_NAMES[me]} (seat {me}); partner {SEAT_NAMES[(me + 2) % 4]} "
                f"({seats[(me + 2) % 4]}); opponents {seats[(me + 1) % 4]}."]

    # -- what the person sees
    def hand(self, state, seat) -> np.ndarray:
        return np.asarray(self.env.hand(state, seat))

    def exposing(self, state) -> bool:
        return int(state.exposing) < 4

    def trick_cards(self, s) -> list[tuple[int, int]]:
        """(seat, card) of the current trick, in the order played."""
        lead, k = int(s.leader), int(s.num_played) % 4
        return [((lead + i) % 4, int(s.trick[(lead + i) % 4])) for i in range(k)]

    def last_trick(self, s) -> list[tuple[int, int]]:
        """(seat, card) of the last finished trick, in the order played."""
        n = int(s.num_played) // 4 * 4
        history, played_by = np.asarray(s.history), np.asarray(s.played_by)
        return [(int(played_by[c]), int(c)) for c in history[max(n - 4, 0):n]]

    def table_text(self, state) -> str:
        return " ".join(f"{SEAT_NAMES[seat]}:{show(c)}" for seat, c in self.trick_cards(state))

    def events(self, before, after, seat, actions):
        if self.exposing(before):
            a = actions[0]
            return [f"{self.name(seat)} exposes {show(a)}"] if a != gz.DONE_EXPOSING else []
        if int(after.num_played) % 4:
            return []
        trick = "  ".join(f"{SEAT_NAMES[s]}:{show(c)}" for s, c in self.last_trick(after))
        lines = [f"trick {int(after.num_played) // 4:2d}: {trick}  -> "
                 f"{SEAT_NAMES[int(after.leader)]} takes it"]
        return lines if self.brief else lines + ["          " + self.score_line(after)]

    def ours(self, seat) -> bool:
        me = 0 if self.me is None else self.me
        return seat in (me, (me + 2) % 4)

    def score_line(self, state) -> str:
        """Who took the pig, sheep and transformer, hearts and points per team (the game's pile
        scores, ``state.scores``)."""
        taken = np.asarray(state.taken_by)
        holder = lambda c: SEAT_NAMES[taken[c]] if taken[c] >= 0 else "-"  # noqa: E731
        hearts = [int(taken[c]) for c in gz.HEART_CARDS if taken[c] >= 0]
        mine, theirs = self.team_points(np.asarray(state.scores))
        return (f"pig {show(gz.SQ)} {holder(gz.SQ)}, sheep {show(gz.DJ)} {holder(gz.DJ)}, "
                f"transformer {show(gz.C10)} {holder(gz.C10)}; hearts: yours "
                f"{sum(map(self.ours, hearts))}, theirs {len(hearts) - sum(map(self.ours, hearts))}"
                f"; points: yours {mine:+.0f}, theirs {theirs:+.0f}")

    def team_points(self, scores):
        me = 0 if self.me is None else self.me
        return scores[me] + scores[(me + 2) % 4], scores[(me + 1) % 4] + scores[(me + 3) % 4]

    def result(self, state):
        scores = np.asarray(state.scores)
        mine, theirs = self.team_points(scores)
        return {"scores": scores.tolist(), "margin": float(mine - theirs),
                "rewards": [float(r) for r in np.asarray(state.rewards)]}

    def summary(self, state):
        scores = np.asarray(state.scores)
        mine, theirs = self.team_points(scores)
        side = "your team" if self.me is not None else "South and North"
        other = "theirs" if self.me is not None else "West and East"
        return ["  ".join(f"{SEAT_NAMES[s]} {scores[s]:+.0f}" for s in range(4)),
                f"{side} {mine:+.0f}, {other} {theirs:+.0f}: margin {mine - theirs:+.0f}"]

    # -- the person's moves
    def from_text(self, state, text):
        if self.exposing(state) and text.strip().lower() in ("done", "done exposing"):
            return self.checked(state, gz.DONE_EXPOSING)
        try:
            card = cards.card_index(text)
        except ValueError as e:
            raise IllegalMove(str(e)) from None
        return self.checked(state, card)

    def from_cards(self, state, chosen):
        if len(chosen) != 1:
            raise IllegalMove(f"play one card, not {len(chosen)}")
        card = int(chosen[0])
        if not 0 <= card < 52:
            raise IllegalMove(f"no card has id {card}")
        return self.checked(state, card)

    def checked(self, state, action: int) -> list[int]:
        legal = self.legal(state)
        if not legal[action]:
            raise IllegalMove(self.refusal(state, action),
                              legal=[show(c) for c in np.flatnonzero(legal[:52])])
        return [action]

    def refusal(self, state, card: int) -> str:
        """Why ``card`` is not legal for the seat to play."""
        if card == gz.DONE_EXPOSING:
            return "the exposure phase is over"
        seat = int(state.current_player)
        hand = self.hand(state, seat)
        if not hand[card]:
            return f"you do not hold {show(card)}"
        if self.exposing(state):
            return f"{show(card)} cannot be exposed: only Q♠, J♦, 10♣ and A♥ are, each once"
        k = int(state.num_played) % 4
        if k:
            led = int(state.trick[int(state.leader)]) // 13
            if card // 13 != led and hand[13 * led:13 * led + 13].any():
                return f"{show(card)} is not legal: you must follow {cards.SUIT_SYMBOLS[led]}"
        if bool(np.asarray(state.exposed)[card]):
            return (f"{show(card)} is exposed: it may not be played to the first trick of its "
                    "suit while you hold another card of that suit")
        return f"{show(card)} is not a legal move"

    def legal_cards(self, state) -> list[int]:
        return [int(c) for c in np.flatnonzero(self.legal(state)[:52])]

    def preview(self, state, chosen):
        legal = set(self.legal_cards(state))
        return {"playable": sorted(legal) if not chosen else [],
                "ready": len(chosen) == 1 and int(chosen[0]) in legal}

    def choices(self, state):
        if not self.exposing(state):
            return []
        return [{"label": "Done exposing", "text": "done", "enabled": True}]

    # -- the web view
    def phase(self, s):
        return "expose" if self.exposing(s) else "play"

    def seat_view(self, s, seat, moves, show_hand):
        held = self.hand(s, seat)
        taken = np.asarray(s.taken_by)
        won = [c for c in gz.SCORE_CARDS if taken[c] == seat]
        table = [deck_face(c) for t, c in self.trick_cards(s) if t == seat]
        if not table and int(s.num_played) % 4 == 0:
            table = [deck_face(c) for t, c in self.last_trick(s) if t == seat]
        exposed = [c for c in np.flatnonzero(np.asarray(s.exposed)) if held[c]]
        badges = ["leads"] if int(s.leader) == seat and not bool(s.terminated) else []
        return {"name": self.name(seat), "count": int(held.sum()),
                "hand": [deck_face(c) for c in sort_hand(np.flatnonzero(held))] if show_hand
                else None,
                "table": table, "label": None, "badges": badges,
                "note": f"{float(s.scores[seat]):+.0f}",
                "taken": [deck_face(c) for c in won],
                "exposed": [deck_face(c) for c in exposed]}

    def trick_note(self, s, moves):
        n = int(s.num_played)
        if n and n % 4 == 0:
            return f"{SEAT_NAMES[int(s.leader)]} takes trick {n // 4}"
        return None

    def info(self, s):
        mine, theirs = self.team_points(np.asarray(s.scores))
        taken = np.asarray(s.taken_by)
        holder = lambda c: SEAT_NAMES[taken[c]] if taken[c] >= 0 else "–"  # noqa: E731
        us = "You + partner" if self.me is not None else "South + North"
        them = "Opponents" if self.me is not None else "West + East"
        return [["Trick", f"{min(int(s.num_played) // 4 + 1, 13)} of 13"],
                [us, f"{mine:+.0f}"], [them, f"{theirs:+.0f}"],
                ["Pig Q♠", holder(gz.SQ)], ["Sheep J♦", holder(gz.DJ)],
                ["Transformer 10♣", holder(gz.C10)]]

    def person_view(self, state):
        legal = self.legal_cards(state)
        if self.exposing(state):
            return {"prompt": "Expose Q♠, J♦, 10♣ or A♥ if you like (click it), then Done",
                    "playable": legal, "suggestions": [[c] for c in legal],
                    "hint": {"text": "done"}}
        k = int(state.num_played) % 4
        if k == 0:
            prompt = "Your lead: click a card"
        else:
            led = int(state.trick[int(state.leader)]) // 13
            prompt = f"Your turn: follow {cards.SUIT_SYMBOLS[led]} if you can"
        return {"prompt": prompt, "playable": legal,
                "suggestions": [[c] for c in self.hint_order(state, legal)]}

    def hint_order(self, state, legal: list[int]) -> list[int]:
        """The legal cards, the Hint's first: following, the highest card that stays under the
        trick's best (else the lowest); discarding, the pig, then high hearts, then high cards;
        leading, a low card, hearts and the pig last."""
        rank = lambda c: c % 13  # noqa: E731
        low_first = sorted(legal, key=lambda c: (rank(c), c))
        trick = self.trick_cards(state)
        if not trick:
            risky = lambda c: (c == gz.SQ or c // 13 == 1, rank(c), c)  # noqa: E731
            return sorted(legal, key=risky)
        led = trick[0][1] // 13
        if legal[0] // 13 == led and all(c // 13 == led for c in legal):
            best = max(rank(c) for _, c in trick if c // 13 == led)
            under = [c for c in low_first if rank(c) < best]
            first = under[-1:] or low_first[:1]
            return first + [c for c in low_first if c not in first]
        dump = lambda c: (c != gz.SQ, c // 13 != 1, -rank(c), c)  # noqa: E731
        return sorted(legal, key=dump)
