"""A trained DeepRocket player: an artifact (:mod:`cardjax.artifact`) or a training run
(``experiments/deeprocket.py --out DIR``: its best network), loaded through
``cardjax.agents.load``.

The policy network chooses the most likely category among those with a legal move, then the
kicker network its kickers, the most likely legal one at a time
(:func:`cardjax.nets.deeprocket.play.choose`); no search, no sampling.  As in the paper, bidding
is not learned: at a table with an auction the player bids as the rule player does (the
paper's bid module is hand-written logic too).
"""

from __future__ import annotations

from cardjax.core import Agent


def from_artifact(env, art, name: str | None = None, **options) -> Agent:
    """The greedy player of a DeepRocket artifact (``cardjax.agents.KINDS``), its networks
    rebuilt from the artifact's config.  It has no play settings: the search players' options
    that ``scripts/arena.py`` passes to every loader are accepted and ignored; others are an
    error."""
    from cardjax.agents.dmc import ARENA_OPTIONS
    from cardjax.nets.deeprocket import play

    unknown = set(options) - ARENA_OPTIONS
    if unknown:
        raise ValueError(f"unknown options {sorted(unknown)} for a DeepRocket player; known: "
                         f"none (ignored: {', '.join(sorted(ARENA_OPTIONS))})")
    config = art.meta["network"]
    game = art.game or config["game"]
    if env.name != game:
        raise ValueError(f"a {game} DeepRocket network cannot play {env.name}")
    nets = play.make_nets(config, env)

    def act(params, key, state):
        del key
        return play.choose(nets, params, state)

    return Agent(name or "deeprocket", act, art.params)
