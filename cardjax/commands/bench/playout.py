"""Timing cardjax's random playouts for ``cardjax bench envs``: the jitted playout loop, its
devices, the jaxpr size of a step, the memory cap on the batch, and games/s from steps/s."""

from __future__ import annotations

import math
import os
import time
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend import core as jex_core

import cardjax
from cardjax.core import reset_finished

MAX_STEPS = 1_000_000  # steps per call, whatever the calibration says


# ---------------------------------------------------------------------------------- cardjax
# Steps per compiled block: whole games for fixed-length games, so no slot idles. For games of
# varying length a short block wastes fewer steps on slots whose game ended mid-block, a long one
# deals less often (on CPU only the ended games are dealt, but each deal has a fixed cost): Dou
# Dizhu (random games ~61 steps) is fastest with 8 or 16 on a 2-core CPU, 8 kept; Mini Dou Di
# Zhu (~14 steps) with 16.  Tractor: a random
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
    """The largest power-of-two batch whose states fit the memory rule above (None: no limit
    known)."""
    mem = memory_bytes()
    if mem is None:
        return None
    slots = mem * MEMORY_FRACTION / (state_bytes(env) * SLOT_BYTES_FACTOR)
    return 2 ** int(math.floor(math.log2(max(slots, 1))))


def make_playout(env, block: int, unroll: int, devices=None) -> Callable:
    """``run(state, key, num_blocks) -> (state, key, finished, their_steps, real_steps)``, jitted.

    A block is a ``lax.scan`` of ``block`` steps of ``vmap(env.step)`` with a random legal action
    in every game (``env.pick_action`` of one uniform number per game, the block's numbers drawn
    at once rather than a key per game and step); after each block
    ``cardjax.core.reset_finished`` deals new games into the slots whose game ended.  Only steps
    of games still running count (``real_steps``): a slot that finished mid-block idles until the
    block ends and its no-op steps are not counted.
    With several ``devices`` the batch is split evenly across them (``jax.shard_map``), each
    device playing its own games with its own random numbers, and the counts are summed.
    """
    step = jax.vmap(env.step)
    pick = jax.vmap(env.pick_action)

    def one(carry, u):
        state, key, finished, length, real = carry
        action = pick(u, state)
        live = ~state.terminated
        state = step(state, action)
        ended = live & state.terminated
        finished = finished + jnp.sum(ended, dtype=jnp.int32)
        length = length + jnp.sum(jnp.where(ended, state.step_count, 0), dtype=jnp.int32)
        real = real + jnp.sum(live, dtype=jnp.int32)
        return (state, key, finished, length, real), None

    def body(_, carry):
        key, k_act = jax.random.split(carry[1])
        us = jax.random.uniform(k_act, (block,) + carry[0].terminated.shape)
        carry, _ = jax.lax.scan(one, (carry[0], key, *carry[2:]), us, unroll=unroll)
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
        length = r["mean_game_length"]
        r["games_per_s"] = r["steps_per_s"] / length if length else None
    return pooled
