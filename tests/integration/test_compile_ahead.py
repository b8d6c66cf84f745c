"""Compiling out of the user's way: a trainer compiles its evaluation in the background while
the first iterations train, and the commands keep compiled programs between runs (JAX's
persistent compilation cache, :func:`cardjax.cli.use_compile_cache`)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import jax
import jax.numpy as jnp
import pytest
from flax import struct

from cardjax import agents, cli
from cardjax.eval import arena
from cardjax.train import runner


def programs_built(fn) -> int:
    """How many programs are compiled, or loaded from the persistent cache, while ``fn()`` runs
    (a program already in memory counts nothing)."""
    seen = []

    def on_duration(event, duration, **kw):
        if event == "/jax/core/compile/backend_compile_duration":
            seen.append(event)

    def on_event(event, **kw):
        if event == "/jax/compilation_cache/cache_hits":
            seen.append(event)

    jax.monitoring.register_event_duration_secs_listener(on_duration)
    jax.monitoring.register_event_listener(on_event)
    try:
        fn()
    finally:
        jax.monitoring.unregister_event_duration_listener(on_duration)
        jax.monitoring.unregister_event_listener(on_event)
    return len(seen)


def test_compile_only_compiles_the_match_it_would_play(gongzhu):
    rnd = agents.get(gongzhu, "random")
    kw = dict(deals=3, seed=11, batch=3, progress=False)  # a batch size no other test compiles
    out = []
    assert programs_built(lambda: out.append(
        arena.duplicate_match(gongzhu, rnd, rnd, compile_only=True, **kw))) >= 1
    assert out == [None]
    # the match plays the program compiled ahead: nothing is compiled again
    assert programs_built(lambda: out.append(arena.duplicate_match(gongzhu, rnd, rnd, **kw))) == 0
    assert out[1]["deals"] == 3 and out[1]["games"] == 6


@struct.dataclass
class Counter:
    iteration: jax.Array
    x: jax.Array


def count(s):
    return s.replace(iteration=s.iteration + 1, x=s.x + 1.0), {"loss": s.x}


def test_runner_prepares_the_evaluation_in_the_background(tmp_path):
    calls = []

    def evaluate(s):
        calls.append(("evaluate", int(s.iteration), threading.current_thread().name))
        return {"mean": float(s.x), "stderr": 0.0}

    evaluate.prepare = lambda s: calls.append(
        ("prepare", int(s.iteration), threading.current_thread().name))
    final = runner.run(out=str(tmp_path / "run"), state=Counter(jnp.int32(0), jnp.float32(0)),
                       step=count, config={}, iterations=3, units_per_iteration=1,
                       evaluate=evaluate, eval_every=2, progress=False)
    assert int(final.iteration) == 3
    main = threading.current_thread().name
    assert calls == [("prepare", 0, "compile-evaluation"), ("evaluate", 2, main),
                     ("evaluate", 3, main)]


def test_a_failed_background_compile_is_raised_at_the_evaluation(tmp_path):
    def evaluate(s):
        return {"mean": 0.0, "stderr": 0.0}

    def prepare(s):
        raise RuntimeError("the evaluation does not compile")

    evaluate.prepare = prepare
    with pytest.raises(RuntimeError, match="does not compile"):
        runner.run(out=str(tmp_path / "run"), state=Counter(jnp.int32(0), jnp.float32(0)),
                   step=count, config={}, iterations=2, units_per_iteration=1,
                   evaluate=evaluate, eval_every=1, progress=False)


def test_compile_cache_dir(monkeypatch):
    monkeypatch.delenv(cli.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere")
    assert cli.compile_cache_dir() == os.path.join("/somewhere", "cardjax", "jax")
    monkeypatch.setenv(cli.CACHE_ENV, "/my/cache")
    assert cli.compile_cache_dir() == "/my/cache"
    for off in ("off", "0", "", "None"):
        monkeypatch.setenv(cli.CACHE_ENV, off)
        assert cli.compile_cache_dir() is None


def test_a_command_keeps_its_compiled_programs(tmp_path):
    cache = tmp_path / "cache"
    code = ("import jax, jax.numpy as jnp\n"
            "from cardjax.cli import run_command\n"
            "def main():\n"
            "    f = jax.jit(lambda x: jnp.sort(jnp.sin(x) * 3))\n"
            "    f.lower(jnp.ones(7)).compile()\n"
            "    print(jax.config.jax_compilation_cache_dir)\n"
            "run_command(main)\n")
    env = {**os.environ, cli.CACHE_ENV: str(cache),
           "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0"}
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == str(cache)
    assert any(cache.iterdir())  # the program was written to the cache
    env[cli.CACHE_ENV] = "off"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() in ("", "None")
