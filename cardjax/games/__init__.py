"""One package per game, each with its card (``<game>/spec.py``); :mod:`cardjax.registry` finds them."""
