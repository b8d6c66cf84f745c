"""The toy game at a people's table: one card a move, written as its number ("5"); the card
ids of the web view are the card numbers (the env's actions)."""

from __future__ import annotations

import numpy as np

from cardjax.table.base import IllegalMove, Table, face
from toygame import env as toy


def card_face(card: int) -> dict:
    return face(int(card), str(int(card)))


class ToyTable(Table):
    """Toy: one card a move; the trick and the tricks won after every move."""

    game = "toy"

    def intro(self, state, seats):
        other = 1 - self.me
        return [f"You are {self.names[self.me]} (seat {self.me}); {self.names[other]} plays "
                f"{seats[other]}. Higher card takes the trick; win two of three."]

    # -- what the person sees
    def hand(self, state, seat) -> list[int]:
        return [int(c) for c in np.flatnonzero(np.asarray(state._hands[seat]))]

    def events(self, before, after, seat, actions):
        card = int(actions[0])
        if int(before.table) < 0:
            return [f"{self.name(seat)} leads {card}"]
        taker = int(after.current_player)  # the trick's winner leads next (or ended it)
        line = f"{self.name(seat)} plays {card}: {self.name(taker)} takes the trick"
        return [line] if self.brief else [line, self.score_line(after)]

    def score_line(self, state) -> str:
        tricks = np.asarray(state.tricks)
        return "tricks: " + ", ".join(f"{self.names[s]} {int(tricks[s])}" for s in range(2))

    def result(self, state):
        rewards = [float(r) for r in np.asarray(state.rewards)]
        return {"rewards": rewards, "tricks": [int(t) for t in np.asarray(state.tricks)],
                "winner": int(np.argmax(rewards))}

    def summary(self, state):
        r = self.result(state)
        return [f"{self.name(r['winner'])} wins, tricks "
                + " - ".join(str(t) for t in r["tricks"])]

    # -- the person's moves
    def from_text(self, state, text):
        try:
            card = int(text.strip())
        except ValueError:
            raise IllegalMove(f"a move is a card number 0..{toy.NUM_CARDS - 1}, got {text!r}") \
                from None
        return self.checked(state, card)

    def from_cards(self, state, chosen):
        if len(chosen) != 1:
            raise IllegalMove(f"play one card, not {len(chosen)}")
        return self.checked(state, int(chosen[0]))

    def checked(self, state, card: int) -> list[int]:
        legal = self.legal(state)
        if not 0 <= card < toy.NUM_CARDS:
            raise IllegalMove(f"no card has id {card}")
        if not legal[card]:
            raise IllegalMove(f"you do not hold {card}",
                              legal=[str(c) for c in np.flatnonzero(legal)])
        return [card]

    def preview(self, state, chosen):
        legal = [int(c) for c in np.flatnonzero(self.legal(state))]
        return {"playable": legal if not chosen else [],
                "ready": len(chosen) == 1 and int(chosen[0]) in legal}

    # -- the web view
    def seat_view(self, s, seat, moves, show_hand):
        held = self.hand(s, seat)
        leads = int(s.table) < 0 and int(s.current_player) == seat and not bool(s.terminated)
        if int(s.table) >= 0:  # a trick in progress: the leader's card
            on_table = [card_face(s.table)] if seat != int(s.current_player) else []
        else:  # the last finished trick
            on_table = [card_face(m.actions[0]) for m in moves[-2:] if m.seat == seat]
        return {"name": self.name(seat), "count": len(held),
                "hand": [card_face(c) for c in held] if show_hand else None,
                "table": on_table, "label": None, "badges": ["leads"] if leads else [],
                "note": f"{int(s.tricks[seat])} tricks"}

    def trick_note(self, s, moves):
        n = int(s.step_count)
        if n and n % 2 == 0:  # the seat to act after a trick (or at the end) took it
            return f"{self.names[int(s.current_player)]} takes trick {n // 2}"
        return None

    def info(self, s):
        tricks = np.asarray(s.tricks)
        return [["Trick", f"{min(int(s.step_count) // 2 + 1, 3)} of 3"]] + [
            [self.names[seat], f"{int(tricks[seat])} tricks"] for seat in range(2)]

    def person_view(self, state):
        lead = int(state.table)
        prompt = "Your lead: click a card" if lead < 0 else f"Beat {lead} if you can"
        return {"prompt": prompt,
                "playable": [int(c) for c in np.flatnonzero(self.legal(state))]}
