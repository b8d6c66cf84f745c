"""Where a search player's worlds come from: uniform over the information set, a card-location
network's predictions (``inference=RUN``), or the true state (``inference="oracle"``, a
measurement of what perfect inference could give, not a fair player).  PIMC, determinized UCT
and ISMCTS take the same ``inference`` setting."""

from __future__ import annotations

import jax

from cardjax.inference import worlds


def _sample_hidden(env):
    def sample_worlds(key, state, seat, n, params=None):
        return jax.vmap(lambda k: env.sample_hidden(k, state, seat))(jax.random.split(key, n))

    return sample_worlds


def _oracle(key, state, seat, n, params=None):
    return jax.tree_util.tree_map(lambda x: jax.numpy.broadcast_to(x, (n,) + x.shape), state)


def sampler(env, inference=None):
    """``(sample_worlds(key, state, seat, n, params) -> n worlds, params, tag)`` for the setting
    ``inference``: None (uniform: drawn exactly where the game describes its hidden cards, else
    ``env.sample_hidden``), ``"oracle"``, or a card-location network (an artifact or an
    ``experiments/inference.py`` run: :func:`load_log_q`).  ``tag`` is what the player's name
    gains ("", "+oracle", "+inference")."""
    if inference is None:
        if env.hidden_space is not None:
            return worlds.sampler(env), None, ""
        return _sample_hidden(env), None, ""
    if inference == "oracle":
        return _oracle, None, "+oracle"
    log_q, params = load_log_q(env, str(inference))
    return worlds.sampler(env, log_q), params, "+inference"


def load_log_q(env, path: str):
    """``(log_q, params)`` of a card-location network for ``env``
    (:func:`cardjax.nets.card_locations.network.log_q_fn`): an artifact directory, or an
    ``experiments/inference.py`` run (its best network), read without the trainer.
    ``ValueError`` when it cannot be read or was trained for another env."""
    from cardjax import artifact, registry
    from cardjax.nets.card_locations import network

    try:
        art = artifact.load(path, "inference")
    except ValueError as e:
        raise ValueError(f"inference: {e} (a card-location network: experiments/inference.py)"
                         ) from None
    trained = registry.make(art.game, **_trained_options(art))
    if repr(trained) != repr(env):
        raise ValueError(f"inference: {path} was trained for {trained!r}, not {env!r}")
    return network.from_config(art.meta["network"], env), art.params


def _trained_options(art) -> dict:
    """The options of the env a card-location network was trained in: its description's, or
    where a run read without an export records none, its corpus's."""
    if art.meta.get("env"):
        return dict(art.meta["env"])
    from cardjax.corpus import store

    try:
        return dict(store.read_manifest(art.meta["network"]["corpus"]).get("options", {}))
    except (KeyError, ValueError):  # no corpus named, or it is gone
        return {}
