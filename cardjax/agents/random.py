"""Mr Random: a uniformly random legal action. Works for every game."""

from cardjax.core import Agent, random_action


def act(params, key, state):
    del params
    return random_action(key, state.legal_action_mask)


def make(env):
    return Agent("random", act)
