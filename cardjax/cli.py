"""What the command-line entry points share: argparse ``type=`` callables, and
:func:`run_command` (one-line errors, the persistent compilation cache)."""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import sys
from typing import Callable


def _parse(text: str, cast, ok, what: str):
    """``cast(text)`` when ``ok`` of it, else an argparse error that names the bad value."""
    try:
        value = cast(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if not ok(value):
        raise argparse.ArgumentTypeError(f"expected {what}, got {value}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1."""
    return _parse(text, int, lambda v: v >= 1, "a positive integer")


def non_negative_int(text: str) -> int:
    """An integer >= 0."""
    return _parse(text, int, lambda v: v >= 0, "an integer >= 0")


def positive_float(text: str) -> float:
    """A finite number > 0."""
    return _parse(text, float, lambda v: v > 0 and math.isfinite(v), "a positive number")


def non_negative_float(text: str) -> float:
    """A finite number >= 0."""
    return _parse(text, float, lambda v: v >= 0 and math.isfinite(v), "a number >= 0")


def probability(text: str) -> float:
    """A number in [0, 1]."""
    return _parse(text, float, lambda v: math.isfinite(v) and 0.0 <= v <= 1.0,
                  "a number in [0, 1]")


def discount_factor(text: str) -> float:
    """A number in (0, 1]: a discount gamma."""
    return _parse(text, float, lambda v: math.isfinite(v) and 0.0 < v <= 1.0,
                  "a discount in (0, 1]")


_BOOLS = {"true": True, "yes": True, "on": True, "1": True,
          "false": False, "no": False, "off": False, "0": False}


def boolean(text: str) -> bool:
    """true / false (also yes / no, on / off, 1 / 0; any case)."""
    if text.lower() not in _BOOLS:
        raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")
    return _BOOLS[text.lower()]


def option(default, help: str, type: Callable | None = None, choices: tuple | None = None):
    """A config dataclass field that is also a command-line flag: its ``help``, argparse
    ``type`` and ``choices`` are the field's metadata, so a config and its flags are one
    schema (the DMC trainer, its extensions and the game adapters declare their fields so)."""
    meta = {"help": help}
    if type is not None:
        meta["type"] = type
    if choices is not None:
        meta["choices"] = choices
    return dataclasses.field(default=default, metadata=meta)


CACHE_ENV = "CARDJAX_COMPILE_CACHE"


def compile_cache_dir() -> str | None:
    """Where the commands keep compiled programs between runs: ``$CARDJAX_COMPILE_CACHE``, else
    ``$XDG_CACHE_HOME/cardjax/jax`` (``~/.cache/cardjax/jax``); None when that variable is
    ``off`` (or ``0``, ``none``, empty)."""
    value = os.environ.get(CACHE_ENV)
    if value is not None:
        return None if value.strip().lower() in ("", "0", "off", "none", "false") else value
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "cardjax", "jax")


def use_compile_cache() -> None:
    """JAX's persistent compilation cache for a command: a second run of a command (or of
    another that compiles the same program) loads what the first compiled instead of compiling
    it again.  A cache directory the user set for JAX (``JAX_COMPILATION_CACHE_DIR``) wins; an
    unwritable one only costs the compile."""
    import jax

    if jax.config.jax_compilation_cache_dir:
        return
    path = compile_cache_dir()
    if path is None:
        return
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return
    jax.config.update("jax_compilation_cache_dir", path)
    if "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" not in os.environ:
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.2)  # JAX's own: 1 s


def quiet_logs() -> None:
    """Keep library chatter out of a command's progress bars: XLA's C++ log below FATAL (its
    "Very slow compile?" alarm; a compile that fails still raises in Python) and absl's Python
    warnings (orbax's notes on each checkpoint).  A ``TF_CPP_MIN_LOG_LEVEL`` the user set wins."""
    import logging

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    logging.getLogger("absl").setLevel(logging.ERROR)


def run_command(main: Callable) -> None:
    """Run a command's ``main()`` with the compilation cache (:func:`use_compile_cache`) and
    quiet logs (:func:`quiet_logs`): an error it raises as ``SystemExit("error: ...")`` is
    printed as its one line and the command exits with status 2, as argparse does for a bad
    flag."""
    quiet_logs()
    use_compile_cache()
    try:
        main()
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            raise SystemExit(2) from None
        raise
