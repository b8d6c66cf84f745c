"""The toy game for DMC: one network, ``player``, for both seats.

State features: ``env.observe`` (40 values, all 0/1, from the acting seat); action features: the
card one-hot (8) and its rank as a thermometer (7), and with ``advice`` a flag: the rule
player's card (:func:`toygame.players.rule_move`).  Reward ``win``: +1 / -1, plus
``trick_reward`` to a trick's winner and minus it to the other seat at the step that ends the
trick.  A game is exactly six plays and a hand holds at most three cards (``k = 3``: no
overflow).

It has every capability a DMC extension asks of a game, in the small, so that the extensions'
tests run on it: trick ends (``tick``), the other seat's hand as an oracle view, exact step
rewards of a follow's cards before the game's last trick (``counterfactual``), the rule player's
card as advice, and with ``rollouts`` a lead's trick reward when the other seat answers as the
rule player (reading its hidden hand: a training target only).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

import cardjax
from cardjax.cli import boolean, non_negative_float, option
from cardjax.nets.dmc.action_table import with_flags
from cardjax.nets.dmc.adapter import Adapter, Game
from toygame import env as toy
from toygame.players import rule_move

ROLE_NAMES = ("player",)


@dataclasses.dataclass(frozen=True)
class Options:
    trick_reward: float = option(0.0, "reward to a trick's winner (minus to the other seat)",
                                 non_negative_float)
    advice: bool = option(False, "the rule player's card carries a flag (true / false)", boolean)
    rollouts: bool = option(False, "with --counterfactual: a lead's cards also train, on the "
                            "trick reward when the other seat answers as the rule player",
                            boolean)


def action_table() -> np.ndarray:
    """bool[8, 15]: card one-hot, then ``card > r`` for r = 0..6."""
    cards = np.arange(toy.NUM_CARDS)
    return np.concatenate([np.eye(toy.NUM_CARDS, dtype=bool),
                           cards[:, None] > np.arange(toy.NUM_CARDS - 1)[None, :]], axis=1)


def trick_swing(prev, nxt):
    """float32[2]: +1 to the seat that took a trick in the step ``prev`` -> ``nxt``, -1 to the
    other, 0 where the step ended no trick (the env's own rule says who took it)."""
    took = nxt.tricks - prev.tricks
    return jnp.where(jnp.any(took > 0), 2 * took - 1, 0).astype(jnp.float32)


def trick_rewards(env, state, trick_reward: float):
    """``(reward float32[8], exact bool[8])``: at a follow before the game's last trick (whose
    step also pays the win), each legal card's step reward for the acting seat: it takes the
    trick (+) or gives it away (-), each card stepped."""
    follow = (state.table >= 0) & (state.step_count < 2 * toy.TRICKS - 1)
    swing = jax.vmap(lambda c: trick_swing(state, env.step(state, c)))(jnp.arange(toy.NUM_CARDS))
    exact = follow & state.legal_action_mask & ~state.terminated
    reward = trick_reward * swing[:, state.current_player]
    return jnp.where(exact, reward, 0.0), exact


def rollout_rewards(env, state, trick_reward: float):
    """``(reward float32[8], valid bool[8])``: at a lead before the last trick, each legal
    card's trick reward for the leader when the other seat answers as the rule player (with
    its own hand, hidden from the leader)."""
    return rollout_ends(env, state, trick_reward)[:2]


def rollout_ends(env, state, trick_reward: float):
    """:func:`rollout_rewards`, and ``(cards int32[8], ends)``: every card, and the state after
    the rule player's answer to it (a batch of 8 states)."""
    applies = (state.table < 0) & (state.step_count < 2 * (toy.TRICKS - 1)) & ~state.terminated
    cards = jnp.arange(toy.NUM_CARDS)

    def answered(card):
        nxt = env.step(state, card)
        end = env.step(nxt, rule_move(nxt))
        return trick_swing(state, end)[state.current_player], end

    swing, ends = jax.vmap(answered)(cards)
    valid = applies & state.legal_action_mask
    return jnp.where(valid, trick_reward * swing, 0.0), valid, cards, ends


def make_game(cfg=None, env=None) -> Game:
    env = env or cardjax.make("toy")
    if env.name != "toy":
        raise ValueError(f"the toy adapter plays the toy game, not {env.name}")
    opts = cfg.options if cfg is not None and cfg.options is not None else Options()
    table = action_table()
    if opts.advice:
        table = with_flags(table, 2)  # a copy of every row with the advice flag

    def features(state):
        return env.observe(state, state.current_player) > 0.5  # observe is 0/1

    def oracle(state):
        return state._hands[1 - state.current_player]

    def role(state):
        return jnp.zeros((), jnp.int32)

    def advice(state):
        return (jnp.arange(toy.NUM_CARDS) == rule_move(state)) & ~state.terminated

    def action_rows(state):
        return jnp.arange(toy.NUM_CARDS) + toy.NUM_CARDS * advice(state)

    def step_rewards(prev, nxt):
        return nxt.rewards + opts.trick_reward * trick_swing(prev, nxt)

    def tick(prev, nxt):  # a trick ended
        return (prev.table >= 0) & ~prev.terminated

    def final_reward(final):
        return final.rewards

    def outcome(final, totals):
        return {"seat0_wins": jnp.mean(totals[:, 0] > 0)}

    return Game(env, ROLE_NAMES, features, role, table, (0, 0), outcome,
                step_rewards=step_rewards, oracle=oracle if cfg is not None and cfg.oracle
                else None, tick=tick, final_reward=final_reward,
                action_rows=action_rows if opts.advice else None,
                counterfactual=lambda s: trick_rewards(env, s, opts.trick_reward),
                advice=advice if opts.advice else None,
                advised_from=toy.NUM_CARDS if opts.advice else None,
                rollout=(lambda s: rollout_rewards(env, s, opts.trick_reward))
                if opts.rollouts else None,
                rollout_ends=(lambda s: rollout_ends(env, s, opts.trick_reward))
                if opts.rollouts else None)


ADAPTER = Adapter(game="toy", player="toy_dmc", role_names=ROLE_NAMES, rewards=("win",),
                  make_game=make_game, options=Options, ticks=True, oracle=True,
                  counterfactuals=True, advises=lambda options: options.advice, unused=("lstm",),
                  defaults={"reward": "win", "k": toy.HAND_SIZE, "max_steps": toy.Toy.max_steps})
