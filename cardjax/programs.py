"""The compiled programs a process keeps, and freeing them before the kernel's map limit.

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

import gc
import threading

import jax

MAPS = "/proc/self/maps"
MAX_MAP_COUNT = "/proc/sys/vm/max_map_count"

_KEPT: list[dict] = []


def keep(cache: dict) -> dict:
    """Register ``cache`` (a dict whose values hold compiled programs) to be emptied by
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
