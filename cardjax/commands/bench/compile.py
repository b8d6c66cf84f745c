"""Compile time as a measured quantity: the cold compile seconds and the size of each main
program a person meets, per game.

    cardjax bench compile                          # every game, printed as a table
    cardjax bench compile --games tractor --json benchmarks/compile_cpu2.json

For each game: the env's step over a batch (``--batch`` games, what a training loop or a
benchmark runs), the arena's match program (the game's default opponent against random,
``--deals`` deals at a time: what ``cardjax arena`` and every trainer's evaluation compile),
each shipped pretrained player's ``act`` on one state (what the web table and a Python loop
compile), and the training step of each self-play training command of the game at the
command's own defaults (what ``python experiments/<command>.py`` compiles before its first
iteration; ``--no-trainers`` skips them).  Each is compiled with the persistent compilation
cache off and JAX's in-memory caches cleared (:func:`cardjax.programs.compile_cost`), so the
figures are what a new machine pays; ``hlo_kb`` is the size of the optimized program's text.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys

import jax
import jax.numpy as jnp

import cardjax
from cardjax import agents, programs, registry
from cardjax.agents import pretrained
from cardjax.cli import positive_int
from cardjax.eval import arena


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="cardjax bench compile",
                                description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--games", nargs="+", default=None, metavar="GAME",
                   help=f"games to measure (default: all: {', '.join(cardjax.GAMES)})")
    p.add_argument("--batch", type=positive_int, default=64, help="games in the step's batch")
    p.add_argument("--deals", type=positive_int, default=8, help="deals of the match program")
    p.add_argument("--no-trainers", dest="trainers", action="store_false",
                   help="skip the training commands' steps")
    p.add_argument("--json", default=None, metavar="FILE", help="also write the rows here")
    args = p.parse_args(argv)
    unknown = sorted(set(args.games or ()) - set(cardjax.GAMES))
    if unknown:
        p.error(f"--games: unknown {', '.join(unknown)}; games: {', '.join(cardjax.GAMES)}")
    return args


def programs_of(game: str, batch: int, deals: int):
    """``(name, fn, args, compiler options)`` of the game's main programs (built lazily, one at a
    time)."""
    env = cardjax.make(game)
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), batch))
    actions = jnp.argmax(states.legal_action_mask, axis=1).astype(jnp.int32)
    yield f"step ({batch} games)", jax.vmap(env.step), (states, actions), None

    spec = registry.spec(game)
    a = agents.get(env, spec.default_opponent or "random")
    b = agents.get(env, "random")
    plan = arena.scheme(env)
    dup = arena.duplicate_states(env, arena.deal_keys(0, deals))
    play = arena.make_play(env, a, b, plan.outcome)
    # the match is a program of its own, with its own compiler options: measured unwrapped
    yield (f"match {a.name} vs {b.name} ({deals} deals)", play.__wrapped__,
           (dup.states, dup.a_seats, jax.random.PRNGKey(1), a.params, b.params),
           programs.playing_options())

    one = env.init(jax.random.PRNGKey(2))
    for name in pretrained.names(game):
        player = agents.get(env, name)
        yield (f"{name}: act on one state", player.act,
               (player.params, jax.random.PRNGKey(3), one), programs.waiting_options())


# The trainers whose commands learn by self-play (``cardjax.train.<trainer>``); the corpus
# trainers' steps read records.
SELF_PLAY = ("alphazero", "dmc")


def training_recipes(game: str) -> list:
    """The training commands of ``game`` whose trainer learns by self-play, as
    :func:`cardjax.commands.main.commands` finds them (their ``TRAINER`` and ``GAME``)."""
    from cardjax.commands import main as commands_main

    found = commands_main.commands(f"{commands_main.PACKAGE}.train", commands_main.HERE / "train")
    return [c for c in found.values() if c.game == game and c.trainer in SELF_PLAY]


def training_programs(game: str):
    """``(name, fn, args, compiler options)`` of the training step of each of
    :func:`training_recipes` at the command's defaults, on one device (built lazily, one at a
    time)."""
    import importlib

    for recipe in training_recipes(game):
        defaults = importlib.import_module(recipe.module).TRAIN_DEFAULTS
        trainer = importlib.import_module(f"cardjax.train.{recipe.trainer}")
        train = trainer.make_train(trainer.Config.from_dict(defaults))
        state = train.init(jax.random.PRNGKey(0))
        # the step is a program of its own with its own compiler options: measured unwrapped
        yield (f"train {recipe.name}: step ({defaults['num_envs']} games)",
               train.step.__wrapped__, (state,), programs.training_options())


def main(argv=None) -> list[dict]:
    args = parse_args(argv)
    device = f"{jax.device_count()} x {jax.devices()[0].device_kind}"
    rows = []
    for game in args.games or cardjax.GAMES:
        measured = programs_of(game, args.batch, args.deals)
        if args.trainers:
            measured = itertools.chain(measured, training_programs(game))
        for name, fn, fn_args, options in measured:
            cost = programs.compile_cost(fn, *fn_args, compiler_options=options)
            rows.append({"game": game, "program": name, **cost, "device": device})
            print(f"{game:14s} {name:48s} {cost['seconds']:7.2f} s {cost['hlo_kb']:9.1f} KB",
                  file=sys.stderr, flush=True)
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    total = sum(r["seconds"] for r in rows)
    print(f"{len(rows)} programs compiled cold in {total:.1f} s on {device}; the slowest: "
          f"{max(rows, key=lambda r: r['seconds'])['program']} "
          f"({max(r['seconds'] for r in rows):.1f} s)", file=sys.stderr)
    return rows
