"""A game at a table: the env, each seat's player (or the person), the deal and every move,
with the words each move made.  The terminal and the web table both play through it."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import numpy as np

from cardjax.table.base import Table, compiled_init
from cardjax.play.players import Player


class Move(NamedTuple):
    """One seat's move: its env actions, the state after it and what it did, in words."""

    seat: int
    actions: list
    state: Any
    lines: list


class Pending(NamedTuple):
    """A move computed from ``before`` and not yet made (:meth:`Game.commit` makes it)."""

    seat: int
    actions: list
    before: Any
    after: Any
    rewards: np.ndarray


class Game:
    """One game: ``players`` maps every seat but the person's (``table.me``; None: everyone
    plays) to its :class:`Player`.  The deal is ``env.init`` of the second half of
    ``jax.random.split(PRNGKey(seed))``; the players' keys are split from the first half, one
    per action."""

    def __init__(self, env, table: Table, players: dict[int, Player], seed: int):
        self.env, self.table, self.players, self.seed = env, table, dict(players), int(seed)
        self.key, self.deal_key = jax.random.split(jax.random.PRNGKey(self.seed))
        self.first = self.state = compiled_init(env)(self.deal_key)
        self.moves: list[Move] = []
        self.returns = np.zeros(env.num_players, np.float64)

    @property
    def over(self) -> bool:
        return bool(self.state.terminated)

    @property
    def turn(self) -> int | None:
        """The seat to play, None when the game is over."""
        return None if self.over else int(self.state.current_player)

    def states(self) -> list:
        """The first state, then the state after each move."""
        return [self.first] + [m.state for m in self.moves]

    def actions(self) -> list[int]:
        """Every env action so far, in order."""
        return [a for m in self.moves for a in m.actions]

    def prepare(self) -> None:
        """Compile the step, the legal mask and every player's ``act`` before the first move,
        so that the game does not stall at its first moves."""
        s = self.state
        first = int(np.flatnonzero(self.table.legal(s))[0])
        jax.block_until_ready(self.table.step(s, first))
        for player in {p.spec: p for p in self.players.values()}.values():
            jax.block_until_ready(player.act(player.agent.params, self.key, s))

    def agent_move(self) -> Pending:
        """The move of the seat to play's player, computed and not yet made."""
        seat, before = int(self.state.current_player), self.state
        player = self.players[seat]
        state, done, rewards = before, [], np.zeros(self.env.num_players)
        while True:
            self.key, sub = jax.random.split(self.key)
            a = player(sub, state)
            state = self.table.step(state, a)
            done.append(a)
            rewards += np.asarray(state.rewards)
            if self.table.move_done(before, state):
                return Pending(seat, done, before, state, rewards)

    def person_move(self, actions: list[int]) -> Pending:
        """The person's move of ``actions`` (checked by the table), not yet made; it ends where
        the move is done."""
        seat, before = int(self.state.current_player), self.state
        state, done, rewards = before, [], np.zeros(self.env.num_players)
        for a in actions:
            state = self.table.step(state, int(a))
            done.append(int(a))
            rewards += np.asarray(state.rewards)
            if self.table.move_done(before, state):
                break
        return Pending(seat, done, before, state, rewards)

    def commit(self, move: Pending) -> Move:
        """Make ``move`` (computed from the current state); returns it with its words."""
        if move.before is not self.state:
            raise RuntimeError("the game moved on while the move was computed")
        lines = self.table.events(move.before, move.after, move.seat, move.actions)
        made = Move(move.seat, move.actions, move.after, lines)
        self.moves.append(made)
        self.state = move.after
        self.returns += move.rewards
        return made
