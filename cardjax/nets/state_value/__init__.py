"""The state value network: what a search needs to value a whole position (every hand seen) by
a trained network, and nothing of its trainer.  :mod:`~cardjax.nets.state_value.network` is the
network and the value it gives; the trainer (:mod:`cardjax.train.state_value`) and the search's
loader (:mod:`cardjax.agents.state_value`) build on it; this package imports neither.
"""
