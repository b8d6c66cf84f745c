"""The rewards Tractor's DMC learns from beyond a step's own: the trick points a card of the
trick's last seat takes (known before it is played), and the second and third seats' cards
played out to the trick's end by the rule player (their points and the states they leave)."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from cardjax.gate import gated
from cardjax.games.tractor import env as tractor
from cardjax.games.tractor import moves as tm
from cardjax.games.tractor import rule as tractor_rule
from cardjax.games.tractor import state_facts
from cardjax.nets.dmc.acting import compact


def last_trick(state):
    """bool: a follow of the hand's last trick (its kitty bonus depends on more than the trick):
    the cards left in hand are those the seats still to play it will play (a partial play
    stays in its hand until complete)."""
    return jnp.sum(state.hand_sizes) == state.lead_n * (4 - state.num_in_trick)


def trick_ending_rewards(state, point_reward: float):
    """``(reward float32[66], exact bool[66])``: for the last seat of a trick (not the hand's
    last trick, whose kitty bonus depends on more), the points of the trick each card that
    completes its follow takes for its team (+) or gives away (-), times ``point_reward``: the
    step reward of each such card, known before it is played."""
    seat = state.current_player
    holder = state_facts.completing_holders(state)
    mine = (holder - seat) % 2 == 0
    points = (state_facts.table_points(state) + jnp.asarray(tm.POINTS)[:tractor.NUM_TYPES]).astype(
        jnp.float32)
    exact = (holder >= 0) & (state.num_in_trick == 3) & ~last_trick(state)
    reward = point_reward * jnp.where(mine, points, -points)
    pad = tractor.NUM_ACTIONS - tractor.NUM_TYPES
    return (jnp.concatenate([jnp.where(exact, reward, 0.0), jnp.zeros(pad)]),
            jnp.concatenate([exact, jnp.zeros(pad, bool)]))


ROLLOUT_CARDS = 16  # the legal cards played out per decision (a void seat's beyond: none)


def rollout_rewards(env, state, point_reward: float, player=None):
    """``(reward float32[66], valid bool[66])``: at a follow of the second or third seat of a
    trick (not the hand's last) where one more card completes the seat's play, for each of up to
    :data:`ROLLOUT_CARDS` legal such cards (the lowest types), the points of the trick the seat's
    team takes (+) or gives away (-) when the later seats play it out as ``player`` (the rule
    player by default) with their own hands, times ``point_reward``.  The later seats' cards are
    hidden from the seat: a training target, never a reason to choose."""
    return rollout_ends(env, state, point_reward, player)[:2]


def rollout_ends(env, state, point_reward: float, player=None):
    """:func:`rollout_rewards`, and ``(cards int32[R], ends)``: the cards played out (R =
    :data:`ROLLOUT_CARDS`; padding where not valid) and the state each leaves when its trick is
    over (a batch of R states; the state itself where nothing was played out)."""
    player = player or tractor_rule.make(env)
    holder = state_facts.completing_holders(state)
    cards = (holder >= 0) & state.legal_action_mask[:tractor.NUM_TYPES]
    applies = ((state.num_in_trick == 1) | (state.num_in_trick == 2)) & jnp.any(cards) \
        & ~last_trick(state) & ~state.terminated
    idx, ok, _ = compact(cards, ROLLOUT_CARDS)

    def play_out(state, idx):
        def one(card):
            start = env.step(state, card)

            def unfinished(c):
                return (c.trick_no == state.trick_no) & ~c.terminated

            def later_seat(c):
                return env.step(c, player.act(player.params, None, c))

            end = jax.lax.while_loop(unfinished, later_seat, start)
            swing = state_facts.point_swing(state, end)[state.current_player]
            return swing.astype(jnp.float32), end

        return jax.vmap(one)(idx)

    def nothing(state, idx):
        same = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, idx.shape + x.shape), state)
        return jnp.zeros(idx.shape, jnp.float32), same

    swing, ends = gated(applies, play_out, nothing, state, idx)
    valid = ok & applies
    reward = jnp.zeros(tractor.NUM_ACTIONS).at[idx].add(jnp.where(valid, swing, 0.0))
    mask = jnp.zeros(tractor.NUM_ACTIONS, bool).at[idx].max(valid)
    return point_reward * reward, mask, idx, ends
