"""Shared fixtures: compiled functions are built once per session and reused by every test.

The tests are in three folders, each a marker CI can select on (``pytest -m unit``):
``unit/`` (one module or game each: rules, players, search, networks), ``integration/`` (the
trainers, commands, multi-process runs, the web API, the toy game through everything) and
``docs/`` (the README's and docs' commands, the notebook, the page in a browser).

JAX compile time dominates the suite, so every test that needs a jitted ``step``, a random
playout or ``sample_hidden`` takes it from :func:`compiled` (one object per game and option set).
Batches are small: the tests check rules, not throughput.
"""

from __future__ import annotations

import faulthandler
import functools
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import time

# Tests check values, not speed, and most of the suite's time is XLA compiling: at LLVM's
# optimization level 0 programs compile in about half the default level's time (and run 3-12x
# slower), which took a quarter off the cold suite (benchmarks/LOG.md, 2026-11-28).  The programs
# that play many games keep their own level (cardjax.programs.jit_playing).  Set before JAX
# starts its backend; the processes the tests start inherit it.
XLA_TEST_FLAGS = "--xla_backend_optimization_level=0"
# XLA's older CPU kernel emitters (not its MLIR fusion emitters) compile the suite's programs in
# 20-50% less time and took a third off the worker time of the files measured (benchmarks/LOG.md,
# 2026-12-02).  A jaxlib that no longer knows the flag aborts on it, so the first process tries
# it in a child once; the workers it starts inherit the answer.
OLD_EMITTERS = "--xla_cpu_use_fusion_emitters=false"


def _xla_knows(flag: str) -> bool:
    env = dict(os.environ, XLA_FLAGS=flag, JAX_PLATFORMS="cpu")
    probe = [sys.executable, "-c", "import jax; jax.devices()"]
    return subprocess.run(probe, env=env, capture_output=True, timeout=120).returncode == 0


if "CARDJAX_TEST_XLA_FLAGS" not in os.environ:
    os.environ["CARDJAX_TEST_XLA_FLAGS"] = " ".join(
        [XLA_TEST_FLAGS] + ([OLD_EMITTERS] if _xla_knows(OLD_EMITTERS) else []))
    os.environ["XLA_FLAGS"] = (f"{os.environ.get('XLA_FLAGS', '')} "
                               f"{os.environ['CARDJAX_TEST_XLA_FLAGS']}").strip()

import jax  # noqa: E402
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax import cards, programs
from cardjax.cli import use_compile_cache
from cardjax.core import Agent

# The commands' persistent compilation cache: the two workers and the commands the tests start
# share what each compiled (CARDJAX_COMPILE_CACHE=off compiles everything in every process).
use_compile_cache()

if os.environ.get("CARDJAX_COMPILE_LOG"):  # where the compile time goes (tests/compile_log.py)
    import compile_log

    compile_log.install(os.environ["CARDJAX_COMPILE_LOG"])

    def pytest_runtest_logstart(nodeid, location):
        compile_log.running(nodeid)


# A test still running a minute after pytest-timeout's 900 s is stuck where no signal reaches:
# a thread waiting inside XLA (a deadlock in jaxlib's CPU thread pool did that, 2026-12-01), which
# SIGALRM cannot interrupt.  faulthandler's own watchdog thread then prints every thread's stack
# and ends the worker, which fails the run there (--max-worker-restart 0) instead of leaving it
# waiting for ever.
HARD_LIMIT = 960
_STDERR = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    global _STDERR
    if _STDERR is None:  # the process's real stderr (pytest captures sys.stderr)
        _STDERR = os.fdopen(os.dup(2), "w")
    faulthandler.dump_traceback_later(HARD_LIMIT, exit=True, file=_STDERR)
    logged = os.environ.get("CARDJAX_COMPILE_LOG")
    if logged:  # each test's seconds beside its compiles (tests/compile_log.py)
        wall, cpu = time.perf_counter(), compile_log.process_seconds()
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
        if logged:
            compile_log.finished(item.nodeid, time.perf_counter() - wall,
                                 compile_log.process_seconds() - cpu)


@pytest.fixture(autouse=True, scope="module")
def room_for_programs():
    """Before each test file: free the compiled programs once the worker maps more than half
    the kernel's cap on memory regions (:mod:`cardjax.programs`); workers that passed the cap
    late in the suite died inside XLA.  The programs still needed load back from the
    compilation cache."""
    programs.guard()


def pytest_configure(config):
    """In the main process, before any worker starts: RLCard unzips its Dou Dizhu tables on its
    first import, and two workers doing it at once on a fresh install collide."""
    if not hasattr(config, "workerinput") and importlib.util.find_spec("rlcard") is not None:
        importlib.import_module("rlcard.games.doudizhu")


def pytest_sessionfinish(session):
    """Let the web tables' daemon threads (a move, a warming compile) finish before the worker's
    interpreter ends: a daemon thread still inside XLA then is ended mid-C++ and aborts the process
    ("FATAL: exception not rethrown")."""
    tables = sys.modules.get("cardjax.web.tables")
    if tables is None:
        return
    import threading

    warming = [t for t in threading.enumerate() if t.name == "warm-tables"]
    for thread in tables.workers() + warming:
        thread.join(60)


FOLDERS = ("unit", "integration", "docs")


def pytest_collection_modifyitems(config, items):
    """Mark each test with its folder's name (``-m unit``, ``-m "not docs"``)."""
    for item in items:
        folder = pathlib.Path(str(item.fspath)).parent.name
        if folder in FOLDERS:
            item.add_marker(getattr(pytest.mark, folder))


# Batch size of the vmapped playouts (kept fixed so that one compile serves every test).
BATCH = 8


def random_rollout(env, num_steps, key):
    """Random legal play from ``env.init``.

    Returns ``(first, states, actions)``: the initial state, the ``num_steps`` states after each
    action (stacked on a leading axis) and the actions taken.
    """
    k_init, k_play = jax.random.split(key)
    first = env.init(k_init)

    def body(state, k):
        k_act, k_step = jax.random.split(k)
        action = env.random_action(k_act, state)
        nxt = env.step(state, action, k_step)
        return nxt, (nxt, action)

    _, (states, actions) = jax.lax.scan(body, first, jax.random.split(k_play, num_steps))
    return first, states, actions


ROOT = pathlib.Path(__file__).resolve().parents[1]


def sha16(arrays) -> str:
    """The first 16 hex digits of the sha256 of the arrays' bytes, in order (pinned playouts)."""
    import hashlib

    h = hashlib.sha256()
    for x in jax.device_get(arrays):
        h.update(np.ascontiguousarray(x).tobytes())
    return h.hexdigest()[:16]


def run_on_cpu_devices(code: str, devices: int) -> str:
    """Run ``code`` in a fresh Python process with ``devices`` forced CPU devices (JAX fixes
    the device count at start-up); fail with its stderr unless it exits 0; return its stdout."""
    env = dict(os.environ, XLA_FLAGS=f"{os.environ['XLA_FLAGS']} "
               f"--xla_force_host_platform_device_count={devices}",
               JAX_PLATFORMS="cpu")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def read_metrics(out: str) -> list[dict]:
    """The records of a run's ``metrics.jsonl``."""
    with open(pathlib.Path(out) / "metrics.jsonl") as f:
        return [json.loads(line) for line in f]


def restore_newest(train, out: str):
    """The newest checkpoint of the run ``out``, restored in the shapes of ``train.init``."""
    from cardjax.checkpoint import Checkpoints

    ckpt = Checkpoints(out)
    try:
        return ckpt.restore(jax.eval_shape(train.init, jax.random.PRNGKey(0)))
    finally:
        ckpt.close()


def straight_and_resumed(main, flags: list, base, iterations: int = 3, between=None):
    """A training command's run of ``iterations`` in one go (``base/straight``) and one stopped
    an iteration short and resumed (``base/split``; ``between(split)`` runs at the stop).
    ``main(argv)`` is the command's entry point.  Returns the two run directories."""
    straight, split = str(base / "straight"), str(base / "split")
    main(flags + ["--out", straight, "--iterations", str(iterations)])
    main(flags + ["--out", split, "--iterations", str(iterations - 1)])
    if between is not None:
        between(split)
    main(flags + ["--out", split, "--iterations", str(iterations), "--resume"])
    return straight, split


def assert_corpus_run_resumes(main, flags: list, base, iterations: int = 3):
    """A corpus trainer's run of ``iterations`` in one go and one stopped an iteration short and
    resumed with ``--resume`` alone print the same summary, keep the same best network and
    evaluate the same.  Returns the two run directories."""
    full, cut = str(base / "full"), str(base / "cut")
    s1 = main(flags + ["--out", full, "--iterations", str(iterations)])
    main(flags + ["--out", cut, "--iterations", str(iterations - 1)])
    s2 = main(["--out", cut, "--resume", "--iterations", str(iterations), "--no-progress"])
    assert s1 == {**s2, "out": full}
    a, b = (open(os.path.join(d, "best.msgpack"), "rb").read() for d in (full, cut))
    assert a == b
    e1, e2 = (json.load(open(os.path.join(d, "eval.json")))["evaluations"] for d in (full, cut))
    assert [e["mean"] for e in e1] == [e["mean"] for e in e2]
    return full, cut


def assert_refuses_to_mix(main, flags: list, out: str, flag: str, typed, saved):
    """A training command (``main(argv)``) refuses to start a new run in ``out``, which holds
    one, and to resume it with ``--flag typed`` when the run has ``saved``."""
    with pytest.raises(SystemExit, match="already holds a run"):
        main(flags + ["--out", out, "--iterations", "99"])
    with pytest.raises(SystemExit, match=f"--{flag} {typed} \\(the run has {saved}\\)"):
        main([f"--{flag}", str(typed), "--out", out, "--resume", "--eval_deals", "0"])


def assert_same_run(a: str, b: str, load_params, timing=("seconds", "elapsed_s")):
    """Runs ``a`` and ``b`` logged the same metrics (but the ``timing`` keys) and saved the same
    config and params (``load_params(run) -> (params, config)``).  Returns ``a``'s pair."""
    ma, mb = read_metrics(a), read_metrics(b)
    assert [r["iteration"] for r in ma] == [r["iteration"] for r in mb]
    for ra, rb in zip(ma, mb):
        assert {k: v for k, v in ra.items() if k not in timing} == \
            {k: v for k, v in rb.items() if k not in timing}
    (pa, cfg_a), (pb, cfg_b) = load_params(a), load_params(b)
    assert cfg_a == cfg_b
    for x, y in zip(jax.tree_util.tree_leaves(pa), jax.tree_util.tree_leaves(pb)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    return pa, cfg_a


class Compiled:
    """The jitted functions of one env (one game with one set of options)."""

    def __init__(self, env):
        self.env = env
        # a scan plays env.max_steps actions (stepping a terminated state is a no-op)
        self.max_steps = env.max_steps
        self.init = jax.jit(env.init)
        self.step = jax.jit(env.step)
        self.observe = jax.jit(env.observe)
        self.observe_oracle = jax.jit(env.observe_oracle)
        self.sample_hidden = jax.jit(env.sample_hidden)
        self.random_action = jax.jit(env.random_action)
        # a state's legal mask (Dou Dizhu builds it on demand: op by op outside jit, ~25 ms)
        self.legal_action_mask = jax.jit(lambda state: state.legal_action_mask)
        roll = functools.partial(random_rollout, env, self.max_steps)
        self.rollout = jax.jit(roll)
        self.batch_rollout = jax.jit(jax.vmap(roll))
        # sample_hidden over a batch of (key, state, seat)
        self.batch_sample_hidden = jax.jit(jax.vmap(env.sample_hidden))


_COMPILED: dict[str, Compiled] = {}


def get_compiled(name_or_env, **options) -> Compiled:
    """The session's :class:`Compiled` for ``make(name, **options)`` (or for an env object)."""
    env = name_or_env if not isinstance(name_or_env, str) else cardjax.make(name_or_env, **options)
    env = getattr(env, "env", env)  # a CheckedEnv shares its env's compiled functions
    key = repr(env)
    if key not in _COMPILED:
        _COMPILED[key] = Compiled(env)
    return _COMPILED[key]


def tree_index(tree, i):
    """Element ``i`` (an int or a tuple of ints; slices too) of a pytree stacked on its leading
    axis.  Jitted for arrays and integer indices: one small program for the whole tree, where
    indexing leaf by leaf compiles a few operations for each leaf's shape (numpy trees stay
    numpy, and writable)."""
    parts = i if isinstance(i, tuple) else (i,)
    leaves = jax.tree_util.tree_leaves(tree)
    if all(isinstance(j, (int, np.integer)) for j in parts) and all(
            isinstance(x, jax.Array) for x in leaves):
        return _take(tree, tuple(np.int32(j) for j in parts))
    return jax.tree_util.tree_map(lambda x: x[i], tree)


@jax.jit
def _take(tree, parts):
    return jax.tree_util.tree_map(lambda x: x[parts], tree)


def to_numpy(tree):
    return jax.tree_util.tree_map(np.asarray, jax.device_get(tree))


def parse_move(env, move: str) -> int:
    if move.lower() == "done":
        if env.num_actions <= cards.NUM_CARDS:
            raise ValueError("'done' is only an action with exposure=True")
        return cards.NUM_CARDS
    return cards.card_index(move)


def play_cards(env, state, moves, step=None):
    """Play ``moves`` from ``state``: card strings (``"C2 C3 | S2"``, ``|`` is ignored) or a list of
    them; ``"done"`` is the exposure phase's action 52.  Every move must be legal (an
    ``AssertionError`` names the first one that is not).  Returns the list of states, the given
    one first."""
    if isinstance(moves, str):
        moves = moves.replace("|", " ").split()
    step = step or get_compiled(env).step
    states = [state]
    for i, move in enumerate(moves):
        a = parse_move(env, move)
        mask = np.asarray(state.legal_action_mask)
        if not mask[a]:
            legal = [env.action_to_str(j) for j in np.flatnonzero(mask)]
            raise AssertionError(
                f"move {i} ({move}) by seat {int(state.current_player)} is illegal; legal: {legal}"
            )
        state = step(state, jnp.int32(a))
        states.append(state)
    return states


@pytest.fixture(scope="session")
def compiled():
    """``compiled(name, **options)`` -> the shared :class:`Compiled` of that env."""
    return get_compiled


@pytest.fixture(scope="session")
def gz():
    """Compiled functions of the default Gongzhu env."""
    return get_compiled("gongzhu")


@pytest.fixture(scope="session")
def gongzhu(gz):
    """The default Gongzhu env (the same object ``gz`` compiled)."""
    return gz.env


@pytest.fixture(scope="session")
def gz_exposure():
    return get_compiled("gongzhu", exposure=True)


@pytest.fixture(scope="session")
def play():
    """``play(env, state, moves)`` -> list of states; see :func:`play_cards`."""
    return play_cards


@pytest.fixture(scope="session")
def gz_games(gz):
    """A few random Gongzhu games, computed once: (first, states, actions) stacked over BATCH."""
    keys = jax.random.split(jax.random.PRNGKey(20240611), BATCH)
    return to_numpy(gz.batch_rollout(keys))


def assert_update_lowers_loss(train, state, role: int, batch) -> tuple:
    """One DMC learner ``update`` of role ``role``'s network on ``batch`` (obs, action, target),
    all rows weighted 1: it reports the loss before the step and lowers it.  Returns the updated
    params and the weights."""
    weights = jnp.ones(batch[2].shape[0])
    from cardjax.train import dmc

    p, o = dmc.role_params(state.params, role), dmc.role_params(state.opt_state, role)
    before = float(train.loss(p, batch, weights))
    p2, _, loss = train.update(p, o, batch, weights)
    assert float(loss) == pytest.approx(before, rel=1e-5)
    assert float(train.loss(p2, batch, weights)) < before
    return p2, weights


# ------------------------------------------------------------ deterministic stand-in players
def lowest_legal(params, key, state):
    """Deterministic: the legal action with the smallest id (a move, never pass while one exists)."""
    return jnp.argmax(state.legal_action_mask).astype(jnp.int32)


def highest_legal(params, key, state):
    """Deterministic: the legal action with the largest id (pass whenever allowed)."""
    n = state.legal_action_mask.shape[-1]
    return (n - 1 - jnp.argmax(state.legal_action_mask[::-1])).astype(jnp.int32)


LOW = Agent("low", lowest_legal)
HIGH = Agent("high", highest_legal)


def wait_for_view(client, tid, until, timeout=120.0):
    """A web table's view (through Flask's test ``client``) once ``until(view)`` holds."""
    import time

    end = time.monotonic() + timeout
    while True:
        view = client.get(f"/api/tables/{tid}").json
        assert view["error"] is None, view["error"]
        if until(view):
            return view
        assert time.monotonic() < end, f"no such view in {timeout} s: {view['phase']}"
        time.sleep(0.01)
