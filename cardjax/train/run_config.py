"""A run directory's config at the start of a training command: whether a run exists there, the
config of a new or resumed run (typed flags against the checkpoint's, :func:`resolve_config`),
the newest readable checkpoint config (:func:`readable_config`) and the evaluation settings a
resumed run keeps unless retyped (:func:`resolve_eval_settings`).  The loop that trains is in
:mod:`cardjax.train.runner`."""

from __future__ import annotations

import os
import sys
from typing import Callable

from cardjax.registry import RulesMismatch
from cardjax.checkpoint import Checkpoints
from cardjax.train.runner import RunFiles, quiet_unraisable, unreadable


def existing_run(out: str) -> int | None:
    """The newest checkpointed iteration of the run in ``out``, or None."""
    if not os.path.isdir(os.path.join(out, "checkpoints")):
        return None
    return Checkpoints(out).latest()


def resolve_config(out: str, resume: bool, typed: dict, defaults: dict, from_dict: Callable,
                   check_saved: Callable | None = None):
    """``(config, latest iteration or None)`` of a run directory, for the experiments' CLIs.

    A new run takes ``defaults`` updated by the flags the user ``typed``; resuming takes the
    checkpoint's config, and a typed flag that differs from it is an error, as is starting a new
    run where one exists.  ``check_saved(saved) -> error text or None`` can refuse a checkpoint
    (e.g. one made by another trainer).  Errors are ``SystemExit`` with a message.
    """
    latest = existing_run(out)
    if latest is None:
        if resume:
            raise SystemExit(f"error: --resume: no run in {out} (no checkpoint); check the "
                             "directory, or drop --resume to start a new run there")
        try:
            return from_dict({**defaults, **typed}), None
        except ValueError as e:
            raise SystemExit(f"error: {e}") from None
    if not resume:
        raise SystemExit(f"error: {out} already holds a run (iteration {latest}); pass "
                         "--resume to continue it or choose another --out")
    latest, saved = readable_config(out)
    problem = check_saved(saved) if check_saved else None
    if problem:
        raise SystemExit(f"error: {out}: {problem}")
    clash = {k: (v, saved[k]) for k, v in typed.items() if k in saved and v != saved[k]}
    if clash:
        lines = ", ".join(f"--{k} {a} (the run has {b})" for k, (a, b) in clash.items())
        raise SystemExit(f"error: {lines}: a resumed run keeps the training flags of its "
                         "checkpoint; drop them or start a new --out")
    return from_dict(saved), latest


def readable_config(out: str) -> tuple[int, dict]:
    """``(iteration, config)`` of the newest checkpoint of ``out`` whose config can be read; each
    unreadable one is reported in one line (:func:`initial_state` then restores at or before that
    iteration).  ``SystemExit`` when none can be read."""
    ckpt = Checkpoints(out)
    tried = []
    try:
        for step in ckpt.steps():
            try:
                with quiet_unraisable():
                    return step, ckpt.config(step)
            except RulesMismatch as e:  # intact, but of other rules: older ones are too
                raise SystemExit(f"error: {e}") from None
            except Exception as e:  # a damaged checkpoint fails in orbax or JSON
                item = os.path.join(ckpt.directory, str(step), "config")
                print(f"checkpoint of iteration {step} in {out} is unreadable: "
                      f"{unreadable(e, item)}", file=sys.stderr)
                tried.append(step)
    finally:
        ckpt.close()
    raise SystemExit(f"error: no intact checkpoint in {out} (tried iterations "
                     f"{', '.join(map(str, tried))}); the run directory is unchanged")


def resolve_eval_settings(out: str, resume: bool, args, defaults: dict,
                          is_main: bool = True) -> dict:
    """The run's evaluation settings ``{flag: value}`` over the keys of ``defaults``.

    A flag is typed when its attribute of ``args`` (an argparse namespace whose evaluation flags
    default to None) is not None.  A new run takes ``defaults`` updated by the typed flags;
    ``resume`` takes the settings saved in ``out`` (the command's ``defaults`` where the run
    directory has none, e.g. one made before they were saved), and a typed flag overrides its
    saved value.  The main process (``is_main``) saves the result in
    ``RunFiles(out).eval_settings`` and, when resuming, prints which settings changed.  Call it
    after :func:`resolve_config`, which refuses a new run where one exists.  A settings file that
    cannot be read is a ``SystemExit`` with a message.
    """
    files = RunFiles(out)
    typed = {k: getattr(args, k) for k in defaults if getattr(args, k, None) is not None}
    try:
        saved = files.read_eval_settings() if resume else None
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    base = {**defaults, **{k: v for k, v in (saved or {}).items() if k in defaults}}
    settings = {**base, **typed}
    if is_main:
        if resume and saved is None and existing_run(out) is not None:
            print(f"--resume: no saved evaluation settings in {out}; using the command's "
                  "defaults and typed flags", file=sys.stderr)
        changed = {k: (base[k], v) for k, v in settings.items() if v != base[k]}
        if resume and saved is not None and changed:
            print("evaluation settings changed: " + ", ".join(
                f"--{k} {a} -> {b}" for k, (a, b) in changed.items()), file=sys.stderr)
        if settings != saved:
            files.write_eval_settings(settings)
    return settings
