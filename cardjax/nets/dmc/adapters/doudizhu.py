"""Dou Dizhu for DMC, as DouZero plays it (fixed landlord), or the whole game with its auction.

Roles: 0 ``landlord``; 1 ``landlord_down``, the peasant right after the landlord; 2
``landlord_up``, the peasant right before it (``(seat - landlord) mod 3``).  Without bidding the
game is lockstep.  State features: ``env.observe`` (1,325 0/1 values, the last 15 moves as 15 x
60 planes at the end, read by the LSTM in 5 steps of 3 moves); action features: the move's rank
counts as 4 x 15 planes.

With the ``bidding`` option the env runs its auction first and a fourth network, ``bidder``,
chooses the bids (pass, 1, 2, 3) as actions of its own; the landlord's seat varies from deal to
deal and the three card-play networks are chosen by role after the auction.  The features gain
the auction's public facts (the current bid, one-hot; whether the auction runs; the seat holding
the highest bid, relative: self, next, previous), and the action features four columns for the
bids.  The bidder reads its own hand and the auction, never another seat's cards.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np

from cardjax import registry
from cardjax.cli import boolean
from cardjax.games.doudizhu import env as doudizhu
from cardjax.games.doudizhu import observe as ddz_obs
from cardjax.nets.dmc.adapter import Adapter, Game

ROLE_NAMES = ddz_obs.ROLES
BIDDER = ROLE_NAMES + ("bidder",)


@dataclasses.dataclass(frozen=True)
class Options:
    """The Dou Dizhu adapter's options (defaults: DouZero's fixed-landlord game)."""

    bidding: bool = dataclasses.field(default=False, metadata=dict(
        type=boolean, help="train the whole game: the auction (a fourth network bids) and the "
        "play (true / false)"))


def _auction(state):
    """uint8[8]: the current bid (one-hot 0..3), whether the auction runs, the seat holding the
    highest bid relative to the seat to act (self, next, previous; none: zeros)."""
    rel = (jnp.arange(3) + state.current_player) % 3
    return jnp.concatenate([state.bid == jnp.arange(4), state.bidding[None],
                            rel == state.bid_seat]).astype(jnp.uint8)


def make_game(cfg, env=None) -> Game:
    bidding = bool(cfg.options is not None and cfg.options.bidding)
    env = env or registry.make("doudizhu", reward=cfg.reward, bidding=bidding)
    if env.name != "doudizhu":
        raise ValueError(f"the Dou Dizhu DMC adapter got a {env.name} env")
    table = np.asarray(ddz_obs.planes(jnp.asarray(doudizhu.COUNTS)), bool)  # [27472, 60]

    def outcome(final, totals):
        lord = jnp.sum(totals * (jnp.arange(3) == final.landlord[:, None]), axis=1)
        out = {"landlord_wins": jnp.mean((lord > 0).astype(jnp.float32)),
               "landlord_reward": jnp.mean(lord)}
        if bidding:
            out["void"] = jnp.mean((final.landlord < 0).astype(jnp.float32))
        return out

    history = (ddz_obs.OBS_HISTORY // 3, 3 * ddz_obs.PLANES)
    if not bidding:
        # With an auction in the env (a player at such a table) the Q networks play the cards
        # after it; the candidates are the card moves only (the table's rows), never the bids.
        return Game(env, ROLE_NAMES, lambda s: env.observe(s, s.current_player) > 0.5,
                    lambda s: ddz_obs.role(s, s.current_player),
                    table, history, outcome, trainable=not getattr(env, "bidding", False))
    if not getattr(env, "bidding", False):
        raise ValueError("a config trained with bidding needs an env with its auction: "
                         "cardjax.make('doudizhu', bidding=True)")
    bids = np.zeros((4, table.shape[1] + 4), bool)
    bids[np.arange(4), table.shape[1] + np.arange(4)] = True  # pass, 1, 2, 3
    table = np.concatenate([np.pad(table, ((0, 0), (0, 4))), bids])  # [27476, 64]

    def features(state):
        obs = env.observe(state, state.current_player) > 0.5
        # the auction's facts go first: the LSTM reads the history at the end of the features
        return jnp.concatenate([_auction(state).astype(bool), obs])

    def role(state):
        return jnp.where(state.bidding, 3, ddz_obs.role(state, state.current_player))

    return Game(env, BIDDER, features, role, table, history, outcome, lockstep=False)


# a game is at most 154 steps (env.max_steps), rounded up to the 3 roles by Config.steps
ADAPTER = Adapter(game="doudizhu",
                  player="douzero", role_names=ROLE_NAMES, rewards=("adp", "wp", "logadp"),
                  make_game=make_game, defaults={"max_steps": registry.make("doudizhu").max_steps},
                  options=Options,
                  roles=lambda opts: BIDDER if opts is not None and opts.bidding else ROLE_NAMES)
