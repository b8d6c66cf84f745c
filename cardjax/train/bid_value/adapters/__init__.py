"""Games with an auction the bid value trainer can learn (one module each, exporting
``ADAPTER``)."""
