"""Where the suite's compile time goes: with ``CARDJAX_COMPILE_LOG=DIR`` set, every process of a
test run (each xdist worker) writes JAX's compile events to ``DIR/<worker>.log``, one line each
with the test that was running: tracing, lowering, XLA compiling (with its seconds) and the
persistent cache's hits and misses, and each test's wall and CPU seconds when it ends.
``python tests/compile_log.py DIR`` sums them: by program name, by test file, the single
operations that ran eagerly (each compiles a program of its own the first time it meets a
shape), and the tests that spend the most time other than compiling.

The compiles of the commands the tests start in subprocesses are not logged (their CPU seconds
are in the test's).
"""

from __future__ import annotations

import collections
import glob
import logging
import os
import re
import resource
import sys
import time

_running = ["-"]  # the test now running in this process

# JAX's loggers of the events (their messages at DEBUG unless jax_log_compiles is on)
LOGGERS = ("jax._src.dispatch", "jax._src.compiler", "jax._src.interpreters.pxla")
TIMES = "cardjax.tests.times"  # each test's wall and CPU seconds, in the same file
EVENT = re.compile(r"Finished (?:XLA compilation of jit\((?P<xla>.*?)\)"
                   r"|jaxpr to MLIR module conversion jit\((?P<lower>.*?)\)"
                   r"|tracing (?P<trace>.*?) for jit) in (?P<s>[0-9.]+) sec")
TEST = re.compile(r"Test finished in (?P<wall>[0-9.]+) sec, cpu (?P<cpu>[0-9.]+) sec")
MISS = re.compile(r"PERSISTENT COMPILATION CACHE MISS for 'jit_(.*?)'")


class _Events(logging.Handler):
    def __init__(self, path: str):
        super().__init__()
        self.file = open(path, "a", buffering=1)

    def emit(self, record):
        msg = record.getMessage()
        if msg.startswith(("Finished", "Test finished")) or "COMPILATION CACHE" in msg \
                or "cache hit" in msg:
            test = getattr(record, "cardjax_test", _running[0])
            self.file.write(f"{time.time():.2f}\t{test}\t{msg[:300]}".replace("\n", " ")
                            + "\n")


def install(directory: str) -> None:
    """Log this process's compile events to ``directory/<xdist worker or main>.log``."""
    os.makedirs(directory, exist_ok=True)
    handler = _Events(os.path.join(directory,
                                   os.environ.get("PYTEST_XDIST_WORKER", "main") + ".log"))
    for name in LOGGERS + (TIMES,):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
    logging.getLogger(TIMES).propagate = False


def running(nodeid: str) -> None:
    _running[0] = nodeid


def process_seconds() -> float:
    """CPU seconds of this process and its finished children (the commands a test starts)."""
    return sum(u.ru_utime + u.ru_stime for u in (resource.getrusage(resource.RUSAGE_SELF),
                                                  resource.getrusage(resource.RUSAGE_CHILDREN)))


def finished(nodeid: str, wall: float, cpu: float) -> None:
    """Log a test's wall and CPU seconds (setup, call and teardown) with the compile events."""
    logging.getLogger(TIMES).debug("Test finished in %.3f sec, cpu %.3f sec", wall, cpu,
                                   extra={"cardjax_test": nodeid})


def eager_names(compiles: collections.Counter, misses: collections.Counter,
                seconds: dict) -> set:
    """Names of single operations run eagerly (``broadcast_in_dim``, ``add``): a heuristic,
    names compiled at least 20 times that (nearly) always missed the persistent cache, which
    keeps no program that compiles in under a second, in under 0.25 s a compile on average
    (a name that many programs share, ``call`` or ``run``, takes seconds each)."""
    return {n for n, c in compiles.items()
            if c >= 20 and misses[n] >= 0.9 * c and seconds[n] < 0.25 * c}


def report(directory: str, top: int = 25) -> str:
    by_name, by_test, totals = (collections.defaultdict(float) for _ in range(3))
    compiles, misses = collections.Counter(), collections.Counter()
    compiled = []  # (test, program name, seconds) of each event
    times = {}  # test -> (wall, cpu)
    for path in sorted(glob.glob(os.path.join(directory, "*.log"))):
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t", 2)
                if len(parts) != 3:
                    continue
                test, msg = parts[1:]
                if m := EVENT.match(msg):
                    kind = next(k for k in ("xla", "lower", "trace") if m.group(k) is not None)
                    name, seconds = m.group(kind), float(m.group("s"))
                    totals[kind] += seconds
                    compiles[name] += kind == "xla"
                    by_name[name] += seconds
                    by_test[test] += seconds
                    compiled.append((test, name, seconds))
                elif m := MISS.match(msg):
                    misses[m.group(1)] += 1
                elif m := TEST.match(msg):
                    times[test] = (float(m.group("wall")), float(m.group("cpu")))
    eager = eager_names(compiles, misses, by_name)
    by_file, eager_by_file = collections.defaultdict(float), collections.defaultdict(float)
    for test, name, seconds in compiled:
        by_file[test.split("::")[0]] += seconds
        if name in eager:
            eager_by_file[test.split("::")[0]] += seconds
    lines = [f"compile seconds: {sum(totals.values()):,.0f} (XLA {totals['xla']:,.0f}, "
             f"lowering {totals['lower']:,.0f}, tracing {totals['trace']:,.0f}); "
             f"eager operations {sum(by_name[n] for n in eager):,.0f} s in "
             f"{sum(compiles[n] for n in eager):,} compiles",
             "", "by program (seconds, XLA compiles, persistent-cache misses):"]
    for name, s in sorted(by_name.items(), key=lambda kv: -kv[1])[:top]:
        if name not in eager:
            lines.append(f"  {s:8.1f} {compiles[name]:5d} {misses[name]:5d}  {name}")
    lines += ["", "by test file (seconds; of which eager operations):"]
    for name, s in sorted(by_file.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"  {s:8.1f} {eager_by_file[name]:7.1f}  {name}")
    if times:
        rest = {t: wall - by_test[t] for t, (wall, _) in times.items()}
        lines += ["", f"tests: {len(times):,} in {sum(w for w, _ in times.values()):,.0f} s of "
                  f"worker wall time (CPU {sum(c for _, c in times.values()):,.0f} s), "
                  f"{sum(rest.values()):,.0f} s of it not compiling; the most (seconds: wall, "
                  "compiling, the rest):"]
        for t, r in sorted(rest.items(), key=lambda kv: -kv[1])[:top]:
            lines.append(f"  {times[t][0]:7.1f} {by_test[t]:7.1f} {r:7.1f}  {t}")
    return "\n".join(lines)

if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: python tests/compile_log.py DIR (the CARDJAX_COMPILE_LOG of a test run)")
    print(report(sys.argv[1]))
