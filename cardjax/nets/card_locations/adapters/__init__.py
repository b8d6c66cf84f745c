"""One module per game a card-location network can learn, each defining ``ADAPTER``
(:class:`cardjax.nets.card_locations.adapter.Adapter`); found by the game's name."""
