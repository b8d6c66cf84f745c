"""The web table: play cardjax's games in a browser against any cardjax player, or watch
players play each other and step through a finished game (``docs/web.md``).

- :mod:`~cardjax.web.app`: the Flask app (the page and the JSON API)
- :mod:`~cardjax.web.tables`: the open tables and the reaper of idle ones
- :mod:`~cardjax.web.live`: one table: its game, lock and the worker that plays its players
- :mod:`~cardjax.web.new_table`: a request for a table, checked (its options too)
- :mod:`~cardjax.web.words`: player words checked: search budgets, the players directories
- :mod:`~cardjax.web.limits`: every bound of a request, and how a refusal quotes what was sent
- :mod:`~cardjax.web.warm`: which tables' programs are ready, how long the others take, and
  warming each game's default table when the server starts
- :mod:`~cardjax.web.serve`: the command (``cardjax serve``, ``python -m cardjax.web``): waitress,
  stopped gracefully
- ``static/``: the page (HTML, CSS and JavaScript; no build step)

The game-facing parts (what a seat sees, legal moves in words, a move as env actions) are
:mod:`cardjax.table`'s, shared with the terminal's ``scripts/play.py``.
"""
