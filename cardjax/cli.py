"""Argument types shared by the command-line entry points (argparse ``type=`` callables)."""

from __future__ import annotations

import argparse
import math
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


def run_command(main: Callable) -> None:
    """Run a command's ``main()``: an error it raises as ``SystemExit("error: ...")`` is printed
    as its one line and the command exits with status 2, as argparse does for a bad flag."""
    try:
        main()
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            raise SystemExit(2) from None
        raise
