"""The Python loop around a jitted training step: log, checkpoint, evaluate, resume.

Everything that changes during training lives in the train state, which is checkpointed whole,
so a run killed at any moment and restarted with ``resume=True`` continues from its last
checkpoint exactly as if it had never stopped: ``metrics.jsonl`` and ``eval.json`` are cut back
to that checkpoint, and an evaluation that was due at it but never finished is run first.

Files in the run directory ``out``:

* ``checkpoints/<iteration>/``: train state and config (:mod:`cardjax.checkpoint`);
* ``metrics.jsonl``: one object per iteration (``iteration``, the step's metrics, ``seconds``,
  ``elapsed_s`` (training wall time since the run began, over all restarts), the speed under
  ``rate_name``);
* ``eval.json``: ``{"evaluations": [{iteration, elapsed_s, mean, stderr, ...}, ...]}``;
* ``eval_settings.json``: the command's evaluation flags (``eval_every``, ``eval_deals``, ...),
  which a resumed run keeps unless retyped
  (:func:`~cardjax.train.run_config.resolve_eval_settings`);
* ``curves.png``: loss, value error, speed and evaluation curves.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import json
import os
import re
import sys
import threading
import time
from typing import Any, Callable

import jax
import numpy as np
from tqdm.auto import tqdm

from cardjax import programs
from cardjax.train import metrics as mlog
from cardjax.checkpoint import Checkpoints
from cardjax.train.sharding import data_mesh


@dataclasses.dataclass
class RunFiles:
    out: str

    @property
    def metrics(self) -> str:
        return os.path.join(self.out, "metrics.jsonl")

    @property
    def eval(self) -> str:
        return os.path.join(self.out, "eval.json")

    @property
    def curves(self) -> str:
        return os.path.join(self.out, "curves.png")

    @property
    def eval_settings(self) -> str:
        return os.path.join(self.out, "eval_settings.json")

    def read_eval_settings(self) -> dict | None:
        """The saved evaluation settings, or None when the run has none (a run directory from
        before they were saved, or a new one)."""
        if not os.path.exists(self.eval_settings):
            return None
        with open(self.eval_settings) as f:
            try:
                saved = json.load(f)
            except json.JSONDecodeError as e:
                raise ValueError(f"{self.eval_settings}: not a settings file ({e})") from None
        if not isinstance(saved, dict):
            raise ValueError(f"{self.eval_settings}: not a settings file (not an object)")
        return saved

    def write_eval_settings(self, settings: dict) -> None:
        os.makedirs(self.out, exist_ok=True)
        tmp = self.eval_settings + ".tmp"
        with open(tmp, "w") as f:
            json.dump(settings, f, indent=1)
        os.replace(tmp, self.eval_settings)

    def read_evals(self) -> list[dict]:
        if not os.path.exists(self.eval):
            return []
        with open(self.eval) as f:
            try:
                return json.load(f)["evaluations"]
            except (json.JSONDecodeError, KeyError, TypeError) as e:
                raise ValueError(f"{self.eval}: not an evaluation file ({e})") from None

    def write_evals(self, evals: list[dict], extra: dict | None = None) -> None:
        tmp = self.eval + ".tmp"
        with open(tmp, "w") as f:
            json.dump({**(extra or {}), "evaluations": evals,
                       "final": evals[-1] if evals else None}, f, indent=1)
        os.replace(tmp, self.eval)


_COMPILED: dict = programs.keep({})


def compile_step(step, state):
    """``step`` compiled ahead of time for ``state``'s shapes, kept per (step, shapes) so that a
    second run in the same process (tests, notebooks) does not compile it again."""
    if not hasattr(step, "lower"):
        return step
    leaves, tree = jax.tree_util.tree_flatten(state)
    sig = (step, tree, tuple((np.shape(x), str(getattr(x, "dtype", type(x)))) for x in leaves))
    if sig not in _COMPILED:
        programs.guard()
        _COMPILED[sig] = step.lower(state).compile()
    return _COMPILED[sig]


def add_run_flags(parser, out: str, iterations: int, checkpoint_every: int = 1):
    """The "run" flag group every training command shares: ``--out --iterations --minutes --resume
    --seed --checkpoint_every --multihost --no-progress`` (a command whose iterations take
    milliseconds checkpoints less often: saving costs more than the step)."""
    from cardjax.cli import positive_float, positive_int

    run = parser.add_argument_group("run")
    run.add_argument("--out", default=out, help="run directory")
    run.add_argument("--iterations", type=positive_int, default=iterations,
                     help="train until this many iterations are done (counting resumed ones)")
    run.add_argument("--minutes", type=positive_float, default=None,
                     help="or until this many minutes of training steps are done, counting "
                     "resumed ones (compiling and evaluating not counted); that iteration is "
                     "saved and evaluated as the last")
    run.add_argument("--resume", action="store_true",
                     help="continue the newest checkpoint in --out (its training flags win; "
                     "its evaluation settings unless typed)")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--checkpoint_every", type=positive_int, default=checkpoint_every,
                     help="save every this many iterations and after the last")
    run.add_argument("--multihost", action="store_true",
                     help="call jax.distributed.initialize() first (TPU pod slice, SLURM)")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    return run


def games_mesh(num_envs: int):
    """The data-parallel mesh over every device for ``num_envs`` games (None on one device);
    ``SystemExit`` when the games cannot be split evenly."""
    mesh = data_mesh()
    if num_envs % mesh.devices.size:
        raise SystemExit(f"error: --num_envs {num_envs} must be a multiple of the "
                         f"{mesh.devices.size} devices")
    return mesh if mesh.devices.size > 1 else None


def begin(args, resolve: Callable, make_train: Callable):
    """The start every training command shares: join a multi-process run (``--multihost``),
    resolve the run's config (``resolve(args) -> (config, latest iteration or None)``), build the
    trainer on the games mesh (``make_train(config, mesh)``) and its fresh or restored state.
    Returns ``(config, train, state, checkpoints, is_main)``."""
    check_writable(args.out, create=not args.resume)
    if args.multihost:
        jax.distributed.initialize()
    is_main = jax.process_index() == 0
    cfg, latest = resolve(args)
    train = make_train(cfg, games_mesh(cfg.num_envs))
    state, ckpt = initial_state(args.out, latest, train.init, args.seed, is_main)
    return cfg, train, state, ckpt, is_main


def announce(name: str, details: str, params, out: str) -> None:
    """One line on stderr: what trains on which devices, ``details``, the size of ``params``."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        __version__ = version("cardjax")
    except PackageNotFoundError:  # run from a source tree that is not installed
        __version__ = "(source)"

    count = sum(x.size for x in jax.tree_util.tree_leaves(params))
    print(f"cardjax {__version__}: {name} on {jax.device_count()} {jax.devices()[0].platform} "
          f"device(s); {details} ({count:,} params), out {out}", file=sys.stderr)


def closing(out: str, iteration: int, evals: list, eval_name: str, meaning: str = "",
            game: str | None = None, use: str | None = None, signed: bool = True) -> str:
    """The sentence a training command ends with (on stderr, before its JSON line): where the run
    stands, its last evaluation in words (``meaning``: how to read the figure, e.g. "points a
    game against them; above 0 beats them"), the files it wrote, and how to use what it
    trained (``use``, for a network that is not a player by itself, e.g. "bid with it: ...";
    default: the arena command that plays ``out/player``).  ``signed``: the figure with its sign
    (a score against a baseline; not an accuracy or a loss)."""
    where = os.path.abspath(out)
    parts = [f"trained {iteration} iterations into {where}"]
    if evals:
        last = evals[-1]
        error = f" ± {last['stderr']:.2g}" if last.get("stderr") is not None else ""
        parts.append(f"the last evaluation (iteration {last['iteration']}): {eval_name} "
                     f"{last['mean']:{'+' if signed else ''}.3g}{error}"
                     + (f" ({meaning})" if meaning else ""))
    files = [f for f in ("curves.png", "eval.json", "test.json", "metrics.jsonl",
                         "best.msgpack", "checkpoints", "player")
             if os.path.exists(os.path.join(out, f))]
    if files:
        parts.append("files: " + ", ".join(files))
    if use:
        parts.append(use)
    elif os.path.isdir(os.path.join(out, "player")):
        flag = f"--game {game} " if game else ""
        parts.append(f"play it: cardjax arena {flag}--a {os.path.join(where, 'player')}")
    return "; ".join(parts) + "."


def check_writable(out: str, create: bool = True) -> None:
    """``SystemExit`` with a one-line error unless the run directory ``out`` can be written
    (checked before any work).  ``create``: make it if missing (a new run); otherwise a missing
    directory is left for :func:`~cardjax.train.run_config.resolve_config` to refuse, so a
    mistyped ``--resume`` creates nothing."""
    if not create and not os.path.isdir(out):
        return
    probe = os.path.join(out, f".write-check-{os.getpid()}")
    try:
        os.makedirs(out, exist_ok=True)
        with open(probe, "w"):
            pass
        os.remove(probe)
    except OSError as e:
        raise SystemExit(f"error: --out {out}: cannot write there ({e.strerror or e})") from None


def unreadable(e: Exception, where: str = "") -> str:
    """One line on why a checkpoint could not be read: the start of the error, and the file it
    names (else ``where``)."""
    text = " ".join(str(e).split())
    found = re.search(r"(/[^\s'\"]+/checkpoints/[^\s'\"]+)", text)
    text = text.split(" See full")[0]  # tensorstore appends its whole spec
    what = text[:120] + ("..." if len(text) > 120 else "") if text else type(e).__name__
    place = found.group(1) if found else where
    return f"{what} (file {place})" if place else what


@contextlib.contextmanager
def quiet_unraisable():
    """Silence the "Exception ignored in <coroutine ...>" reports that orbax's abandoned reads
    leave behind when a damaged checkpoint fails (collected here, while silenced)."""
    hook = sys.unraisablehook
    sys.unraisablehook = lambda *_: None
    try:
        yield
    finally:
        gc.collect()
        sys.unraisablehook = hook


def as_fresh(state):
    """A restored ``state`` with its arrays placed as a fresh ``init`` leaves them.  Orbax
    commits what it restores to the default device, and jit lowers a program for committed
    arguments with the device in it: a resumed run would compile its training step and
    evaluation again (in the same process or from the persistent compilation cache, where the
    fresh run's programs are).  Uncommitted copies (through the host) take the fresh programs;
    arrays laid out over a mesh, or over several processes, are kept as restored."""
    if jax.process_count() > 1:
        return state
    default = jax.devices()[0]

    def fresh(x):
        if (isinstance(x, jax.Array) and isinstance(x.sharding, jax.sharding.SingleDeviceSharding)
                and x.sharding.device_set == {default}
                and not jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)):
            return jax.numpy.asarray(np.asarray(x))
        return x

    return jax.tree_util.tree_map(fresh, state)


def initial_state(out: str, latest: int | None, init: Callable, seed: int, is_main: bool = True):
    """``(state, checkpoints)``: a fresh ``init(PRNGKey(seed))``, or the run's newest intact
    checkpoint at or before ``latest``, restored with the shapes and shardings of ``init``'s
    state (:func:`as_fresh`).  An unreadable checkpoint is reported in one line; once an older
    one is restored, the unreadable ones are set aside (``checkpoints/unreadable-<iteration>``).
    With none intact the run directory is left as it is and the error is a ``SystemExit``."""
    ckpt = Checkpoints(out)
    if latest is None:
        return init(jax.random.PRNGKey(seed)), ckpt
    like = jax.eval_shape(init, jax.random.PRNGKey(0))
    bad = []
    for step in [s for s in ckpt.steps() if s <= latest]:
        try:
            with quiet_unraisable():
                state = ckpt.restore(like, step)
        except Exception as e:  # a damaged checkpoint fails in orbax, tensorstore or JSON
            why = unreadable(e, os.path.join(ckpt.directory, str(step)))
            print(f"checkpoint of iteration {step} in {out} is unreadable: {why}",
                  file=sys.stderr)
            bad.append(step)
            continue
        state = as_fresh(state)
        newer = [s for s in ckpt.steps() if s > step]  # unreadable, here or in readable_config
        if is_main:
            for b in newer:
                print(f"set aside as {ckpt.set_aside(b)}", file=sys.stderr)
            print(f"resuming {out} at iteration {step}"
                  + (" (the newest intact checkpoint)" if newer else ""), file=sys.stderr)
        return state, ckpt
    ckpt.close()
    raise SystemExit(f"error: no intact checkpoint in {out} (tried iterations "
                     f"{', '.join(map(str, bad))}); the run directory is unchanged")


def run(*, out: str, state: Any, step: Callable, config: dict, iterations: int,
        units_per_iteration: int | str, rate_name: str = "positions_per_s",
        evaluate: Callable | None = None, eval_every: int = 0, eval_info: dict | None = None,
        checkpoint_every: int = 1, progress: bool = True, is_main: bool = True,
        title: str = "", checkpoints: Checkpoints | None = None,
        eval_name: str = "WPG", stop: Callable | None = None,
        minutes: float | None = None, export: Callable | None = None) -> Any:
    """Run ``step`` until ``state.iteration == iterations``; returns the final state.

    ``state`` is a fresh or restored train state with an int ``iteration`` field; ``step(state)
    -> (state, metrics)``.  The speed ``rate_name`` is ``units_per_iteration`` per second of the
    step: a fixed count, or the name of the metric that counts an iteration's units (e.g.
    ``"frames"`` when the number of decisions varies).  ``evaluate(state) -> dict`` with at least
    ``mean`` and ``stderr`` runs every ``eval_every`` iterations and after the last one (never
    when None or ``eval_every == 0``).  If it has a ``prepare(state)`` attribute (e.g. its matches
    with ``compile_only=True``), that runs in a background thread while the first iterations
    train, so the first evaluation does not wait for the compiler.  ``stop(evaluations) ->
    bool``, asked after each evaluation, ends the run there (early stopping; the iteration is
    checkpointed).  ``export(state, iteration)`` writes the trained player
    (:mod:`cardjax.artifact`) to ``out/player`` after each evaluation (main process only), so a
    run directory holds a player that loads without its trainer.  ``minutes`` ends
    the run at the first iteration after which the training steps
    (resumed ones included) have taken that long; it is saved and evaluated as the last one (every
    process stops there: process 0's clock decides).  Only the main process (``is_main``) writes
    logs and plots; every process takes part in checkpoints.
    """
    files = RunFiles(out)
    os.makedirs(out, exist_ok=True)
    ckpt = checkpoints or Checkpoints(out)
    start = int(state.iteration)
    records = mlog.truncate_after(files.metrics, start) if is_main else []
    evals = [e for e in files.read_evals() if e["iteration"] <= start] if is_main else []
    elapsed = records[-1]["elapsed_s"] if records else 0.0

    def out_of_time():
        late = minutes is not None and elapsed >= 60.0 * minutes
        if minutes is not None and jax.process_count() > 1:
            from jax.experimental import multihost_utils
            late = bool(multihost_utils.broadcast_one_to_all(np.int32(late)))
        return late

    last_i = iterations  # lowered to the iteration where --minutes runs out

    def due(i):
        return evaluate is not None and eval_every > 0 and (i % eval_every == 0 or i == last_i)

    prepared = {}

    def prepare_eval():
        """Compile the evaluation in the background (what the thread raised, it raises later)."""
        try:
            evaluate.prepare(state)
        except BaseException as e:  # noqa: BLE001 -- re-raised by run_eval on this thread
            prepared["error"] = e

    def run_eval(i):
        t0 = time.perf_counter()
        worker = prepared.pop("thread", None)
        if worker is not None:
            worker.join()
        if "error" in prepared:
            raise prepared.pop("error")
        result = evaluate(state)
        evals.append({"iteration": i, "elapsed_s": elapsed,
                      "eval_seconds": time.perf_counter() - t0, **result})
        if is_main:
            files.write_evals(evals, eval_info)
            if export is not None:
                export(state, i)
        return result

    if start > 0 and due(start) and not any(e["iteration"] == start for e in evals):
        run_eval(start)  # the run stopped between its checkpoint and this evaluation

    if start < iterations and out_of_time():
        if is_main and progress:
            print(f"nothing to train: the run's {minutes:g} minutes are done", file=sys.stderr)
        iterations = last_i = start

    if start < iterations and hasattr(step, "lower"):
        # compile before the clock starts, so the first iteration's speed is a real one
        t0 = time.perf_counter()
        if is_main and progress:
            print("compiling the training step...", file=sys.stderr, flush=True)
        step = compile_step(step, state)
        if is_main and progress:
            print(f"compiled the training step in {time.perf_counter() - t0:.1f} s",
                  file=sys.stderr)

    if is_main and start < iterations and due(iterations) and hasattr(evaluate, "prepare"):
        prepared["thread"] = threading.Thread(target=prepare_eval, name="compile-evaluation",
                                              daemon=True)
        prepared["thread"].start()

    bar = tqdm(total=iterations, initial=start, desc="train", unit="it", file=sys.stderr,
               disable=not (progress and is_main), dynamic_ncols=True)
    for i in range(start + 1, iterations + 1):
        t0 = time.perf_counter()
        state, m = step(state)
        m = {k: float(v) for k, v in jax.device_get(m).items()}
        seconds = time.perf_counter() - t0
        elapsed += seconds
        units = m[units_per_iteration] if isinstance(units_per_iteration, str) \
            else units_per_iteration
        rate = units / seconds
        record = {"iteration": i, **m, "seconds": seconds, "elapsed_s": elapsed, rate_name: rate}
        if is_main:
            mlog.append_jsonl(files.metrics, record)
            records.append(record)
        if out_of_time():
            last_i = i
        if i % checkpoint_every == 0 or i == last_i:
            ckpt.save(i, state, config)
        post = {"loss": f"{m['loss']:.3f}", rate_name.split("_per_")[0] + "/s": f"{rate:,.0f}"}
        if due(i):
            ckpt.wait()
            compiling = "thread" in prepared and prepared["thread"].is_alive()
            bar.set_description(("compiling the evaluation" if compiling else "evaluating")
                                + f" ({eval_name})")
            r = run_eval(i)
            bar.set_description("train")
            bar.unpause()  # the ETA counts training iterations only, not the evaluation
            post["eval"] = f"{r['mean']:+.1f}"
        bar.set_postfix(post)
        bar.update(1)
        stopping = due(i) and stop is not None and stop(evals)
        if stopping and not (i % checkpoint_every == 0 or i == last_i):
            ckpt.save(i, state, config)
        if is_main and (due(i) or i == last_i):
            mlog.plot_curves(records, evals, files.curves, title, rate_name=rate_name,
                             eval_name=eval_name)
        if stopping:
            if is_main and progress:
                print(f"stopped at iteration {i}: no better evaluation in a while",
                      file=sys.stderr)
            break
        if i == last_i < iterations:
            if is_main and progress:
                print(f"stopped at iteration {i}: {minutes:g} minutes of training done",
                      file=sys.stderr)
            break
    bar.close()
    ckpt.wait()
    return state
