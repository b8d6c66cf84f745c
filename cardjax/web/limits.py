"""The web server's limits in one place, and how a refusal quotes what it was sent.

The bounds are the most a person at the page ever needs, many times over, so that a careless
or hostile client can make the server neither read, compile nor search without end, and a
refusal is one short line: it quotes at most :data:`QUOTE` characters of what it was sent,
once, and never the server's own paths or exception names (docs/web.md, "Limits")."""

from __future__ import annotations

import re

# The largest request body read: a table request is a few hundred bytes (four player words of
# at most MAX_WORD characters each) and a move under one KiB, so 64 KiB is ample headroom while
# parsing stays well under a millisecond and a hundred clients hold a few MiB at most.
MAX_BODY = 64 * 1024
# waitress's own bound, above MAX_BODY: a body it refuses is never read (its 413 is plain text,
# so everything up to here is answered by Flask's JSON 413 instead).
MAX_BODY_READ = 1024 * 1024
MAX_WORD = 200  # characters of a player word ("ismcts:iterations=300", "runs/my-run")
MAX_TEXT = 200  # characters of a move as text ("A♠ A♠ K♠ K♠")
MAX_OPTION = 40  # characters of a string option (the longest real one, "holder_of_S2", is 12)
MAX_CARDS = 64  # card ids in a move or a preview (the largest hand holds 33)
MAX_CARD_ID = 255  # the ids are small numbers (Gongzhu's 0..51, Tractor's 0..53)
MAX_NUMBER = 1e6  # a number option or setting (none needs more)
QUOTE = 60  # characters of a value quoted in a refusal
MAX_MESSAGE = 400  # characters of any refusal

# The search budgets of a player word: a setting over its bound is refused (a 400) before any
# player is built.  Twice the paper's budgets (10,000 iterations a move; 40 trees x 250).
BUDGETS = {
    "iterations": 20_000,  # the UCT players' iterations a tree
    "trees": 64,  # their trees (cheat_uct and det_uct play 40 by default)
    "worlds": 256,  # the PIMC and ScrofaZero players' sampled worlds a move
    "playouts": 64,  # PIMC's playouts a world and candidate
    "candidates": 256,  # PIMC's moves valued
    "b": 256,  # ScrofaZero's simulations a world (b + k per legal move)
    "k": 100,  # UCT's exploration constant, ScrofaZero's simulations a legal move
    "max_simulations": 2_000,  # ScrofaZero's cap on a world's simulations
}
MAX_SEARCH = 20_000  # trees x iterations of a UCT player, its defaults counted


def shown(value) -> str:
    """``value`` as a refusal quotes it: a string or number clipped to :data:`QUOTE`
    characters; a list or object by its kind (never the whole of what was sent)."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= QUOTE else text[:QUOTE - 1] + "…"


# an absolute path ("/home/x/cardjax/agents/dmc.py", "C:\\x"): the server's, never shown
_PATH = re.compile(r"(?<![\w.~-])(?:[A-Za-z]:)?[\\/][^\s'\",;()]*")


def one_line(message: str) -> str:
    """A refusal as sent: on one line, at most :data:`MAX_MESSAGE` characters."""
    text = " ".join(str(message).split())
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + "…"


def public(message: str) -> str:
    """A message of the server's own code (a loader's, an env's) made safe to send: no
    absolute path (the server's files are not the client's business), on one line."""
    return one_line(_PATH.sub("…", str(message)))
