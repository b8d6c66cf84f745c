"""Dou Dizhu at a table (with or without the auction): one move string a turn, the cards as rank
counts (suits do not matter).  Mini Dou Di Zhu's table extends it
(:mod:`cardjax.games.mini_doudizhu.table`)."""

from __future__ import annotations

import numpy as np

from cardjax.games.doudizhu import env as ddz
from cardjax.games.doudizhu import moves as doudizhu_moves
from cardjax.table.base import IllegalMove, Table, face, joined
from cardjax.table.text import grouped

MAX_SUGGESTIONS = 60
_RANK_NAMES = {"T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
_JOKER_NAMES = {"B": "small joker", "R": "big joker"}
_NUMBERS = {2: "two", 3: "three", 4: "four"}


def tens(ranks: str) -> str:
    """``T`` (how moves are typed) as ``10`` (how cards show it)."""
    return ranks.replace("T", "10")


def spoken(move: str) -> str:
    """A move as a page says it: ranks in groups, ``10`` for ``T``, the jokers by name."""
    if move in ("pass", "no bid") or move.startswith("bid "):
        return move
    jokers = _JOKER_NAMES
    groups = [" ".join(["10"] * len(g)) if g[0] == "T" else g
              for g in grouped("".join(c for c in move if c not in jokers)).split()
              if g != "(empty)"]
    named = [jokers[c] for c in move if c in jokers]
    return " ".join(groups + (["rocket"] if len(named) == 2 else named))


def rank_words(ranks: str, counts) -> str:
    """Cards of rank ``counts`` (over the rank characters ``ranks``) in words, high ranks first:
    ``the small joker and a 3``, ``two 10s, a jack and an ace``."""
    parts = []
    for r in range(len(ranks) - 1, -1, -1):
        n, c = int(counts[r]), ranks[r]
        if not n:
            continue
        if c in _JOKER_NAMES:
            parts.append("the " + _JOKER_NAMES[c])
            continue
        name = _RANK_NAMES.get(c, c)
        if n == 1:
            parts.append(("an " if name in ("ace", "8") else "a ") + name)
        else:
            parts.append(f"{_NUMBERS.get(n, n)} {name}s")
    if parts[:2] == ["the big joker", "the small joker"]:
        parts[:2] = ["the two jokers"]
    return joined(parts)


class DouDizhuTable(Table):
    """Dou Dizhu: one move a turn, typed as its ranks (``33344``, ``BR``, ``pass``) or chosen
    as cards; with the ``bidding`` option the auction comes first (``bid 2``, ``no bid``)."""

    game = "doudizhu"
    title = "Dou Dizhu"
    kinds = ("a single, a pair, a trio (alone or with a single or a pair), a straight of 5 or "
             "more, 3 or more pairs in a row, a plane, a bomb, four with two, or the rocket")
    multi = True
    moves = doudizhu_moves
    ranks = doudizhu_moves.RANKS
    pass_action = doudizhu_moves.PASS

    # -- seats and roles
    def landlord(self, state) -> int:
        return int(state.landlord)

    def bidding(self, state) -> bool:
        return bool(getattr(self.env, "bidding", False)) and bool(state.bidding)

    def seating(self, state, partner, opponents):
        lord = self.landlord(state)
        # the other peasant is the partner of a peasant; the landlord plays alone
        return {s: partner if lord not in (s, self.me) else opponents
                for s in range(self.env.num_players) if s != self.me}

    def role(self, seat, state) -> str:
        return "landlord" if seat == self.landlord(state) else "peasant"

    def intro(self, state, seats):
        me, lord = self.me, self.landlord(state)
        if self.bidding(state):
            return [f"You are {self.names[me]} (seat {me}); "
                    + ", ".join(f"{self.names[s]} ({spec})" for s, spec in sorted(seats.items()))
                    + f"; {self.names[int(state.current_player)]} bids first."]
        others = ", ".join(f"{self.names[s]} {self.role(s, state)} ({spec})"
                           for s, spec in sorted(seats.items()))
        article = "the" if me == lord else "a"
        lines = [f"You are {self.names[me]} (seat {me}), {article} {self.role(me, state)}; "
                 f"{others}."]
        if me == lord:
            lines.append("(you play alone: --partner is not used)")
        lines.append(f"the landlord's bottom cards: {self.bottom(state)}; {self.status(state)}")
        return lines

    def bottom(self, state) -> str:
        return grouped(self.moves.counts_to_str(np.asarray(state.bottom)))

    # -- the game's strings (Mini Dou Di Zhu overrides these)
    def hand_counts(self, state, seat) -> np.ndarray:
        return np.asarray(self.env.hand(state, seat))

    def hand_text(self, state) -> str:
        return grouped(self.moves.counts_to_str(self.hand_counts(state, self.me)))

    def move_text(self, action: int) -> str:
        a = int(action)
        if a >= ddz.NUM_MOVES:
            return "no bid" if a == ddz.BID_PASS else f"bid {a - ddz.BID_PASS}"
        return self.moves.action_string(a)

    def parse(self, text: str) -> int:
        return self.moves.action_index(text.upper().replace("10", "T"))

    def move_counts(self, action: int) -> np.ndarray:
        """The rank counts a card move plays."""
        return np.asarray(self.moves.COUNTS[action], np.int32)

    def action_of_counts(self, counts) -> int:
        return self.moves.action_index(self.moves.counts_to_str(np.asarray(counts, np.int32)))

    def cards_left(self, state) -> list[int]:
        return [int(n) for n in np.asarray(state.cards_left)]

    def to_beat(self, state) -> tuple[int, int]:
        return int(state.to_beat), int(state.to_beat_seat)

    def status(self, state) -> str:
        left = ", ".join(f"{self.names[s]} {n}" for s, n in enumerate(self.cards_left(state)))
        return f"cards left: {left}; bombs {int(state.bombs)}"

    def holdable(self, state) -> set:
        """The moves the person's hand holds (what a lead could play)."""
        return set(self.moves.legal_moves(self.hand_counts(state, int(state.current_player))))

    def card_moves(self, state) -> list[int]:
        """The legal card moves (not pass, not bids) of the seat to play."""
        legal = self.legal(state)
        return [int(a) for a in np.flatnonzero(legal[:self.pass_action])]

    # -- events and the end
    def events(self, before, after, seat, actions):
        a = actions[0]
        if self.bidding(before):
            lines = [f"{self.name(seat)}: {self.move_text(a)}"]
            if bool(after.terminated):
                lines.append("nobody bid: the deal is void")
            elif not bool(after.bidding):
                lord = self.landlord(after)
                bottom = (spoken(self.moves.counts_to_str(np.asarray(after.bottom))) if self.brief
                          else self.bottom(after))
                lines.append(f"{self.name(lord)} is the landlord at {int(after.bid)} and takes "
                             f"the bottom: {bottom}")
            return lines
        if self.brief:
            lines = [f"{self.name(seat)}: {spoken(self.move_text(a))}"]
        else:
            lines = [f"{self.name(seat) + ':':<13}{self.move_text(a):<14}{self.status(after)}"]
        if not bool(after.terminated) and self.to_beat(after)[0] < 0 \
                and self.to_beat(before)[0] >= 0:
            lines.append(f"-- {self.name(int(after.current_player))} leads")
        return lines

    def result(self, state):
        rewards = [float(r) for r in np.asarray(state.rewards)]
        lord = self.landlord(state)
        if lord < 0:
            return {"rewards": rewards, "landlord": lord, "winner": None}
        side = "landlord" if rewards[lord] > 0 else "peasants"
        return {"rewards": rewards, "landlord": lord, "winner": side}

    def summary(self, state):
        r = self.result(state)
        rewards = "  ".join(f"{self.names[s]} {x:+g}" for s, x in enumerate(r["rewards"]))
        you = f"; you {r['rewards'][self.me]:+g}" if self.me is not None else ""
        if r["winner"] is None:
            return ["nobody bid: the deal is void (no score)"]
        side = r["winner"]
        return [f"the {side} win{'s' if side == 'landlord' else ''}; rewards: {rewards}{you}"]

    # -- the person's moves
    def from_text(self, state, text):
        words = text.strip().lower().split()
        if self.bidding(state):
            if words in (["pass"], ["no", "bid"], ["0"], ["bid", "0"]):
                return self.checked(state, ddz.BID_PASS)
            if words[-1:] in (["1"], ["2"], ["3"]) and words[:-1] in ([], ["bid"]):
                return self.checked(state, ddz.BID_PASS + int(words[-1]))
            raise IllegalMove(f"the auction is on: bid 1, 2 or 3 above the bid "
                              f"({int(state.bid)}), or no bid; got {text!r}")
        if words and words[0] == "bid" or words == ["no", "bid"]:
            raise IllegalMove("the auction is over: play cards or pass")
        try:
            a = self.parse(text)
        except ValueError as e:
            counts = self.typed_counts(text)
            if counts is None:  # not cards at all: the parser's words
                raise IllegalMove(str(e)) from None
            raise IllegalMove(self.not_a_move(counts)) from None
        return self.checked(state, a)

    def typed_counts(self, text: str) -> np.ndarray | None:
        """The rank counts of typed cards (``33 4``, ``10 10``), or None when they are not
        cards."""
        try:
            return np.asarray(self.moves.hand_counts(
                text.upper().replace("10", "T").replace(" ", "")), np.int32)
        except ValueError:
            return None

    def from_cards(self, state, chosen):
        if self.bidding(state):
            raise IllegalMove("the auction is on: bid or pass before the cards are played")
        if not chosen:
            raise IllegalMove("choose the cards of your move, or pass")
        counts = np.zeros(len(self.ranks), np.int32)
        for r in chosen:
            if not 0 <= int(r) < len(self.ranks):
                raise IllegalMove(f"no card has id {r}")
            counts[int(r)] += 1
        why = self.refusal(state, counts)
        if why:
            raise IllegalMove(why)
        return [self.action_of_counts(counts)]

    def refusal(self, state, counts) -> str | None:
        """Why the cards of rank ``counts`` are not a move now, in card words (the page's
        preview and a refused move say the same); None when they are a legal move."""
        held = self.hand_counts(state, int(state.current_player))
        if (counts > held).any():
            short = "".join(self.ranks[r] * int(counts[r] - held[r])
                            for r in np.flatnonzero(counts > held))
            plain = "".join(c for c in short if c not in _JOKER_NAMES)
            jokers = ["the " + _JOKER_NAMES[c] for c in short if c in _JOKER_NAMES]
            return f"you do not hold {joined(([spoken(plain)] if plain else []) + jokers)}"
        try:
            a = self.action_of_counts(counts)
        except ValueError:  # no move of the game is made of these cards
            return self.not_a_move(counts)
        try:
            self.checked(state, a)
        except IllegalMove as e:
            return str(e)
        return None

    def not_a_move(self, counts) -> str:
        """The reason cards of rank ``counts`` that make no move of the game are refused."""
        be = "is" if counts.sum() == 1 else "are"
        return f"{rank_words(self.ranks, counts)} {be} not a {self.title} move: a move is " \
               f"{self.kinds}"

    def checked(self, state, a: int) -> list[int]:
        legal = self.legal(state)
        if legal[a]:
            return [a]
        if a >= ddz.NUM_MOVES:
            bid = int(state.bid)
            raise IllegalMove(f"{self.move_text(a)} is not allowed: the bid is {bid}; bid higher "
                              "or pass")
        move = self.move_text(a)
        if move == "pass":
            raise IllegalMove("you lead: you cannot pass")
        if move not in self.holdable(state):
            raise IllegalMove(f"you do not hold {spoken(move)}")
        beat = self.move_text(self.to_beat(state)[0])
        raise IllegalMove(f"{spoken(move)} does not beat {spoken(beat)}",
                          legal=[self.move_text(x) for x in np.flatnonzero(legal)])

    def preview(self, state, chosen):
        if self.bidding(state):
            return {"playable": [], "ready": False}
        if any(not 0 <= int(r) < len(self.ranks) for r in chosen):
            return {"playable": [], "ready": False, "reason": "no card has such an id"}
        counts = np.bincount(np.asarray(chosen, np.int64), minlength=len(self.ranks))
        moves = self.card_moves(state)
        table = np.stack([self.move_counts(a) for a in moves]) if moves else \
            np.zeros((0, len(self.ranks)), np.int32)
        within = (table >= counts).all(axis=1)
        room = table[within] > counts  # moves holding the choice, and their ranks with room
        out = {"playable": [int(r) for r in np.flatnonzero(room.any(axis=0))],
               "ready": bool(counts.sum() and (table == counts).all(axis=1).any())}
        if counts.sum() and not within.any():  # no legal move holds them: say why now
            out["reason"] = self.refusal(state, counts.astype(np.int32))
        return out

    def choices(self, state):
        legal = self.legal(state)
        if self.bidding(state):
            return [{"label": "No bid", "text": "no bid", "enabled": True}] + [
                {"label": f"Bid {b}", "text": f"bid {b}", "enabled": bool(legal[ddz.BID_PASS + b])}
                for b in (1, 2, 3)]
        return [{"label": "Pass", "text": "pass", "enabled": bool(legal[self.pass_action])}]

    # -- the web view
    def faces(self, counts) -> list[dict]:
        """The cards of rank counts, high ranks first (jokers, 2, A, ...)."""
        out = []
        jokers = len(self.ranks) - 2  # the two jokers come last in the rank order
        for r in range(len(self.ranks) - 1, -1, -1):
            for _ in range(int(counts[r])):
                if r >= jokers:
                    big = r == jokers + 1
                    out.append(face(r, "JOKER", red=big, joker="big" if big else "small"))
                else:
                    out.append(face(r, self.ranks[r]))
        return out

    def phase(self, s):
        return "bidding" if self.bidding(s) else "play"

    def recent(self, moves) -> dict:
        """seat -> its latest move of the last round of card moves (bids: of the auction)."""
        plays = [m for m in moves if m.actions[0] < ddz.NUM_MOVES]
        bids = [m for m in moves if m.actions[0] >= ddz.NUM_MOVES]
        shown = plays[-self.env.num_players:] if plays else bids
        return {m.seat: m.actions[0] for m in shown}

    def seat_view(self, s, seat, moves, show_hand):
        last = self.recent(moves).get(seat)
        table, label = [], None
        if last is not None:
            if last >= ddz.NUM_MOVES or last == self.pass_action:
                label = self.move_text(last)
            else:
                table = self.faces(self.move_counts(last))
        lord = self.landlord(s)
        badges = [] if lord < 0 else [self.role(seat, s)]
        return {"name": self.name(seat), "count": self.cards_left(s)[seat],
                "hand": self.faces(self.hand_counts(s, seat)) if show_hand else None,
                "table": table, "label": label, "badges": badges, "note": None}

    def centre(self, s, reveal):
        if int(np.asarray(s.bottom).sum()):
            return {"label": "Bottom", "cards": self.faces(np.asarray(s.bottom))}
        if self.bidding(s):
            return {"label": "Bottom", "backs": 3}
        return None

    def info(self, s):
        lord = self.landlord(s)
        rows = [["Landlord", self.names[lord] if lord >= 0 else "–"]]
        if getattr(self.env, "bidding", False):
            rows.append(["Bid", str(int(s.bid)) if int(s.bid) else "–"])
        rows.append(["Bombs", str(int(s.bombs))])
        return rows

    def person_view(self, state):
        if self.bidding(state):
            bid, by = int(state.bid), int(state.bid_seat)
            now = f"the bid is {bid} ({self.names[by]})" if bid else "nobody has bid yet"
            return {"prompt": f"Your bid: {now}", "multi": False,
                    "hint": {"text": self.bid_hint(state)}}
        beat, by = self.to_beat(state)
        prompt = ("Your lead: choose cards, then Play" if beat < 0 else
                  f"Beat {spoken(self.move_text(beat))} ({self.names[by]}) or pass")
        moves = self.card_moves(state)
        return {"prompt": prompt, "submit": "Play", "playable": self.preview(state, [])["playable"],
                "suggestions": [self.move_ids(a) for a in moves[:MAX_SUGGESTIONS]]}

    def bid_hint(self, state) -> str:
        """The bid the rule player would make (what the hand is worth, above the bid), else
        ``no bid``."""
        from cardjax.games.doudizhu.rule import wanted_bid

        want = int(wanted_bid(self.hand_counts(state, int(state.current_player))))
        legal = self.legal(state)
        return f"bid {want}" if want > int(state.bid) and legal[ddz.BID_PASS + want] else "no bid"

    def move_ids(self, action) -> list[int]:
        counts = self.move_counts(action)
        return [int(r) for r in range(len(self.ranks)) for _ in range(int(counts[r]))]
