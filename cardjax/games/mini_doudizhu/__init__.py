"""Mini Dou Di Zhu (Whitehouse et al.'s two-player variant): the env, the exact solver and the
exact players, the people's table, and the game's card (:mod:`.spec`).

Nothing is imported here: ``import cardjax.games.mini_doudizhu.env`` (or ``cardjax.make("mini_doudizhu")``)."""
