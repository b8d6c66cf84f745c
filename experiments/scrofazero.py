#!/usr/bin/env python
"""ScrofaZero for Gongzhu — for now a demo of the simulator and its baseline players.

The training run (self-play MCTS, value/policy network, IEC play) is not here yet.  Until it is,
this command shows what it will build on: it plays one Gongzhu game between Mr Greed (seats 0
and 2) and Mr If (seats 1 and 3), printing the table, then duplicate matches between the three
baselines over ``--num_envs`` deals played in parallel: Mr If against Mr Random, and the WPG
(winning points over Mr Greed) of Mr If and of Mr Random.
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp

import cardjax
from cardjax import agents, cards
from cardjax.cli import positive_int
from cardjax.eval import arena


def show_game(env, a, b, seed: int) -> None:
    """Play and print one game, A at seats 0/2 and B at 1/3."""
    state = env.init(jax.random.PRNGKey(seed))
    print(env.render(state))
    step = jax.jit(env.step)
    acts = {name: jax.jit(ag.act) for name, ag in (("a", a), ("b", b))}
    key = jax.random.PRNGKey(seed + 1)
    trick = []
    while not bool(state.terminated):
        key, sub = jax.random.split(key)
        seat = int(state.current_player)
        act = acts["a" if env.teams[seat] == 0 else "b"]
        action = int(act(None, sub, state))
        trick.append(f"{seat}:{cards.card_str(action)}")
        state = step(state, action)
        if int(state.num_played) % 4 == 0:
            print(f"trick {int(state.num_played) // 4:2d}  {'  '.join(trick)}  -> seat "
                  f"{int(state.leader)} takes it")
            trick = []
    print(env.render(state))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num_envs", type=positive_int, default=64,
                        help="deals per match, played in parallel (each in both rotations)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    env = cardjax.make("gongzhu")
    print(f"cardjax {cardjax.__version__} on {jax.devices()[0].platform}: ScrofaZero training is "
          "not implemented yet; showing the Gongzhu simulator and baselines.\n")
    greed, mr_if, rand = (agents.get(env, n) for n in ("greed", "if", "random"))
    show_game(env, greed, mr_if, args.seed)
    print()
    for a, b in ((mr_if, rand), (mr_if, greed), (rand, greed)):
        r = arena.duplicate_match(env, a, b, deals=args.num_envs, seed=args.seed)
        label = f"  WPG of {a.name}" if b.name == "greed" else ""
        print(f"{a.name:>6} vs {b.name:<6} {r['mean']:+7.1f} +- {r['stderr']:5.1f} points per game "
              f"({r['games']} games){label}")


if __name__ == "__main__":
    main()
