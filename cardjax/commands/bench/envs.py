#!/usr/bin/env python
"""Random-playout throughput of every cardjax game against batch size, and of its peers.

    python scripts/benchmark.py                        # every game, batch 1 .. 65536, peers
    python scripts/benchmark.py --quick                # CI smoke test: batch 1, 64, 1024, short runs
    python scripts/benchmark.py --games gongzhu --batch-sizes 1,256,4096 --json bench.json

For each game and batch size one jitted function plays random games back to back without
leaving the compiled graph: blocks of ``vmap(env.step)`` steps with uniformly random legal
actions (a ``lax.scan``, unrolled on accelerators), after each block dealing a new game into every
slot whose game ended (``cardjax.core.reset_finished``), inside a ``lax.fori_loop`` over blocks.
The number of blocks is a runtime argument (one compile per batch size); unless ``--steps``
fixes it, it is calibrated so that one timed call lasts about ``--seconds``.

Reported per row: lowering + XLA compile time (timed apart from execution), the first call,
random-playout steps/s (steps of running games / seconds, best of ``--repeats``, after
``block_until_ready``) and games/s (steps/s over the mean game length, which the loop measures
from the ``terminated`` flags and the step counts of the games that end; see
``add_games_per_s``; for Tractor a step is one sub-action and a game is one hand, so games/s is
hands/s, see ``UNITS``). Per game: the size of the jaxpr of one vmapped step, the bytes of one
game's state, and the peers (other simulators of a similar game, timed in the same run when they
are installed; see ``PEERS``): each plays whole random games in one worker process per usable core
(``--peer-processes``) for ``--peer-seconds``, OpenSpiel's inside C++ (``pyspiel.evaluate_bots``),
and is reported in decisions/s and games/s summed over the processes, with cardjax's best steps/s
over its decisions/s.  Tractor's peer is quoted from the ShengJi+ report, not measured.

The batch is split across every local device (``jax.shard_map``) where their number divides it.
On a CPU host, which JAX shows as one device whose operations XLA spreads over its own threads,
``--cpu-devices`` (default: one per usable core) splits the host into that many single-threaded
devices first: each core then plays its own games, as each peer process does, which on the
2-core machine runs ~1.7x the steps/s of one device.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import platform
import sys
import time
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend import core as jex_core

try:  # running as ``python scripts/benchmark.py`` from anywhere
    import cardjax
except ImportError:  # pragma: no cover - the repo is not installed
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import cardjax
from cardjax.cli import positive_float, positive_int, run_command
from cardjax.core import reset_finished

DEFAULT_BATCH_SIZES = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536)
QUICK_BATCH_SIZES = (1, 64, 1024)
DEFAULT_SECONDS = 1.0  # target length of one timed call
QUICK_SECONDS = 0.2
DEFAULT_PEER_SECONDS = 2.5
QUICK_PEER_SECONDS = 0.5
MAX_STEPS = 1_000_000  # per call, whatever the calibration says


# ---------------------------------------------------------------------------------- cardjax
# Steps per compiled block: whole games for fixed-length games, so no slot idles. For games of
# varying length a short block wastes fewer steps on slots whose game ended mid-block, a long one
# deals less often: Dou Dizhu (random games ~61 steps, a deal costs about one step) is fastest
# with 8 on a 2-core CPU; Mini Dou Di Zhu (~14 steps, a cheap deal) with 16.  Tractor: a random
# hand is ~275 sub-actions (104 declaration turns, 8 burials, chaodi, ~160 card sub-actions and
# "done"s); blocks of 16..128 measured within noise on a shared 2-core CPU, 32 kept.
BLOCK = {"gongzhu": 52, "doudizhu": 8, "mini_doudizhu": 16, "tractor": 32}
DEFAULT_BLOCK = 32
# What one step and one game are, for games where a step is not a whole move (printed and in the
# JSON report under games[name]["units"]); the default is one move and one game.
UNITS = {"tractor": {"step": "sub-action (a declaration or pass, one buried card, one card of a "
                             "move, or 'done')", "game": "hand"}}
# A batch size is skipped (and said so) where one game slot's state times this factor (the
# step's intermediates, such as the eight 3.4 kB rows Dou Dizhu ORs into its legal words) would
# pass a quarter of the memory: host RAM on CPU, the device's memory elsewhere.
SLOT_BYTES_FACTOR = 16
MEMORY_FRACTION = 0.25


def state_bytes(env) -> int:
    """Bytes of one game's state (shapes only, nothing is computed)."""
    shapes = jax.eval_shape(env.init, jax.random.key(0))
    return sum(math.prod(x.shape) * x.dtype.itemsize for x in jax.tree_util.tree_leaves(shapes))


def memory_bytes() -> int | None:
    """Memory the batch may use: the device's limit, or the host's RAM on CPU."""
    dev = jax.devices()[0]
    if dev.platform != "cpu":
        try:
            return int(dev.memory_stats()["bytes_limit"])
        except Exception:
            return None
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def max_batch(env) -> int | None:
    """The largest power-of-two batch whose states fit the memory rule above (None: no limit known)."""
    mem = memory_bytes()
    if mem is None:
        return None
    slots = mem * MEMORY_FRACTION / (state_bytes(env) * SLOT_BYTES_FACTOR)
    return 2 ** int(math.floor(math.log2(max(slots, 1))))


def make_playout(env, block: int, unroll: int, devices=None) -> Callable:
    """``run(state, key, num_blocks) -> (state, key, finished, their_steps, real_steps)``, jitted.

    A block is a ``lax.scan`` of ``block`` steps of ``vmap(env.step)`` with a random legal action
    in every game; after each block ``cardjax.core.reset_finished`` deals new games into the
    slots whose game ended.  Only steps of games still running count (``real_steps``): a slot
    that finished mid-block idles until the block ends and its no-op steps are not counted.
    With several ``devices`` the batch is split evenly across them (``jax.shard_map``), each
    device playing its own games with its own random numbers, and the counts are summed.
    """
    step = jax.vmap(env.step)
    act = jax.vmap(env.random_action)

    def one(carry, _):
        state, key, finished, length, real = carry
        key, k_act = jax.random.split(key)
        action = act(jax.random.split(k_act, state.terminated.shape[0]), state)
        live = ~state.terminated
        state = step(state, action)
        ended = live & state.terminated
        finished = finished + jnp.sum(ended, dtype=jnp.int32)
        length = length + jnp.sum(jnp.where(ended, state.step_count, 0), dtype=jnp.int32)
        real = real + jnp.sum(live, dtype=jnp.int32)
        return (state, key, finished, length, real), None

    def body(_, carry):
        carry, _ = jax.lax.scan(one, carry, None, length=block, unroll=unroll)
        state, key, *counts = carry
        key, k_deal = jax.random.split(key)
        return (reset_finished(state, env.init, k_deal), key, *counts)

    def run(state, key, num_blocks):
        zero = jnp.int32(0)
        return jax.lax.fori_loop(0, num_blocks, body, (state, key, zero, zero, zero))

    # No buffer donation: a fresh deal may hold one constant buffer in several fields, and
    # donating it twice is an error on accelerators.
    if devices is None or len(devices) == 1:
        return jax.jit(run)
    mesh = jax.sharding.Mesh(np.asarray(devices), ("games",))
    games, whole = jax.sharding.PartitionSpec("games"), jax.sharding.PartitionSpec()

    def shard(state, key, num_blocks):
        state, _, *counts = run(state, jax.random.fold_in(key, jax.lax.axis_index("games")),
                                num_blocks)
        return (state, *(jax.lax.psum(c, "games") for c in counts))

    sharded = jax.shard_map(shard, mesh=mesh, in_specs=(games, whole, whole),
                            out_specs=(games, whole, whole, whole), check_vma=False)

    def run_sharded(state, key, num_blocks):
        key, sub = jax.random.split(key)
        state, *counts = sharded(state, sub, num_blocks)
        return (state, key, *counts)

    return jax.jit(run_sharded)


def playout_devices(batch: int) -> list:
    """The devices one batch is split across: every local device of the default backend when
    they divide the batch evenly, else the first alone."""
    devices = jax.local_devices()
    return devices if batch % len(devices) == 0 else devices[:1]


def use_cpu_devices(n: int) -> int:
    """Split the host CPU into ``n`` XLA devices (before JAX starts its backends; afterwards the
    count it started with stays). Returns the count in force."""
    from jax._src import xla_bridge

    if not xla_bridge.backends_are_initialized():
        jax.config.update("jax_num_cpu_devices", n)
    return len(jax.devices("cpu"))


def _count_eqns(jaxpr) -> int:
    """Equations of a jaxpr, counting those of nested jaxprs (pjit, cond, scan, ...)."""
    n = 0
    for eqn in jaxpr.eqns:
        n += 1
        for p in eqn.params.values():
            for sub in p if isinstance(p, (list, tuple)) else (p,):
                if isinstance(sub, jex_core.ClosedJaxpr):
                    n += _count_eqns(sub.jaxpr)
                elif isinstance(sub, jex_core.Jaxpr):
                    n += _count_eqns(sub)
    return n


def jaxpr_size(env, batch: int = 8) -> dict:
    """Equations in the jaxpr of one vmapped ``env.step`` and of one vmapped playout step
    (random action + auto-reset step): top level and with nested jaxprs expanded."""
    keys = jax.random.split(jax.random.key(0), batch)
    state = jax.vmap(env.init)(keys)
    action = jnp.zeros(batch, jnp.int32)
    step = jax.vmap(env.step)
    auto = jax.vmap(cardjax.auto_reset(env.step, env.init))

    def playout_step(state, keys):
        return auto(state, jax.vmap(env.random_action)(keys, state), keys)

    j_step = jax.make_jaxpr(step)(state, action)
    j_play = jax.make_jaxpr(playout_step)(state, keys)
    return {
        "step": len(j_step.jaxpr.eqns),
        "step_total": _count_eqns(j_step.jaxpr),
        "playout_step": len(j_play.jaxpr.eqns),
        "playout_step_total": _count_eqns(j_play.jaxpr),
    }


def _timed(fn, *args):
    t = time.perf_counter()
    out = jax.block_until_ready(fn(*args))
    return out, time.perf_counter() - t


def bench_cardjax(env, batch: int, steps: int | None, repeats: int, seconds: float,
                  seed: int = 0) -> dict:
    """Time random playouts of ``env`` at one batch size; see the module docstring."""
    block = BLOCK.get(env.name, DEFAULT_BLOCK)
    # Unrolling the block helps accelerators (fewer loop iterations) and slows CPUs down.
    unroll = 1 if jax.devices()[0].platform == "cpu" else 4
    devices = playout_devices(batch)
    run = make_playout(env, block, unroll, devices)
    key_init, key = jax.random.split(jax.random.key(seed))
    state = jax.vmap(env.init)(jax.random.split(key_init, batch))
    if len(devices) > 1:
        spec = jax.sharding.PartitionSpec("games")
        mesh = jax.sharding.Mesh(np.asarray(devices), ("games",))
        state = jax.device_put(state, jax.sharding.NamedSharding(mesh, spec))
    state = jax.block_until_ready(state)

    n = jnp.int32(1)
    t = time.perf_counter()
    lowered = run.lower(state, key, n)
    lower_s = time.perf_counter() - t
    t = time.perf_counter()
    compiled = lowered.compile()
    compile_s = time.perf_counter() - t

    # First call: also calibrates the number of blocks per timed call.
    blocks = None if steps is None else max(1, -(-steps // block))
    n0 = blocks if blocks is not None else int(np.clip(2 ** 14 // (batch * block), 1, 256))
    (state, key, fin, length, _), first_s = _timed(compiled, state, key, jnp.int32(n0))
    finished, game_steps = int(fin), int(length)
    if blocks is None:  # calibrate on a second, warm call
        (state, key, fin, length, _), warm_s = _timed(compiled, state, key, jnp.int32(n0))
        finished, game_steps = finished + int(fin), game_steps + int(length)
        per_block = max(warm_s, 1e-6) / n0
        blocks = int(np.clip(round(seconds / per_block), 1, MAX_STEPS // block))

    best, best_real = math.inf, 0
    for _ in range(repeats):
        (state, key, fin, length, real), dt = _timed(compiled, state, key, jnp.int32(blocks))
        if dt < best:
            best, best_real = dt, int(real)
        finished += int(fin)
        game_steps += int(length)
    return {
        "batch": batch,
        "devices": len(devices),
        "steps_per_call": blocks * block,
        "block": block,
        "unroll": unroll,
        "lower_s": lower_s,
        "compile_s": compile_s,
        "first_call_s": first_s,
        "best_call_s": best,
        # steps of running games only; idle slots of finished games are not counted
        "steps_per_s": best_real / best,
        # every game that ended during this row's calls, and the steps those games lasted
        "games_finished": finished,
        "finished_games_steps": game_steps,
    }


def add_games_per_s(rows: list[dict]) -> float | None:
    """Fill ``games_per_s`` = steps/s / mean game length, for rows of one game.

    Games in a batch start together, so the number ending within one short timed call is
    lumpy (for a fixed-length game: all or none); the long-run rate is steps/s divided by the
    mean length of a game. That length comes from the games finished in the row itself, or,
    where none finished (large batches, short calls), from those of all rows of the game.
    Returns the pooled mean game length (None if no game finished at all).
    """
    # A row whose calls are shorter than most games (large batches of a long game) sees only the
    # games that end early: its own mean length is biased low, so it is used only where the row
    # finished at least one game per slot.
    full = [r for r in rows if r["games_finished"] >= r["batch"]] or rows
    total_games = sum(r["games_finished"] for r in full)
    total_steps = sum(r["finished_games_steps"] for r in full)
    pooled = total_steps / total_games if total_games else None
    for r in rows:
        if r["games_finished"] >= r["batch"] or (r["games_finished"] and pooled is None):
            r["mean_game_length"] = r["finished_games_steps"] / r["games_finished"]
            r["games_per_s_source"] = "this row"
        elif pooled is not None:
            r["mean_game_length"] = pooled
            r["games_per_s_source"] = "mean game length of the other rows"
        else:
            r["mean_game_length"] = None
            r["games_per_s_source"] = "no game finished"
        r["games_per_s"] = r["steps_per_s"] / r["mean_game_length"] if r["mean_game_length"] else None
    return pooled


# ---------------------------------------------------------------------------------- peers
# Every measured peer plays whole games with uniformly random legal moves in ``processes``
# worker processes at once (default: one per usable core), each for ``seconds`` after all of them
# are ready; decisions/s and games/s are summed over the processes.  A worker is a fresh
# ``python -c`` running only the peer's setup function (its source, see ``_run_peer``): it imports
# the peer package but neither JAX nor this script, and nothing is forked from a process that
# holds JAX's threads.
#
# Hearts in OpenSpiel: with ``pass_cards=False`` the first chance node (the pass direction) has
# one legal action, "no pass" (0), but ``chance_outcomes()`` still offers all four directions, so
# a game whose chance nodes are sampled (``evaluate_bots`` does, and so did the Python loop here
# before) passes cards three games in four (64 decisions instead of 52).  The peers apply "no
# pass" first, so that a game is 52 card plays like Gongzhu.
HEARTS_NO_PASS = (0,)
# Share of ``seconds`` each ``evaluate_bots`` worker spends, after the timed games, playing
# further games the same way to count their decisions (evaluate_bots returns only the returns).
COUNT_SHARE = 0.25
TRACTOR_QUOTE = {
    "games_per_s": 20.0,
    "processes": 1,
    "note": "ShengJi+ report's Python environment, quoted, not re-measured: no installable "
            "Tractor engine",
}


class PeerError(RuntimeError):
    """A peer's worker process failed."""


def peer_processes_default() -> int:
    """Usable cores: the affinity mask where the OS has one, else ``os.cpu_count()``."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def _play_for(play_game, seconds):
    """Call ``play_game() -> decisions`` until ``seconds`` have passed (at least once)."""
    import time

    decisions = games = 0
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while True:
        decisions += play_game()
        games += 1
        if time.perf_counter() >= deadline:
            break
    return {"decisions": decisions, "games": games, "seconds": time.perf_counter() - t0}


def _openspiel_whole_games_worker(name, params, prefix, seed, count_share):
    """Worker: OpenSpiel games played whole in C++ by ``pyspiel.evaluate_bots`` with uniform
    random bots (chance nodes sampled in C++).  The timed games are not looked at; afterwards,
    for ``count_share`` of the time, further games are played the same way and their decisions
    (history entries of a player, not of chance) counted."""
    import random
    import time

    import pyspiel

    game = pyspiel.load_game(name, params)
    rng = random.Random(seed)
    bots = [pyspiel.make_uniform_random_bot(p, rng.getrandbits(31))
            for p in range(game.num_players())]
    root = game.new_initial_state()
    for action in prefix:
        assert action in root.legal_actions(), (action, root.legal_actions())
        root.apply_action(action)

    def run(seconds):
        evaluate, clone, seeds = pyspiel.evaluate_bots, root.clone, rng.getrandbits
        games = 0
        t0 = time.perf_counter()
        deadline = t0 + seconds
        while True:
            evaluate(clone(), bots, seeds(31))
            games += 1
            if time.perf_counter() >= deadline:
                break
        dt = time.perf_counter() - t0
        counted = decisions = 0
        deadline = time.perf_counter() + count_share * seconds
        while True:
            state = clone()
            evaluate(state, bots, seeds(31))
            decisions += sum(1 for pa in state.full_history() if pa.player >= 0)
            counted += 1
            if time.perf_counter() >= deadline:
                break
        return {"games": games, "seconds": dt, "counted_games": counted,
                "counted_decisions": decisions}

    return run


def _openspiel_python_loop_worker(name, params, prefix, seed):
    """Worker: OpenSpiel games stepped from a Python loop, one pyspiel call per action; chance
    nodes sampled from their outcome probabilities, every decision counted."""
    import random

    import pyspiel

    game = pyspiel.load_game(name, params)
    rng = random.Random(seed)
    root = game.new_initial_state()
    for action in prefix:
        root.apply_action(action)

    def play_game():
        state, decisions = root.clone(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(actions, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
        return decisions

    return lambda seconds: _play_for(play_game, seconds)


def _rlcard_doudizhu_worker(api, seed):
    """Worker: RLCard's Dou Dizhu from ``rlcard.make('doudizhu')``, random legal actions.
    ``api="env"``: ``env.reset``/``env.step`` (with the observation encoding an agent gets);
    ``api="game"``: the env's game engine, ``env.game.init_game``/``env.game.step``."""
    import random

    import rlcard

    env = rlcard.make("doudizhu", config={"seed": seed})
    game = env.game
    rng = random.Random(seed)

    def play_env():
        state, _ = env.reset()
        decisions = 0
        while not env.is_over():
            state, _ = env.step(rng.choice(list(state["legal_actions"])))
            decisions += 1
        return decisions

    def play_game():
        state, _ = game.init_game()
        decisions = 0
        while not game.is_over():
            state, _ = game.step(rng.choice(state["actions"]))
            decisions += 1
        return decisions

    play = {"env": play_env, "game": play_game}[api]
    return lambda seconds: _play_for(play, seconds)


def _douzero_worker(seed):
    """Worker: DouZero's pure-Python ``douzero.env.game.GameEnv`` (torch not needed), random
    legal moves; deals as DouZero's ``Env.reset`` does (landlord 20 cards, no bidding)."""
    import random

    from douzero.env.game import GameEnv

    rng = random.Random(seed)

    class RandomPlayer:
        def act(self, infoset):
            return rng.choice(infoset.legal_actions)

    deck = [r for r in range(3, 15) for _ in range(4)] + [17] * 4 + [20, 30]
    env = GameEnv({pos: RandomPlayer() for pos in ("landlord", "landlord_up", "landlord_down")})

    def play_game():
        cards = deck.copy()
        rng.shuffle(cards)
        env.reset()
        env.card_play_init({
            "landlord": sorted(cards[:20]), "landlord_up": sorted(cards[20:37]),
            "landlord_down": sorted(cards[37:54]), "three_landlord_cards": sorted(cards[17:20]),
        })
        decisions = 0
        while not env.game_over:
            env.step()
            decisions += 1
        return decisions

    return lambda seconds: _play_for(play_game, seconds)


# What a worker process runs after the source of ``_play_for`` and of its setup function:
# set up, say "ready", wait for "go" on stdin, play for the given seconds, print the counts.
_WORKER_MAIN = """
import json, sys
_spec = json.loads(sys.argv[1])
_run = {setup}(**_spec["kwargs"])
print("ready", flush=True)
sys.stdin.readline()
print(json.dumps(_run(_spec["seconds"])), flush=True)
"""


def _run_peer(setup: Callable, kwargs: dict, seconds: float, processes: int | None,
              seed: int) -> dict:
    """Run ``setup(**kwargs, seed=...)`` in ``processes`` worker processes at once and sum their
    rates.  Worker ``i`` gets seed ``seed * 1000 + i``; all start playing together once every
    one is set up.  Decisions are the workers' own counts or, for workers that only count them
    on further games (``counted_games``), games x the pooled mean decisions per game."""
    import inspect
    import subprocess
    import tempfile
    import textwrap

    processes = processes or peer_processes_default()
    source = "\n".join(textwrap.dedent(inspect.getsource(f)) for f in (_play_for, setup))
    source += _WORKER_MAIN.format(setup=setup.__name__)
    # one core each: no BLAS or OpenMP thread pools inside a worker
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    procs = []
    try:
        for i in range(processes):
            spec = {"kwargs": {**kwargs, "seed": seed * 1000 + i}, "seconds": seconds}
            err = tempfile.TemporaryFile(mode="w+")
            proc = subprocess.Popen([sys.executable, "-c", source, json.dumps(spec)],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                    text=True, env=env)
            procs.append((proc, err))

        def fail(proc, err):
            proc.wait()
            err.seek(0)
            lines = err.read().strip().splitlines()
            raise PeerError(f"{setup.__name__} worker exited with status {proc.returncode}"
                            + (f": {lines[-1]}" if lines else ""))

        def last_line(proc, err, done):
            # lines a peer package prints itself are skipped
            while True:
                line = proc.stdout.readline()
                if not line:
                    fail(proc, err)
                if done(line.strip()):
                    return line.strip()

        for proc, err in procs:
            last_line(proc, err, lambda line: line == "ready")
        for proc, _ in procs:  # go
            proc.stdin.write("go\n")
            proc.stdin.flush()
        results = []
        for proc, err in procs:
            results.append(json.loads(last_line(proc, err, lambda line: line.startswith("{"))))
            proc.wait()
    finally:
        for proc, err in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            err.close()

    if all("decisions" in r for r in results):
        mean = sum(r["decisions"] for r in results) / sum(r["games"] for r in results)
        counted = "every decision of every timed game"
    else:
        counted_games = sum(r["counted_games"] for r in results)
        mean = sum(r["counted_decisions"] for r in results) / counted_games
        counted = (f"games/s x {mean:.2f} decisions per game, the mean of {counted_games:,} "
                   "further games played the same way after the timed ones (untimed), counted "
                   "from each finished game's history")
    per_process = []
    for r in results:
        games_per_s = r["games"] / r["seconds"]
        decisions = r["decisions"] if "decisions" in r else r["games"] * mean
        per_process.append({"decisions_per_s": decisions / r["seconds"],
                            "games_per_s": games_per_s, "games": r["games"],
                            "seconds": r["seconds"]})
    decisions_per_s = sum(p["decisions_per_s"] for p in per_process)
    games_per_s = sum(p["games_per_s"] for p in per_process)
    return {
        "measured": True,
        "processes": processes,
        "decisions_per_s": decisions_per_s,
        "games_per_s": games_per_s,
        "decisions_per_s_per_process": decisions_per_s / processes,
        "games_per_s_per_process": games_per_s / processes,
        "mean_decisions_per_game": mean,
        "decisions_counted": counted,
        "games": sum(r["games"] for r in results),
        "seconds": seconds,
        "per_process": per_process,
    }


def _peer(setup: Callable, kwargs: dict, package: str, dist: str, seconds: float, seed: int,
          processes: int | None, note: str) -> dict:
    """``_run_peer`` after importing ``package`` here (so that a missing peer raises
    ImportError, and is reported as not installed), with the peer's version and note."""
    __import__(package)
    res = _run_peer(setup, kwargs, seconds, processes, seed)
    return {**res, "version": _version(dist), "note": note}


def bench_openspiel_hearts(seconds: float, seed: int = 0, processes: int | None = None) -> dict:
    """OpenSpiel's C++ Hearts, whole games in C++ (``pyspiel.evaluate_bots``, uniform random
    bots), one process per core.  No card passing (see ``HEARTS_NO_PASS``): 52 decisions a game."""
    return _peer(_openspiel_whole_games_worker,
                 {"name": "hearts", "params": {"pass_cards": False}, "prefix": HEARTS_NO_PASS,
                  "count_share": COUNT_SHARE},
                 "pyspiel", "open_spiel", seconds, seed, processes,
                 "whole games in C++: pyspiel.evaluate_bots with make_uniform_random_bot, deal "
                 "sampled in C++; pass_cards=False with 'no pass' applied first; decisions = games "
                 "x mean decisions/game, counted from the histories of further games played the "
                 "same way after the timed ones")


def bench_openspiel_doudizhu(seconds: float, seed: int = 0, processes: int | None = None) -> dict:
    """OpenSpiel's C++ ``dou_dizhu`` (default parameters), whole games in C++
    (``pyspiel.evaluate_bots``, uniform random bots), one process per core.  Its own bidding
    comes first: every decision counts, bids and passes included; chance nodes (the deal, the
    first bidder) do not."""
    return _peer(_openspiel_whole_games_worker,
                 {"name": "dou_dizhu", "params": {}, "prefix": (), "count_share": COUNT_SHARE},
                 "pyspiel", "open_spiel", seconds, seed, processes,
                 "whole games in C++: pyspiel.evaluate_bots with make_uniform_random_bot, deal "
                 "sampled in C++; bids counted; decisions = games x mean decisions/game, counted "
                 "from the histories of further games played the same way after the timed ones")


def bench_openspiel_hearts_python_loop(seconds: float, seed: int = 0,
                                       processes: int | None = None) -> dict:
    """The old figure: OpenSpiel's Hearts stepped from a Python loop (pyspiel's call overhead)."""
    return _peer(_openspiel_python_loop_worker,
                 {"name": "hearts", "params": {"pass_cards": False}, "prefix": HEARTS_NO_PASS},
                 "pyspiel", "open_spiel", seconds, seed, processes,
                 "secondary: stepped from a Python loop, one pyspiel call per action (measures "
                 "the binding's overhead, not C++); no passing")


def bench_openspiel_doudizhu_python_loop(seconds: float, seed: int = 0,
                                         processes: int | None = None) -> dict:
    """The old figure: OpenSpiel's ``dou_dizhu`` stepped from a Python loop."""
    return _peer(_openspiel_python_loop_worker,
                 {"name": "dou_dizhu", "params": {}, "prefix": ()},
                 "pyspiel", "open_spiel", seconds, seed, processes,
                 "secondary: stepped from a Python loop, one pyspiel call per action (measures "
                 "the binding's overhead, not C++); bids counted")


def bench_rlcard_doudizhu(seconds: float, seed: int = 0, processes: int | None = None) -> dict:
    """RLCard's pure-Python Dou Dizhu engine (``rlcard.make('doudizhu').game``), random legal
    actions, one process per core.  No bidding (RLCard's seat 0 is always the landlord)."""
    return _peer(_rlcard_doudizhu_worker, {"api": "game"}, "rlcard", "rlcard", seconds, seed,
                 processes, "pure Python: rlcard.make('doudizhu').game, init_game/step, random "
                 "legal actions, no observation encoding; no bidding")


def bench_rlcard_doudizhu_env(seconds: float, seed: int = 0,
                              processes: int | None = None) -> dict:
    """RLCard's Dou Dizhu env (``rlcard.make('doudizhu')``) through ``reset``/``step``, which
    also encode the observation and the legal actions for an agent."""
    return _peer(_rlcard_doudizhu_worker, {"api": "env"}, "rlcard", "rlcard", seconds, seed,
                 processes, "pure Python: rlcard.make('doudizhu'), env.reset/env.step with "
                 "observation encoding, random legal actions; no bidding")


def bench_douzero(seconds: float, seed: int = 0, processes: int | None = None) -> dict:
    """DouZero's pure-Python ``GameEnv`` (``pip install --no-deps douzero``: only
    ``douzero.env.game`` is used, torch is not needed), random legal moves, one process per
    core.  Every ``GameEnv.step`` (one move, pass included) is a decision; no bidding."""
    return _peer(_douzero_worker, {}, "douzero.env.game", "douzero", seconds, seed, processes,
                 "pure Python: douzero.env.game.GameEnv, random legal moves; no bidding")


def cite_shengji_plus(seconds: float = 0.0, seed: int = 0, processes: int | None = None) -> dict:
    """The ShengJi+ report's Python Tractor environment, quoted (about 20 hands/s on one core),
    not measured: no Tractor engine can be installed from PyPI."""
    return {"measured": False, "decisions_per_s": None, "version": None, **TRACTOR_QUOTE}


def peer_ratio(best: dict, res: dict) -> tuple[float | None, str | None]:
    """(cardjax best / peer, what was divided): steps/s over the peer's decisions/s, or for a
    peer known only in games/s, cardjax's games/s at its best batch over the peer's games/s."""
    if res.get("decisions_per_s"):
        return best["steps_per_s"] / res["decisions_per_s"], "steps/s / decisions/s"
    if res.get("games_per_s") and best.get("games_per_s"):
        return best["games_per_s"] / res["games_per_s"], "games/s / games/s"
    return None, None


# game -> [(peer name, fn(seconds, seed=, processes=) -> dict)]; a peer whose package cannot be
# imported is skipped with a note.  Mini Dou Di Zhu has no peer simulator.  Rows marked
# "secondary" are the old way of driving OpenSpiel, kept for comparison.
PEERS: dict[str, list[tuple[str, Callable[..., dict]]]] = {
    "gongzhu": [("open_spiel hearts", bench_openspiel_hearts),
                ("open_spiel hearts, Python loop", bench_openspiel_hearts_python_loop)],
    "doudizhu": [("open_spiel dou_dizhu", bench_openspiel_doudizhu),
                 ("open_spiel dou_dizhu, Python loop", bench_openspiel_doudizhu_python_loop),
                 ("rlcard doudizhu game", bench_rlcard_doudizhu),
                 ("rlcard doudizhu env", bench_rlcard_doudizhu_env),
                 ("douzero GameEnv", bench_douzero)],
    "tractor": [("ShengJi+ Python env (quoted)", cite_shengji_plus)],
}


def _version(dist: str) -> str | None:
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:
        return None


# ---------------------------------------------------------------------------------- CLI
def _batch_sizes(text: str) -> list[int]:
    sizes = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            v = int(part)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"batch size {part!r} is not an integer (expected e.g. 1,64,1024)") from None
        if v <= 0:
            raise argparse.ArgumentTypeError(f"batch size must be positive, got {v}")
        sizes.append(v)
    if not sizes:
        raise argparse.ArgumentTypeError("no batch sizes given (expected e.g. 1,64,1024)")
    return sizes


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="benchmark.py",
        description="Random-playout steps/s of cardjax games against batch size, and of peers.",
    )
    p.add_argument("--games", default=",".join(cardjax.GAMES),
                   help=f"comma-separated games (default: all: {','.join(cardjax.GAMES)})")
    p.add_argument("--batch-sizes", type=_batch_sizes, default=None,
                   help="comma-separated batch sizes (default: "
                   f"{','.join(map(str, DEFAULT_BATCH_SIZES))}; with --quick "
                   f"{','.join(map(str, QUICK_BATCH_SIZES))})")
    p.add_argument("--steps", type=positive_int, default=None,
                   help="steps per timed call (default: calibrated so a call lasts --seconds)")
    p.add_argument("--seconds", type=positive_float, default=None,
                   help=f"target length of one timed call when --steps is not given "
                   f"(default {DEFAULT_SECONDS}, --quick {QUICK_SECONDS})")
    p.add_argument("--repeats", type=positive_int, default=None,
                   help="timed calls per batch size, the best is kept (default 3, --quick 2)")
    p.add_argument("--peers", action=argparse.BooleanOptionalAction, default=True,
                   help="time the installed peer simulators too (default: yes)")
    p.add_argument("--peer-seconds", type=positive_float, default=None,
                   help=f"seconds per peer (default {DEFAULT_PEER_SECONDS}, "
                   f"--quick {QUICK_PEER_SECONDS})")
    p.add_argument("--peer-processes", type=positive_int, default=None,
                   help="worker processes per measured peer, all playing at once (default: one "
                   f"per usable core, {peer_processes_default()} here)")
    p.add_argument("--cpu-devices", type=positive_int, default=None,
                   help="XLA devices the host CPU is split into when cardjax runs on it, the "
                   "batch sharded across them (default: one per usable core, "
                   f"{peer_processes_default()} here, as the peers run one process per core; "
                   "1: a single device using XLA's own threads)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", metavar="PATH", default=None, help="write every number to PATH")
    p.add_argument("--quick", action="store_true",
                   help="smoke test: small batch sizes and short calls")
    return p


def parse_args(argv=None) -> argparse.Namespace:
    parser = build_parser()
    args = parser.parse_args(argv)
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    if not games:
        parser.error("--games: no game named")
    unknown = [g for g in games if g not in cardjax.GAMES]
    if unknown:
        parser.error(f"--games: unknown game(s) {', '.join(map(repr, unknown))}; "
                     f"available: {', '.join(cardjax.GAMES)}")
    args.games = list(dict.fromkeys(games))
    if args.batch_sizes is None:
        args.batch_sizes = list(QUICK_BATCH_SIZES if args.quick else DEFAULT_BATCH_SIZES)
    if args.seconds is None:
        args.seconds = QUICK_SECONDS if args.quick else DEFAULT_SECONDS
    if args.repeats is None:
        args.repeats = 2 if args.quick else 3
    if args.peer_seconds is None:
        args.peer_seconds = QUICK_PEER_SECONDS if args.quick else DEFAULT_PEER_SECONDS
    if args.peer_processes is None:
        args.peer_processes = peer_processes_default()
    if args.cpu_devices is None:
        args.cpu_devices = peer_processes_default()
    if args.json is not None:
        parent = os.path.dirname(os.path.abspath(args.json))
        if not os.path.isdir(parent):
            parser.error(f"--json: directory {parent!r} does not exist")
    return args


def describe_device() -> dict:
    dev = jax.devices()[0]
    return {
        "platform": dev.platform,
        "device_kind": dev.device_kind,
        "device_count": jax.device_count(),
        "local_device_count": jax.local_device_count(),
        "cpu_count": os.cpu_count(),
        "processor": platform.processor() or platform.machine(),
    }


def _fmt_rate(x: float) -> str:
    if x >= 1e9:
        return f"{x / 1e9:.2f} G"
    if x >= 1e6:
        return f"{x / 1e6:.2f} M"
    if x >= 1e3:
        return f"{x / 1e3:.1f} k"
    return f"{x:.0f} "


def print_peer(peer: str, res: dict, game_unit: str = "game") -> None:
    """Lines of one peer in the per-game summary: its rates (summed over its processes, and per
    process), how its decisions were counted, and cardjax's best over it."""
    if "skipped" in res:
        print(f"  peer {peer}: skipped, {res['skipped']}")
        return
    if not res.get("measured", True):
        rate = (f"{_fmt_rate(res['decisions_per_s'])}decisions/s, " if res.get("decisions_per_s")
                else "")
        print(f"  peer {peer}: {rate}{_fmt_rate(res['games_per_s'])}{game_unit}s/s on "
              f"{res['processes']} core{'s' if res['processes'] > 1 else ''}, cited, NOT "
              f"measured ({res['note']})")
    else:
        n = res["processes"]
        print(f"  peer {peer}: {_fmt_rate(res['decisions_per_s'])}decisions/s, "
              f"{_fmt_rate(res['games_per_s'])}{game_unit}s/s in {n} process{'es' if n > 1 else ''}"
              f" ({_fmt_rate(res['decisions_per_s_per_process'])}decisions/s, "
              f"{_fmt_rate(res['games_per_s_per_process'])}{game_unit}s/s per process); "
              f"{res['mean_decisions_per_game']:.1f} decisions/{game_unit}")
        print(f"    {res['note']}")
    if res.get("ratio") is not None:
        basis = res["ratio_basis"].replace("games/s", f"{game_unit}s/s")
        ratio = f"{res['ratio']:,.0f}" if res["ratio"] >= 100 else f"{res['ratio']:.3g}"
        print(f"    cardjax best / {peer} = {ratio}x ({basis})")


def print_report(report: dict, args) -> None:
    header = (f"{'game':<10} {'batch':>7} {'steps/call':>10} {'steps/s':>11} {'games/s':>10} "
              f"{'compile s':>9} {'1st call s':>10}")
    print(header)
    print("-" * len(header))
    for r in report["rows"]:
        games = _fmt_rate(r["games_per_s"]) if r["games_per_s"] is not None else "n/a"
        if r["games_per_s_source"] != "this row":
            games = games.rstrip() + "*"
        print(f"{r['game']:<10} {r['batch']:>7} {r['steps_per_call']:>10} "
              f"{_fmt_rate(r['steps_per_s']):>11} {games:>10} "
              f"{r['lower_s'] + r['compile_s']:>9.2f} {r['first_call_s']:>10.2f}")
    print("steps/s: random-playout steps of running games per second, best call; games/s: steps/s / mean "
          "game length\n(* length from the other rows: no game ended in this row's calls); "
          "compile s: lowering + XLA compile\n")
    for name, game in report["games"].items():
        best = game["best"]
        print(f"{name}: best {_fmt_rate(best['steps_per_s'])}steps/s at batch {best['batch']}"
              + (f", mean game length {game['mean_game_length']:.1f} steps"
                 if game["mean_game_length"] else ""))
        if "units" in game:
            print(f"  a step is one {game['units']['step']}; a game is one {game['units']['game']}"
                  f" (games/s = {game['units']['game']}s/s)")
        if "state_bytes" in game:
            print(f"  state: {game['state_bytes']:,} bytes per game")
        if not args.peers:
            print("  peers: skipped (--no-peers)")
        elif not game["peers"]:
            print("  peers: none registered")
        if game.get("skipped_batch_sizes"):
            print(f"  batch sizes {', '.join(map(str, game['skipped_batch_sizes']))} skipped "
                  f"(memory cap: largest batch {game['max_batch']})")
        for peer, res in game["peers"].items():
            print_peer(peer, res, game.get("units", {}).get("game", "game"))
    print()


def main(argv=None) -> dict:
    args = parse_args(argv)
    cpu_devices = use_cpu_devices(args.cpu_devices)
    dev = describe_device()
    report = {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "device": dev,
        "versions": {
            "python": platform.python_version(),
            "jax": jax.__version__,
            "jaxlib": _version("jaxlib"),
            "cardjax": cardjax.__version__,
        },
        "config": {
            "games": args.games,
            "batch_sizes": args.batch_sizes,
            "steps": args.steps,
            "seconds": args.seconds,
            "repeats": args.repeats,
            "peers": args.peers,
            "peer_seconds": args.peer_seconds,
            "peer_processes": args.peer_processes,
            "cpu_devices": cpu_devices,
            "seed": args.seed,
        },
        "rows": [],
        "games": {},
    }
    print(f"cardjax {cardjax.__version__}  jax {jax.__version__}  {report['date']}")
    print(f"device: {dev['device_kind']} ({dev['platform']}) x{dev['local_device_count']}, the "
          f"batch split across them where they divide it; host CPUs: {dev['cpu_count']}")
    print(f"random playouts, best of {args.repeats} calls"
          + (f" of {args.steps} steps" if args.steps else f" of ~{args.seconds:g} s") + "\n")

    for name in args.games:
        env = cardjax.make(name)
        sizes = jaxpr_size(env)
        game = {"env": repr(env), "jaxpr_eqns": sizes, "state_bytes": state_bytes(env),
                "peers": {}}
        if name in UNITS:
            game["units"] = UNITS[name]
        report["games"][name] = game
        print(f"{name}: {env!r}; jaxpr of one vmapped step: {sizes['step_total']} equations "
              f"({sizes['step']} top level); with random action + auto-reset: "
              f"{sizes['playout_step_total']}", flush=True)
        rows = []
        cap = max_batch(env)
        skipped = [b for b in args.batch_sizes if cap is not None and b > cap]
        game["max_batch"] = cap
        game["skipped_batch_sizes"] = skipped
        if skipped:
            print(f"  batch sizes {', '.join(map(str, skipped))} skipped: above {cap}, the "
                  f"largest whose states fit {MEMORY_FRACTION:g} of "
                  f"{memory_bytes() / 2 ** 30:.0f} GiB at {SLOT_BYTES_FACTOR} x "
                  f"{state_bytes(env):,} bytes per game", flush=True)
        for batch in [b for b in args.batch_sizes if b not in skipped]:
            row = {"game": name, **bench_cardjax(env, batch, args.steps, args.repeats,
                                                   args.seconds, args.seed)}
            rows.append(row)
            print(f"  batch {batch:>6}: {_fmt_rate(row['steps_per_s'])}steps/s "
                  f"({row['steps_per_call']} steps/call; compile "
                  f"{row['lower_s'] + row['compile_s']:.2f} s)", flush=True)
        game["mean_game_length"] = add_games_per_s(rows)
        report["rows"].extend(rows)
        best = max(rows, key=lambda r: r["steps_per_s"])
        game["best"] = {"batch": best["batch"], "steps_per_s": best["steps_per_s"]}

        for peer, fn in PEERS.get(name, []) if args.peers else []:
            try:
                res = fn(args.peer_seconds, seed=args.seed, processes=args.peer_processes)
            except ImportError as e:
                game["peers"][peer] = {"skipped": f"not installed ({e})"}
                continue
            except PeerError as e:
                game["peers"][peer] = {"skipped": f"failed ({e})"}
                continue
            res["ratio"], res["ratio_basis"] = peer_ratio(best, res)
            game["peers"][peer] = res
            print_peer(peer, res, game.get("units", {}).get("game", "game"))
        print(flush=True)

    print_report(report, args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
        print(f"wrote {args.json}")
    return report


if __name__ == "__main__":
    run_command(main)
