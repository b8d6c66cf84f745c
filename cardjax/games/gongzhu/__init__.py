"""Gongzhu (拱猪): the env (:mod:`.env`), the people's table, Mr If and Mr Greed, the
ScrofaZero worlds, and the game's card (:mod:`.spec`).

Nothing is imported here: ``import cardjax.games.gongzhu.env`` (or ``cardjax.make("gongzhu")``)."""
