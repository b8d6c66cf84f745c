"""A state value network (``cardjax train state_value``) as a search's leaf value
(``pimc:value=RUN``): ``value_fn(params, state) -> float[2]`` team values, read from an artifact
or a run (its best network) without the trainer."""

from __future__ import annotations

from cardjax.agents.dmc import zero_sum_team_values


def value_from_artifact(env, art):
    """The team values of a read state value artifact, for ``env``'s positions: the network's
    value for the team of the seat to act, and for the other team the value that keeps the game
    zero-sum (as a DMC player's, :func:`~cardjax.agents.dmc.zero_sum_team_values`)."""
    from cardjax.nets.state_value.network import make_value

    if art.game != env.name:
        raise ValueError(f"value: {art.directory} values {art.game} positions, not {env.name}")
    value = make_value(art.meta["network"], env)
    return lambda params, state: zero_sum_team_values(env, state, value(params, state))
