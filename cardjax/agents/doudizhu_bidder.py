"""Dou Dizhu with bidding: a bid module composed with any card player.

``bidder:value=RUN,play=PLAYER,threshold=T[,high=H]`` bids with a bid value network (an
``experiments/bid_value.py`` run, the DouZero+ approach): when the network's win probability for
the seat's hand, were it to take the bottom cards, is at least ``threshold`` (default 0.5), the
seat bids the lowest bid above the current one (3 when ``high`` is given and the network's
expected points at stake 1 reach it), else it passes.  Without ``value`` it bids as the
rule player (:func:`cardjax.agents.doudizhu_rule.wanted_bid`).  Once the auction is over,
``play`` (a baseline name or a run directory; default ``rule``) plays the cards.  So the same card
player can be given two bid modules and the arena's bidding scheme measures what the bidding
alone is worth.
"""

from __future__ import annotations

import jax.numpy as jnp

from cardjax.core import Agent
from cardjax.games.doudizhu import NUM_MOVES


def rule_bid(params, state):
    """The rule player's bid (0 = pass) for the seat to act (:func:`doudizhu_rule.bid`)."""
    from cardjax.agents import doudizhu_rule

    return doudizhu_rule.bid(state)


def compose(player: Agent, bid, bid_params=None, name: str | None = None) -> Agent:
    """``player`` for the cards, ``bid(bid_params, state) -> 0 .. 3`` (0 = pass) in the auction."""

    def act(params, key, state):
        card = player.act(params["play"], key, state)
        return jnp.where(state.bidding, NUM_MOVES + bid(params["bid"], state), card).astype(
            jnp.int32)

    return Agent(name or player.name, act, {"play": player.params, "bid": bid_params})


def with_rule_bids(env, player: Agent) -> Agent:
    """A card player (a DMC or DeepRocket run, say) that bids as the rule player when ``env``
    has an auction; ``player`` itself otherwise."""
    if env.name != "doudizhu" or not getattr(env, "bidding", False):
        return player
    return compose(player, rule_bid)


def make(env, value: str | None = None, play: str = "rule", threshold: float = 0.5,
         high: float | None = None) -> Agent:
    if env.name != "doudizhu" or not getattr(env, "bidding", False):
        raise ValueError("bidder plays Dou Dizhu with bidding: cardjax.make('doudizhu', "
                         "bidding=True) (scripts/arena.py --bidding)")
    if not 0.0 <= float(threshold) <= 1.0:
        raise ValueError(f"threshold is a win probability in [0, 1], got {threshold}")
    from cardjax import agents

    player = agents.load(env, str(play))
    if player.name == "bidder":
        raise ValueError("play must be a card player, not another bidder")
    if value is None:
        bid, bid_params = rule_bid, None
    else:
        from cardjax.train.bid_value import load_run

        trainer, bid_params = load_run(str(value), env)

        def bid(params, state):
            p_win, points = trainer.value(params,
                                          state._hands[state.current_player].astype(jnp.int32))
            want = state.bid + 1
            if high is not None:  # a hand worth this many points a game at stake 1 bids 3
                want = jnp.where(points >= high, 3, want)
            return jnp.where((p_win >= threshold) & (want <= 3), want, 0)

    return compose(player, bid, bid_params, name="bidder")
