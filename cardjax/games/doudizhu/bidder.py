"""Dou Dizhu with bidding: a bid module composed with any card player.

``bidder:value=RUN,play=PLAYER,threshold=T[,high=H]`` bids with a bid value network (a
``cardjax train bid_value`` run or its artifact, the DouZero+ approach, loaded by
``cardjax.agents.load_setting``): when the network's win probability for the seat's hand, were it to take the bottom cards, is at
least ``threshold`` (default 0.5), the seat bids the lowest bid above the current one (3 when
``high`` is given and the network's expected points at stake 1 reach it), else it passes.
``bidder:strength=C`` bids by hand strength instead (:func:`strength`: the control cards and the
tidiness of the hand, the two factors DeepRocket's bid module weighs): 1 from ``C``, 2 from
``C + 2``, 3 from ``C + 4``.
With neither it bids as the rule player (:func:`cardjax.games.doudizhu.rule.wanted_bid`).  Once the auction is over,
``play`` (a baseline name or a run directory; default ``rule``) plays the cards.  So the same card
player can be given two bid modules and the arena's bidding scheme measures what the bidding
alone is worth.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from cardjax.core import Agent
from cardjax.games.doudizhu import moves
from cardjax.games.doudizhu.env import NUM_MOVES

# Control cards (DeepRocket, section 4.1: "A", "2" and the jokers), worth more the fewer cards
# beat them; a bomb beats all but a bigger bomb and the rocket.
_CONTROL = np.array([0] * 11 + [1, 2, 3, 4], np.int32)  # 3 .. K, A, 2, black joker, red joker
_BOMB_CONTROL = 3
_TRIO_LIKE = np.isin(moves.TYPE, (moves.TRIO, moves.CHAIN_TRIO))
_TRIO_RANKS = np.where(_TRIO_LIKE, moves.COUNTS.sum(axis=1) // 3, 0).astype(np.int32)
_SOLO_OR_PAIR = np.isin(moves.TYPE, (moves.SOLO, moves.PAIR))


def control(hand) -> jax.Array:
    """int32: A 1, 2 2, black joker 3, red joker 4 a card, and 3 a bomb (``hand``: int[15])."""
    c = jnp.asarray(hand, jnp.int32)
    return jnp.sum(c * _CONTROL) + _BOMB_CONTROL * jnp.sum(c[:13] == 4)


def split(hand) -> tuple[jax.Array, jax.Array, jax.Array]:
    """int32 ``(groups, trio_ranks, solos_and_pairs)``: the moves the rule player leads to play
    ``hand`` out alone (:func:`cardjax.games.doudizhu.rule.lead_action` again and again: its
    rocket, bombs, trios and trio chains, solo chains, pairs and solos), how many trio ranks
    they hold and how many are solos or pairs."""
    from cardjax.games.doudizhu.rule import lead_action

    def body(_, carry):
        c, groups, trios, small = carry
        live = jnp.sum(c) > 0
        a = lead_action(jnp.where(live, c, c.at[0].set(1)))  # any action on an empty hand
        on = live.astype(jnp.int32)
        return (c - on * jnp.asarray(moves.COUNTS, jnp.int32)[a], groups + on,
                trios + on * jnp.asarray(_TRIO_RANKS)[a],
                small + on * jnp.asarray(_SOLO_OR_PAIR, jnp.int32)[a])

    zero = jnp.int32(0)
    _, groups, trios, small = jax.lax.fori_loop(
        0, 20, body, (jnp.asarray(hand, jnp.int32), zero, zero, zero))
    return groups, trios, small


def sets(hand) -> jax.Array:
    """int32: how many moves the hand takes to play out alone, its tidiness (fewer is tidier):
    the groups of :func:`split`, less the solos and pairs the trios carry as kickers (one a
    trio rank)."""
    groups, trios, small = split(hand)
    return groups - jnp.minimum(trios, small)


def strength(hand) -> jax.Array:
    """int32: ``control(hand) - sets(hand)``: DeepRocket's two factors of a bid (section 4.1,
    which gives no weights; these are cardjax's)."""
    return control(hand) - sets(hand)


def rule_bid(params, state):
    """The rule player's bid (0 = pass) for the seat to act (:func:`~cardjax.games.doudizhu.rule.bid`)."""
    from cardjax.games.doudizhu import rule as doudizhu_rule

    return doudizhu_rule.bid(state)


def compose(player: Agent, bid, bid_params=None, name: str | None = None) -> Agent:
    """``player`` for the cards, ``bid(bid_params, state) -> 0 .. 3`` (0 = pass) in the auction."""

    def act(params, key, state):
        card = player.act(params["play"], key, state)
        return jnp.where(state.bidding, NUM_MOVES + bid(params["bid"], state), card).astype(
            jnp.int32)

    return Agent(name or player.name, act, {"play": player.params, "bid": bid_params})


def complete(env, player: Agent, meta: dict) -> Agent:
    """Dou Dizhu's card's ``complete_player``: a trained card player at a table with an auction
    bids with the bid module its description names (``meta["play"]["bids"]``:
    ``{"strength": c}``) or as the rule player; without an auction, or where it learned to bid
    (its ``meta["network"]`` config says ``bidding``), it is ``player`` itself."""
    if not getattr(env, "bidding", False) or (meta.get("network") or {}).get("bidding", False):
        return player
    bids = (meta.get("play") or {}).get("bids") or {}
    if "strength" in bids:
        return compose(player, strength_bid(float(bids["strength"])), name=meta.get("name"))
    return compose(player, rule_bid)


def strength_bid(cutoff: float):
    """The bid by hand strength: 1 from ``cutoff``, 2 from ``cutoff + 2``, 3 from ``cutoff + 4``,
    when above the current bid; else pass."""

    def bid(params, state):
        s = strength(state._hands[state.current_player])
        want = (s >= cutoff).astype(jnp.int32) + (s >= cutoff + 2) + (s >= cutoff + 4)
        return jnp.where(want > state.bid, want, 0)

    return bid


def make(env, value: tuple | None = None, play: Agent | None = None, threshold: float = 0.5,
         high: float | None = None, strength: float | None = None) -> Agent:
    """The bidder; ``play``: the card player (default: the rule player); ``value``: a bid value
    network, ``(value(params, hand) -> (p_win, points), params)``.  ``cardjax.agents.get`` loads
    both from the words a command gives (``make.loaded_settings``)."""
    if env.name != "doudizhu" or not getattr(env, "bidding", False):
        raise ValueError("bidder plays Dou Dizhu with bidding: cardjax.make('doudizhu', "
                         "bidding=True) (cardjax arena --bidding)")
    if not 0.0 <= float(threshold) <= 1.0:
        raise ValueError(f"threshold is a win probability in [0, 1], got {threshold}")
    if play is None:
        from cardjax.games.doudizhu import rule

        play = rule.make(env)
    if not isinstance(play, Agent):
        raise ValueError(f"play must be a card player (an Agent), got {play!r}")
    player = play
    if player.name == "bidder":
        raise ValueError("play must be a card player, not another bidder")
    if value is not None and strength is not None:
        raise ValueError("bidder: give value=RUN (a learned bid) or strength=C (hand strength), "
                         "not both")
    if strength is not None:
        bid, bid_params = strength_bid(float(strength)), None
    elif value is None:
        bid, bid_params = rule_bid, None
    else:
        value_of, bid_params = value

        def bid(params, state):
            p_win, points = value_of(params, state._hands[state.current_player].astype(jnp.int32))
            want = state.bid + 1
            if high is not None:  # a hand worth this many points a game at stake 1 bids 3
                want = jnp.where(points >= high, 3, want)
            return jnp.where((p_win >= threshold) & (want <= 3), want, 0)

    return compose(player, bid, bid_params, name="bidder")


# settings that name a player or a trained network: agents.get loads the word it is given
make.loaded_settings = {"play": "player", "value": "bid_value"}
