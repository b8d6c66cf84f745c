"""Mini Dou Di Zhu at a table: Dou Dizhu's table (:mod:`cardjax.games.doudizhu.table`) with two
seats, no landlord and no auction; one move string a turn."""

from __future__ import annotations

import numpy as np

from cardjax.games.doudizhu.table import DouDizhuTable
from cardjax.games.mini_doudizhu import env as mini_doudizhu
from cardjax.table.text import grouped


class MiniTable(DouDizhuTable):
    """Mini Dou Di Zhu: two seats, one move string a turn; seat 0 leads."""

    game = "mini_doudizhu"
    title = "Mini Dou Di Zhu"
    kinds = "1 to 4 cards of one rank, or one joker"
    mini = mini_doudizhu
    ranks = mini_doudizhu.RANK_CHARS
    pass_action = mini_doudizhu.PASS

    def landlord(self, state) -> int:
        return int(state.leader)  # no landlord: the first player stands in for it in the display

    def bidding(self, state) -> bool:
        return False

    def seating(self, state, partner, opponents):
        return {1 - self.me: opponents}

    def role(self, seat, state) -> str:
        return "first player" if seat == int(state.leader) else "second player"

    def intro(self, state, seats):
        return [f"You are {self.names[self.me]} (seat {self.me}), the {self.role(self.me, state)};"
                f" {self.names[1 - self.me]} plays {seats[1 - self.me]}; {self.status(state)}."]

    def hand_counts(self, state, seat):
        return np.asarray(state._hands[seat])

    def hand_text(self, state):
        return grouped(self.mini.hand_str(self.hand_counts(state, self.me)))

    def move_text(self, action):
        return self.mini.action_str(action)

    def parse(self, text):
        return self.mini.parse_action(text.replace(" ", ""))

    def move_counts(self, action):
        counts = np.zeros(len(self.ranks), np.int32)
        if action != self.mini.PASS:
            counts[self.mini.ACTION_RANK[action]] = self.mini.ACTION_COUNT[action]
        return counts

    def typed_counts(self, text):
        try:
            return np.asarray(self.mini.parse_hand(text.replace(" ", "")), np.int32)
        except ValueError:
            return None

    def action_of_counts(self, counts):
        return self.mini.parse_action(self.mini.hand_str(counts))

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
        return set(self.mini.legal_moves(self.hand_counts(state, int(state.current_player))))

    def result(self, state):
        rewards = [float(r) for r in np.asarray(state.rewards)]
        return {"rewards": rewards, "winner": int(state.winner)}

    def summary(self, state):
        r = self.result(state)
        return [f"{self.name(r['winner'])} wins; rewards: "
                + "  ".join(f"{self.names[s]} {x:+g}" for s, x in enumerate(r["rewards"]))]

    def seat_view(self, s, seat, moves, show_hand):
        view = super().seat_view(s, seat, moves, show_hand)
        over = bool(s.terminated)
        view["badges"] = ["leads"] if not over and seat == self.round_leader(s, moves) else []
        return view

    def round_leader(self, s, moves) -> int:
        """The seat that led the current round: the seat to play when it leads, else the seat
        of the first move since the last pass (a pass hands the lead to the other seat)."""
        if int(s.to_beat) < 0:
            return int(s.current_player)
        seat = int(s.leader)
        for m in reversed(moves):
            if m.actions[0] == self.pass_action:
                break
            seat = m.seat
        return seat

    def centre(self, s, reveal):
        return None

    def info(self, s):
        return [["Cards left", ", ".join(f"{self.names[i]} {n}"
                                         for i, n in enumerate(self.cards_left(s)))]]
