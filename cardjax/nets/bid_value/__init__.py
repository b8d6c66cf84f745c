"""The bid value network and what it reads: what a bidder needs to bid with a trained network,
and nothing of its trainer.  :mod:`~cardjax.nets.bid_value.network` is the network and the
value a bidder reads, :mod:`~cardjax.nets.bid_value.adapter` and
:mod:`~cardjax.nets.bid_value.adapters` each game's examples and hand features.  The trainer
(:mod:`cardjax.train.bid_value`) and the bidder (:mod:`cardjax.games.doudizhu.bidder`) both build
on these; this package imports neither.
"""
