"""A bid value network (``experiments/bid_value.py``) as a bidder's ``value`` setting:
``(value(params, hand) -> (p_win, expected points), params)``, read from an artifact or a run
(its best network) without the trainer."""

from __future__ import annotations


def from_artifact(env, art):
    """The value function and parameters of a read bid value artifact, for ``env``'s hands."""
    from cardjax.nets.bid_value.network import make_value

    if art.game != env.name:
        raise ValueError(f"value: {art.directory} values {art.game} hands, not {env.name}")
    return make_value(art.meta["network"]), art.params
