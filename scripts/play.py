#!/usr/bin/env python
"""Play Gongzhu in the terminal against three agents.

    python scripts/play.py                                  # you at seat 0, Mr Greed elsewhere
    python scripts/play.py --partner if --opponents runs/scrofazero --seed 7

You hold seat ``--seat``; your partner sits opposite.  ``--partner`` and ``--opponents`` take
a baseline name (random, if, greed) or a training run directory (``experiments/scrofazero.py
--out DIR``), whose newest checkpoint plays.  Type a card as people write it -- ``Q♠``, ``QS``,
``SQ``, ``10h``, ``TH`` -- or ``?`` for your legal cards; ``quit`` ends the game.
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable

import jax
import numpy as np

import cardjax
from cardjax import agents, cards
from cardjax.cli import run_command

SEAT_NAMES = ("South", "West", "North", "East")


def show(card: int) -> str:
    """``Q♠``, ``10♥``: rank then suit symbol, as people write cards."""
    return cards.RANKS[card % 13] + cards.SUIT_SYMBOLS[card // 13]


def show_hand(mask) -> str:
    """A hand by suit, high cards first: ``♠ A Q 3   ♥ 10 9  ...``."""
    mask = np.asarray(mask, bool)
    parts = []
    for suit in range(4):
        held = [cards.RANKS[r] for r in range(12, -1, -1) if mask[13 * suit + r]]
        if held:
            parts.append(cards.SUIT_SYMBOLS[suit] + " " + " ".join(held))
    return "   ".join(parts) or "(empty)"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--seat", type=int, choices=range(4), default=0, help="your seat (0-3)")
    p.add_argument("--partner", default="greed", help="baseline name or run directory")
    p.add_argument("--opponents", default="greed", help="baseline name or run directory")
    p.add_argument("--seed", type=int, default=0, help="the deal")
    return p.parse_args(argv)


def ask_card(hand, legal, input_fn: Callable, print_fn: Callable) -> int | None:
    """Read a legal card from the player; None when they quit."""
    while True:
        try:
            text = input_fn("your card> ").strip()
        except EOFError:
            return None
        if text.lower() in ("quit", "exit", "q"):
            return None
        if text in ("?", "help", ""):
            print_fn("legal: " + " ".join(show(c) for c in np.flatnonzero(legal)))
            continue
        try:
            card = cards.card_index(text)
        except ValueError as e:
            print_fn(str(e))
            continue
        if not hand[card]:
            print_fn(f"you do not hold {show(card)}")
        elif not legal[card]:
            print_fn(f"{show(card)} is not legal: you must follow suit. legal: "
                     + " ".join(show(c) for c in np.flatnonzero(legal)))
        else:
            return card


def play(args, input_fn: Callable = input, print_fn: Callable = print) -> dict | None:
    """Play one game; returns the final pile scores and team margins (None if the player quit)."""
    env = cardjax.make("gongzhu")
    try:
        partner = agents.load(env, args.partner)
        opponent = agents.load(env, args.opponents)
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    me = args.seat
    seats = {(me + 2) % 4: partner, (me + 1) % 4: opponent, (me + 3) % 4: opponent}
    step = jax.jit(env.step)
    acts = {id(a): jax.jit(a.act) for a in (partner, opponent)}
    key = jax.random.PRNGKey(args.seed)
    key, deal = jax.random.split(key)
    state = env.init(deal)
    print_fn(f"You are {SEAT_NAMES[me]} (seat {me}); partner {SEAT_NAMES[(me + 2) % 4]} "
             f"({partner.name}); opponents {opponent.name}.")
    trick = []
    while not bool(state.terminated):
        seat = int(state.current_player)
        if seat == me:
            hand = np.asarray(env.hand(state, me))
            print_fn(f"\ntable: {' '.join(trick) or '(you lead)'}")
            print_fn(f"hand:  {show_hand(hand)}")
            card = ask_card(hand, np.asarray(state.legal_action_mask), input_fn, print_fn)
            if card is None:
                print_fn("game abandoned")
                return None
        else:
            agent = seats[seat]
            key, sub = jax.random.split(key)
            card = int(acts[id(agent)](agent.params, sub, state))
        trick.append(f"{SEAT_NAMES[seat]}:{show(card)}")
        state = step(state, card)
        if int(state.num_played) % 4 == 0:
            winner = int(state.leader)
            print_fn(f"trick {int(state.num_played) // 4:2d}: {'  '.join(trick)}  -> "
                     f"{SEAT_NAMES[winner]} takes it")
            trick = []
    scores = np.asarray(state.scores)
    mine = scores[me] + scores[(me + 2) % 4]
    theirs = scores[(me + 1) % 4] + scores[(me + 3) % 4]
    print_fn("\n" + "  ".join(f"{SEAT_NAMES[s]} {scores[s]:+.0f}" for s in range(4)))
    print_fn(f"your team {mine:+.0f}, theirs {theirs:+.0f}: margin {mine - theirs:+.0f}")
    return {"scores": scores.tolist(), "margin": float(mine - theirs)}


def main(argv=None) -> None:
    args = parse_args(argv)
    if play(args) is None:
        sys.exit(1)


if __name__ == "__main__":
    run_command(main)
