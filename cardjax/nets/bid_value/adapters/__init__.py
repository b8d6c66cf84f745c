"""Games with an auction a bid value network can learn (one module each, exporting
``ADAPTER``)."""
