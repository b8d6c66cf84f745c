"""The card-location network (Solinas, Rebstock and Buro 2019) and what it reads: for every kind
of card a seat cannot see, where it is likely to be.  What a player that draws its worlds from a
trained network needs, and nothing of its trainer: :mod:`~cardjax.nets.card_locations.network`
is the network and its log probabilities, :mod:`~cardjax.nets.card_locations.adapter` and
:mod:`~cardjax.nets.card_locations.adapters` each game's features.  The trainer
(:mod:`cardjax.train.inference`) and the players (:mod:`cardjax.agents.pimc`,
:mod:`cardjax.agents.scrofazero`) both build on these; this package imports neither.
(:mod:`cardjax.inference` draws worlds from any such predictions.)
"""
