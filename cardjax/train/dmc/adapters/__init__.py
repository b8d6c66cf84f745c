"""One module per game that DMC can train, each defining ``ADAPTER``
(:class:`cardjax.train.dmc.adapter.Adapter`); found by the game's name."""
