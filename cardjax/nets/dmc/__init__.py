"""The Deep Monte Carlo model: what a trained DMC player needs to play, and nothing of its
trainer.  :mod:`~cardjax.nets.dmc.config` is a run's configuration (saved with the run and in a
player's artifact), :mod:`~cardjax.nets.dmc.adapter` and :mod:`~cardjax.nets.dmc.adapters` are
each game as DMC sees it (features, roles, candidate actions), :mod:`~cardjax.nets.dmc.q_net` the
Q network and :mod:`~cardjax.nets.dmc.acting` the kernels that compact the legal moves and score
them.  The trainer (:mod:`cardjax.train.dmc`) and the player (:mod:`cardjax.agents.dmc`) both
build on these; this package imports neither.
"""
