"""Tractor matches: :class:`TractorMatch` plays hands of the :class:`~cardjax.games.tractor.env.Tractor`
env until a team levels past A, carrying the teams' levels and the dealer from hand to hand
(:class:`MatchState`)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from cardjax.core import PRNGKey
from cardjax.games.tractor.env import NUM_TYPES, State, Tractor

Array = jax.Array


@struct.dataclass
class MatchState:
    hand: State  # the hand being played (one env episode)
    team_levels: Array  # int32[2]: rank index of each team's level; past 12 = past A
    winner: Array  # int32: team that levelled past A, -1 while the match goes on
    hands_played: Array  # int32


class TractorMatch:
    """Hands of ``env`` until a team levels past A, levels and dealer carried from hand to hand.

    The first hand is dealt from seat 0 and its last declarer deals (seat 0 if none).  After a
    hand the team that gained levels moves up; the next dealer is the dealer's partner if the
    defenders held (attackers under 80), else the seat after the dealer.  ``step`` is pure and
    jit/vmap-able; ``hand.rewards`` carries each hand's rewards on the step that ends it.
    """

    def __init__(self, env: Tractor | None = None, **options):
        self.env = env if env is not None else Tractor(**options)

    def init(self, key: PRNGKey) -> MatchState:
        deal = jax.random.permutation(key, jnp.arange(108) % NUM_TYPES)
        hand = self.env._new(deal, jnp.int32(0), jnp.int32(-1))
        return MatchState(hand=hand, team_levels=jnp.zeros(2, jnp.int32), winner=jnp.int32(-1),
                          hands_played=jnp.int32(0))

    @staticmethod
    def next_hand(team_levels, hand: State):
        """(team levels, next dealer) after the finished ``hand``."""
        dteam = hand.dealer % 2
        levels = team_levels + hand.level_gain
        attackers_won = (hand.attacker_points + hand.kitty_bonus + hand.penalty) >= 80
        dealer = jnp.where(attackers_won, (hand.dealer + 1) % 4, (hand.dealer + 2) % 4)
        del dteam
        return levels, dealer.astype(jnp.int32)

    def step(self, ms: MatchState, action, key: PRNGKey) -> MatchState:
        hand = self.env.step(ms.hand, action)
        levels, dealer = self.next_hand(ms.team_levels, hand)
        ended = hand.terminated & ~ms.hand.terminated
        levels = jnp.where(ended, levels, ms.team_levels)
        winner = jnp.where((ms.winner < 0) & ended & jnp.any(levels > 12),
                           jnp.argmax(levels), ms.winner).astype(jnp.int32)
        deal = jax.random.permutation(key, jnp.arange(108) % NUM_TYPES)
        fresh = self.env._new(deal, jnp.minimum(levels[dealer % 2], 12), dealer)
        fresh = fresh.replace(rewards=hand.rewards)  # the finished hand's outcome stays visible
        go_on = ended & (winner < 0)
        hand = jax.tree_util.tree_map(lambda a, b: jnp.where(go_on, a, b), fresh, hand)
        return MatchState(hand=hand, team_levels=levels, winner=winner,
                          hands_played=ms.hands_played + ended)
