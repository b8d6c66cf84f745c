"""The compiled programs a process keeps, freeing them before the kernel's map limit, and
saying so before a long compile (:func:`compiling`).

On CPU, XLA loads every kernel of a compiled program as its own object, mapped in about three
regions of memory; a Tractor arena program has about a thousand kernels.  Linux caps the regions
a process may map (``vm.max_map_count``, 65,530 by default), and a process that keeps a few dozen
large programs alive (a test session, a notebook, a web server with many tables, a tuning grid)
reaches the cap: the next program XLA compiles, loads or serializes then fails to map its code and
the process dies with a segmentation fault or an abort.

Modules that keep compiled programs between calls register their caches with :func:`keep`;
:func:`guard`, called before they compile, frees every registered cache and JAX's own
(:func:`release`) once the process maps more than half the cap.  Programs still referenced
elsewhere stay alive; the others are compiled again (or loaded from the persistent compilation
cache) when next used.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import sys
import threading
import time

import jax

from cardjax.files import write_atomic

MAPS = "/proc/self/maps"
MAX_MAP_COUNT = "/proc/sys/vm/max_map_count"

_KEPT: list[dict] = []


def keep(cache):
    """Register ``cache`` (a dict or set holding compiled programs) to be emptied by
    :func:`release`; returns it."""
    _KEPT.append(cache)
    return cache


def release() -> None:
    """Free the compiled programs nothing else holds: the registered caches and JAX's."""
    for cache in _KEPT:
        cache.clear()
    jax.clear_caches()
    gc.collect()


def mapped_regions() -> int | None:
    """How many memory regions this process maps (None where ``/proc`` does not say)."""
    try:
        with open(MAPS, "rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return None


def map_limit() -> int | None:
    """The kernel's cap on a process's mapped regions (None where ``/proc`` does not say)."""
    try:
        with open(MAX_MAP_COUNT) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def guard(share: float = 0.5) -> bool:
    """:func:`release` if the process maps more than ``share`` of the cap; whether it did.  Only
    the main thread frees: another thread (a trainer compiling its evaluation in the background)
    leaves JAX's caches alone while the main thread uses them."""
    if threading.current_thread() is not threading.main_thread():
        return False
    used, limit = mapped_regions(), map_limit()
    if used is None or limit is None or used <= share * limit:
        return False
    release()
    return True


# LLVM's optimization level for the CPU programs that play or score many games (the arena's
# matches, corpus recording, scoring a corpus's positions): level 1 compiles them in about three
# quarters of the default level's (2) time and runs them within about 5% of its speed
# (benchmarks/LOG.md, 2026-11-28).  Given per program, it also holds in a process that lowers
# the level for everything else (the tests).
PLAYING_LEVEL = 1


def playing_options() -> dict | None:
    """The compiler options of a program that plays many games: :data:`PLAYING_LEVEL` on CPU,
    none elsewhere."""
    return ({"xla_backend_optimization_level": PLAYING_LEVEL}
            if jax.default_backend() == "cpu" else None)


# XLA's older CPU kernel emitters (its MLIR fusion emitters off): a player's move compiles in
# 25-50% less time and runs within 3-10% of the fusion emitters' speed, while the programs that
# play or train many games run 2-13% slower with them (benchmarks/LOG.md, 2026-12-05).  So a
# move takes them and the arena, recording and training keep the fusion emitters.
OLDER_EMITTERS = {"xla_cpu_use_fusion_emitters": False}
_KNOWN: dict = {}


def _known(options: dict) -> dict:
    """``options`` where this jaxlib compiles a program with them, else ``{}`` (a jaxlib without
    the option refuses it with an error; asked once per process)."""
    key = tuple(sorted(options.items()))
    if key not in _KNOWN:
        try:
            jax.jit(lambda x: x + 1, compiler_options=options).lower(1).compile()
            _KNOWN[key] = True
        except Exception:  # noqa: BLE001 -- "No such compile option": run without it
            _KNOWN[key] = False
    return dict(options) if _KNOWN[key] else {}


def training_options() -> dict | None:
    """The compiler options of a trainer's step, compiled once and then run for the whole run:
    :data:`PLAYING_LEVEL` on CPU, unless ``XLA_FLAGS`` set a level for the whole process (the
    tests' level 0); none elsewhere."""
    if "--xla_backend_optimization_level" in os.environ.get("XLA_FLAGS", ""):
        return None
    return playing_options()


def waiting_options() -> dict | None:
    """The compiler options of a program a person waits for one call at a time (a player's move
    at a table): :func:`training_options` and, on CPU, :data:`OLDER_EMITTERS` where this jaxlib
    knows them; none where the process sets a level (the tests, which take the older emitters
    for every program) or off CPU."""
    options = training_options()
    return None if options is None else {**options, **_known(OLDER_EMITTERS)}


def jit_outermost(fn, compiler_options: dict | None):
    """``fn`` jitted with ``compiler_options`` where it is called on arrays, a program of its own,
    and plainly jitted where it is called inside another program (a ``jit``, ``vmap`` or loop
    traces it), since JAX takes compiler options on the outermost ``jit`` alone."""
    plain = jax.jit(fn)
    alone = jax.jit(fn, compiler_options=compiler_options)

    def call(*args):
        inside = any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves(args))
        return (plain if inside else alone)(*args)

    return call


def jit_training(fn, **kwargs):
    """``jax.jit(fn, **kwargs)`` for a trainer's step, a program of its own that a person waits
    for before the first iteration: :func:`training_options` (on CPU the training commands' steps
    compile faster at level 1 and run as fast, benchmarks/LOG.md; a level the process sets, the
    tests', is kept).  Like :func:`jit_playing`, not for nesting in a ``jit`` (jit its
    ``__wrapped__``)."""
    return jax.jit(fn, compiler_options=training_options(), **kwargs)


def jit_playing(fn, **kwargs):
    """``jax.jit(fn, **kwargs)`` for a program that plays many games (:func:`playing_options`).
    JAX refuses compiler options on a nested ``jit``: call it as a program of its own (to
    compose it into a bigger program, jit its ``__wrapped__``)."""
    return jax.jit(fn, compiler_options=playing_options(), **kwargs)


LONG = 5.0  # seconds: a compile announced before it starts
_TIMES = "compile_times.json"


def _times_path() -> str | None:
    from cardjax.cli import compile_cache_dir

    cache = jax.config.jax_compilation_cache_dir or compile_cache_dir()
    return None if not cache else os.path.join(cache, _TIMES)


def _read_times() -> dict:
    path = _times_path()
    try:
        with open(path) as f:
            times = json.load(f)
        return times if isinstance(times, dict) else {}
    except (TypeError, OSError, ValueError):
        return {}


def recorded(what: str) -> float | None:
    """The seconds :func:`compiling` last recorded for ``what`` here (None: never)."""
    seconds = _read_times().get(what)
    return seconds if isinstance(seconds, (int, float)) else None


def _record_time(what: str, seconds: float) -> None:
    path = _times_path()
    if path is None:
        return
    times = _read_times()
    times[what] = round(seconds, 1)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomic(path, json.dumps(times).encode())
    except OSError:
        pass  # an unwritable cache only costs the estimate


@contextlib.contextmanager
def compiling(what: str, show: bool = True):
    """Around a compile that may be long: before it, ``compiling WHAT (about N s last time)...``
    on stderr (or ``(the first time can take minutes)`` when it never ran here), unless it took
    under :data:`LONG` seconds the last time; after it, how long it took.  The times are kept
    beside the persistent compilation cache, so a compile the cache now serves is not
    announced again."""
    last = _read_times().get(what)
    loud = show and (last is None or last >= LONG)
    if loud:
        hint = ("the first time here can take minutes" if last is None
                else f"about {last:.0f} s last time")
        print(f"compiling {what} ({hint})...", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    yield
    seconds = time.perf_counter() - t0
    _record_time(what, seconds)
    if loud or (show and seconds >= LONG):
        print(f"compiled {what} in {seconds:.1f} s", file=sys.stderr, flush=True)


def compile_cost(fn, *args, compiler_options: dict | None = None) -> dict:
    """What compiling ``jax.jit(fn, compiler_options=...)`` for ``args`` costs with nothing
    cached: ``seconds`` (trace, lower and compile; the persistent cache switched off, and a new
    function object so that no in-memory cache of JAX's serves it, without clearing the
    process's other programs) and ``hlo_kb``, the size of the optimized program's text (a
    measure of its graph).  ``compiler_options``: those ``fn`` is built with when it is a
    program of its own (:func:`playing_options`)."""
    from jax.experimental.compilation_cache import compilation_cache

    cache = jax.config.jax_enable_compilation_cache
    # JAX decides once per process whether the cache is used: switched off, it is reset so that
    # the decision is taken again (else a program compiled here before loads from the cache)
    jax.config.update("jax_enable_compilation_cache", False)
    compilation_cache.reset_cache()
    try:
        t0 = time.perf_counter()
        compiled = jax.jit(lambda *a: fn(*a), compiler_options=compiler_options).lower(
            *args).compile()
        seconds = time.perf_counter() - t0
    finally:
        jax.config.update("jax_enable_compilation_cache", cache)
        compilation_cache.reset_cache()
    return {"seconds": round(seconds, 2), "hlo_kb": round(len(compiled.as_text()) / 1024, 1)}
