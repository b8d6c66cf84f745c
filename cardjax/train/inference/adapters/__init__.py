"""One module per game the inference trainer can learn, each defining ``ADAPTER``
(:class:`cardjax.train.inference.adapter.Adapter`); found by the game's name."""
