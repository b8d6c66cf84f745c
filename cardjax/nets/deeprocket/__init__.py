"""DeepRocket's networks and what they read: what a trained DeepRocket player needs to play, and
nothing of its trainer.  :mod:`~cardjax.nets.deeprocket.network` is the convolution network,
:mod:`~cardjax.nets.deeprocket.adapter` and :mod:`~cardjax.nets.deeprocket.adapters` each game as
DeepRocket sees it (planes, move categories, kickers), :mod:`~cardjax.nets.deeprocket.play` the
two networks of a run's config and the move they choose.  The trainer
(:mod:`cardjax.train.deeprocket`) and the player (:mod:`cardjax.agents.deeprocket`) both build on
these; this package imports neither.
"""
