"""Dou Dizhu (斗地主): the env and its move table, game records, the rule player and the bidder,
the people's table, and the game's card (:mod:`.spec`).

Nothing is imported here: ``import cardjax.games.doudizhu.env`` (or ``cardjax.make("doudizhu")``)."""
