"""Mr Random: a uniformly random legal action. Works for every game."""

from cardjax.core import Agent


def make(env):
    def act(params, key, state):
        del params
        return env.random_action(key, state)

    return Agent("random", act)
