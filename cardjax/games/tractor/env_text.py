"""Tractor's text at the env's edge: a deal order and trick-phase hands read from card strings
(checked), an action's name and a state drawn as lines of text, for
:class:`~cardjax.games.tractor.env.Tractor` (``init_from_deal``, ``trick_state``,
``action_to_str``, ``render``).  Card text itself is in :mod:`~cardjax.games.tractor.cards`."""

from __future__ import annotations

import jax
import numpy as np

from cardjax.games.tractor import cards as tc
from cardjax.games.tractor import moves as tm
from cardjax.games.tractor.legal import DECL_DJ, DECL_PAIR, DECL_SINGLE, DECL_XJ, DONE, PASS
from cardjax.games.tractor.moves import NUM_TYPES


# ---------------------------------------------------------------------------- reading
def parse_deal(order) -> np.ndarray:
    """int[108]: a deal order of 108 card strings (or one string of them) or type indices, each
    type twice; ``ValueError`` otherwise."""
    if isinstance(order, str):
        order = order.replace(",", " ").split()
    types = np.array([tc.card_type(c) if isinstance(c, str) else int(c) for c in order])
    if types.shape != (108,):
        raise ValueError(f"a deal has 108 cards, got {types.shape[0]}")
    if ((types < 0) | (types >= NUM_TYPES)).any():
        raise ValueError("card type indices must be in 0..53")
    counts = np.bincount(types, minlength=NUM_TYPES)
    if (counts != 2).any():
        bad = [f"{tc.type_str(t)} x{counts[t]}" for t in np.flatnonzero(counts != 2)]
        raise ValueError(f"a deal holds each card twice; got {', '.join(bad)}")
    return types


def parse_hands(hands) -> np.ndarray:
    """int[4, 54]: four hands (count vectors or card strings; any sizes) holding no card more
    than twice in all; ``ValueError`` otherwise."""
    hs = np.stack([tc.parse_counts(h, f"hand {i}") for i, h in enumerate(hands)])
    if hs.shape != (4, NUM_TYPES):
        raise ValueError("trick_state takes four hands")
    if (hs.sum(0) > 2).any():
        raise ValueError("the hands hold some card more than twice")
    return hs


# ---------------------------------------------------------------------------- writing
def action_text(action: int) -> str:
    """An action as text: a card, ``done``, ``pass`` or a declaration."""
    a = int(action)
    if 0 <= a < NUM_TYPES:
        return tc.type_str(a)
    names = {DONE: "done", PASS: "pass", DECL_XJ: "declare XJ XJ", DECL_DJ: "declare DJ DJ"}
    if a in names:
        return names[a]
    if DECL_SINGLE <= a < DECL_PAIR:
        return f"declare {tm.SUIT_SYMBOLS[a - DECL_SINGLE]}"
    if DECL_PAIR <= a < DECL_XJ:
        return f"declare {tm.SUIT_SYMBOLS[a - DECL_PAIR]} pair"
    return f"action {a} (out of range)"


def render(state) -> str:
    """One game's state as lines of text: the level, trump, phase, points, every hand and the
    table (the kitty and the outcome once it is over)."""
    s = jax.device_get(state)
    if np.ndim(s.current_player) != 0:
        raise ValueError("render takes one game, not a batch; index the batch first")
    phases = ["declare", "bury", "chaodi", "tricks", "over"]
    tr = "NT" if int(s.trump) == 4 else tm.SUIT_SYMBOLS[int(s.trump)]
    lines = [f"Tractor  level {tm.RANKS[int(s.level)]}  trump {tr}  dealer {int(s.dealer)}  "
             f"phase {phases[int(s.phase)]}  trick {int(s.trick_no) + 1}  "
             + ("finished" if s.terminated else f"to act: seat {int(s.current_player)}"),
             f"points: attackers {int(s.attacker_points)}  defenders {int(s.defender_points)}"]
    for seat in range(4):
        mark = "*" if seat == int(s.current_player) and not s.terminated else " "
        table = f"   | table: {tc.counts_str(s.trick[seat])}" if s.trick[seat].any() else ""
        lines.append(f"{mark}seat {seat}: {tc.counts_str(s._hands[seat])}" + table)
    if s.terminated:
        lines.append(f"kitty {tc.counts_str(s._kitty)} ({int(s.kitty_points)} points, bonus "
                     f"{int(s.kitty_bonus)}); levels gained {list(map(int, s.level_gain))}")
    return "\n".join(lines)
