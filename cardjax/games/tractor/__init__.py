"""Tractor (升级): the env and its parts (moves, legal masks, observations, hidden cards, card
text, helpers, whole-unit leads), the rule player, the people's table, the diagnostics, and
the game's card (:mod:`.spec`).

Nothing is imported here: ``import cardjax.games.tractor.env`` (or ``cardjax.make("tractor")``)."""
