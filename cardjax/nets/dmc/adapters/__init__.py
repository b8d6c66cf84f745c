"""One module per game that DMC can train, each defining ``ADAPTER``
(:class:`cardjax.nets.dmc.adapter.Adapter`); found by the game's name."""
