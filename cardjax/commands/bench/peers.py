"""The peers ``cardjax bench envs`` times beside cardjax: other simulators of a similar game, each
playing whole random games in worker processes that import neither JAX nor cardjax."""

from __future__ import annotations

import json
import os
import sys
from typing import Callable


# ---------------------------------------------------------------------------------- peers
# Every measured peer plays whole games with uniformly random legal moves in ``processes``
# worker processes at once (default: one per usable core), each for ``seconds`` after all of them
# are ready; decisions/s and games/s are summed over the processes.  A worker is a fresh
# ``python -c`` running only the peer's setup function (its source, see ``_run_peer``): it imports
# the peer package but neither JAX nor this script, and nothing is forked from a process that
# holds JAX's threads.
#
# Hearts in OpenSpiel: with ``pass_cards=False`` the first chance node (the pass direction) has
# one legal action, "no pass" (0), but ``chance_outcomes()`` still offers all four directions, so
# a game whose chance nodes are sampled (``evaluate_bots`` does, and so did the Python loop here
# before) passes cards three games in four (64 decisions instead of 52).  The peers apply "no
# pass" first, so that a game is 52 card plays like Gongzhu.
HEARTS_NO_PASS = (0,)
# Share of ``seconds`` each ``evaluate_bots`` worker spends, after the timed games, playing
# further games the same way to count their decisions (evaluate_bots returns only the returns).
COUNT_SHARE = 0.25
TRACTOR_QUOTE = {
    "games_per_s": 20.0,
    "processes": 1,
    "note": "ShengJi+ report's Python environment, quoted, not re-measured: no installable "
            "Tractor engine",
}


class PeerError(RuntimeError):
    """A peer's worker process failed."""


def peer_processes_default() -> int:
    """Usable cores: the affinity mask where the OS has one, else ``os.cpu_count()``."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def _play_for(play_game, seconds):
    """Call ``play_game() -> decisions`` until ``seconds`` have passed (at least once)."""
    import time

    decisions = games = 0
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while True:
        decisions += play_game()
        games += 1
        if time.perf_counter() >= deadline:
            break
    return {"decisions": decisions, "games": games, "seconds": time.perf_counter() - t0}


def _openspiel_whole_games_worker(name, params, prefix, seed, count_share):
    """Worker: OpenSpiel games played whole in C++ by ``pyspiel.evaluate_bots`` with uniform
    random bots (chance nodes sampled in C++).  The timed games are not looked at; afterwards,
    for ``count_share`` of the time, further games are played the same way and their decisions
    (history entries of a player, not of chance) counted."""
    import random
    import time

    import pyspiel

    game = pyspiel.load_game(name, params)
    rng = random.Random(seed)
    bots = [pyspiel.make_uniform_random_bot(p, rng.getrandbits(31))
            for p in range(game.num_players())]
    root = game.new_initial_state()
    for action in prefix:
        assert action in root.legal_actions(), (action, root.legal_actions())
        root.apply_action(action)

    def run(seconds):
        evaluate, clone, seeds = pyspiel.evaluate_bots, root.clone, rng.getrandbits
        games = 0
        t0 = time.perf_counter()
        deadline = t0 + seconds
        while True:
            evaluate(clone(), bots, seeds(31))
            games += 1
            if time.perf_counter() >= deadline:
                break
        dt = time.perf_counter() - t0
        counted = decisions = 0
        deadline = time.perf_counter() + count_share * seconds
        while True:
            state = clone()
            evaluate(state, bots, seeds(31))
            decisions += sum(1 for pa in state.full_history() if pa.player >= 0)
            counted += 1
            if time.perf_counter() >= deadline:
                break
        return {"games": games, "seconds": dt, "counted_games": counted,
                "counted_decisions": decisions}

    return run


def _openspiel_python_loop_worker(name, params, prefix, seed):
    """Worker: OpenSpiel games stepped from a Python loop, one pyspiel call per action; chance
    nodes sampled from their outcome probabilities, every decision counted."""
    import random

    import pyspiel

    game = pyspiel.load_game(name, params)
    rng = random.Random(seed)
    root = game.new_initial_state()
    for action in prefix:
        root.apply_action(action)

    def play_game():
        state, decisions = root.clone(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(actions, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
        return decisions

    return lambda seconds: _play_for(play_game, seconds)


def _rlcard_doudizhu_worker(api, seed):
    """Worker: RLCard's Dou Dizhu from ``rlcard.make('doudizhu')``, random legal actions.
    ``api="env"``: ``env.reset``/``env.step`` (with the observation encoding an agent gets);
    ``api="game"``: the env's game engine, ``env.game.init_game``/``env.game.step``."""
    import random

    import rlcard

    env = rlcard.make("doudizhu", config={"seed": seed})
    game = env.game
    rng = random.Random(seed)

    def play_env():
        state, _ = env.reset()
        decisions = 0
        while not env.is_over():
            state, _ = env.step(rng.choice(list(state["legal_actions"])))
            decisions += 1
        return decisions

    def play_game():
        state, _ = game.init_game()
        decisions = 0
        while not game.is_over():
            state, _ = game.step(rng.choice(state["actions"]))
            decisions += 1
        return decisions

    play = {"env": play_env, "game": play_game}[api]
    return lambda seconds: _play_for(play, seconds)


def _douzero_worker(seed):
    """Worker: DouZero's pure-Python ``douzero.env.game.GameEnv`` (torch not needed), random
    legal moves; deals as DouZero's ``Env.reset`` does (landlord 20 cards, no bidding)."""
    import random

    from douzero.env.game import GameEnv

    rng = random.Random(seed)

    class RandomPlayer:
        def act(self, infoset):
            return rng.choice(infoset.legal_actions)

    deck = [r for r in range(3, 15) for _ in range(4)] + [17] * 4 + [20, 30]
    env = GameEnv({pos: RandomPlayer() for pos in ("landlord", "landlord_up", "landlord_down")})

    def play_game():
        cards = deck.copy()
        rng.shuffle(cards)
        env.reset()
        env.card_play_init({
            "landlord": sorted(cards[:20]), "landlord_up": sorted(cards[20:37]),
            "landlord_down": sorted(cards[37:54]), "three_landlord_cards": sorted(cards[17:20]),
        })
        decisions = 0
        while not env.game_over:
            env.step()
            decisions += 1
        return decisions

    return lambda seconds: _play_for(play_game, seconds)


# What a worker process runs after the source of ``_play_for`` and of its setup function:
# set up, say "ready", wait for "go" on stdin, play for the given seconds, print the counts.
_WORKER_MAIN = """
import json, sys
_spec = json.loads(sys.argv[1])
_run = {setup}(**_spec["kwargs"])
print("ready", flush=True)
sys.stdin.readline()
print(json.dumps(_run(_spec["seconds"])), flush=True)
"""


# seconds a worker may take to set up (import its package), or past its playing time to report,
# before the run is called failed: a peer that hangs must not hang the benchmark
PEER_GRACE = 300.0


def _lines(stream):
    """A queue that a daemon thread fills with ``stream``'s lines (then ``None`` at its end), so
    that a read can give up after a deadline."""
    import queue
    import threading

    lines: queue.Queue = queue.Queue()

    def pump():
        for line in stream:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return lines


def _run_peer(setup: Callable, kwargs: dict, seconds: float, processes: int | None,
              seed: int, grace: float = PEER_GRACE) -> dict:
    """Run ``setup(**kwargs, seed=...)`` in ``processes`` worker processes at once and sum their
    rates.  Worker ``i`` gets seed ``seed * 1000 + i``; all start playing together once every
    one is set up.  Decisions are the workers' own counts or, for workers that only count them
    on further games (``counted_games``), games x the pooled mean decisions per game.  A worker
    silent for ``grace`` seconds past its time fails the run (:class:`PeerError`)."""
    import inspect
    import queue
    import time
    import subprocess
    import tempfile
    import textwrap

    processes = processes or peer_processes_default()
    source = "\n".join(textwrap.dedent(inspect.getsource(f)) for f in (_play_for, setup))
    source += _WORKER_MAIN.format(setup=setup.__name__)
    # one core each: no BLAS or OpenMP thread pools inside a worker
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    procs = []
    try:
        for i in range(processes):
            spec = {"kwargs": {**kwargs, "seed": seed * 1000 + i}, "seconds": seconds}
            err = tempfile.TemporaryFile(mode="w+")
            proc = subprocess.Popen([sys.executable, "-c", source, json.dumps(spec)],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                    text=True, env=env)
            procs.append((proc, err, _lines(proc.stdout)))

        def fail(proc, err):
            proc.wait(timeout=grace)
            err.seek(0)
            lines = err.read().strip().splitlines()
            raise PeerError(f"{setup.__name__} worker exited with status {proc.returncode}"
                            + (f": {lines[-1]}" if lines else ""))

        def last_line(proc, err, lines, done, deadline, what):
            # lines a peer package prints itself are skipped
            while True:
                try:
                    line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    raise PeerError(f"{setup.__name__} worker did not {what} within "
                                    f"{grace:g} s") from None
                if line is None:
                    fail(proc, err)
                if done(line.strip()):
                    return line.strip()

        deadline = time.monotonic() + grace
        for proc, err, lines in procs:
            last_line(proc, err, lines, lambda line: line == "ready", deadline, "set up")
        for proc, _, _ in procs:  # go
            proc.stdin.write("go\n")
            proc.stdin.flush()
        results = []
        deadline = time.monotonic() + seconds + grace
        for proc, err, lines in procs:
            results.append(json.loads(last_line(proc, err, lines,
                                                lambda line: line.startswith("{"), deadline,
                                                "report its counts")))
            proc.wait(timeout=grace)
    finally:
        for proc, err, _ in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            err.close()

    if all("decisions" in r for r in results):
        mean = sum(r["decisions"] for r in results) / sum(r["games"] for r in results)
        counted = "every decision of every timed game"
    else:
        counted_games = sum(r["counted_games"] for r in results)
        mean = sum(r["counted_decisions"] for r in results) / counted_games
        counted = (f"games/s x {mean:.2f} decisions per game, the mean of {counted_games:,} "
                   "further games played the same way after the timed ones (untimed), counted "
                   "from each finished game's history")
    per_process = []
    for r in results:
        games_per_s = r["games"] / r["seconds"]
        decisions = r["decisions"] if "decisions" in r else r["games"] * mean
        per_process.append({"decisions_per_s": decisions / r["seconds"],
                            "games_per_s": games_per_s, "games": r["games"],
                            "seconds": r["seconds"]})
    decisions_per_s = sum(p["decisions_per_s"] for p in per_process)
    games_per_s = sum(p["games_per_s"] for p in per_process)
    return {
        "measured": True,
        "processes": processes,
        "decisions_per_s": decisions_per_s,
        "games_per_s": games_per_s,
        "decisions_per_s_per_process": decisions_per_s / processes,
        "games_per_s_per_process": games_per_s / processes,
        "mean_decisions_per_game": mean,
        "decisions_counted": counted,
        "games": sum(r["games"] for r in results),
        "seconds": seconds,
        "per_process": per_process,
    }


def _peer(setup: Callable, kwargs: dict, package: str, dist: str, seconds: float, seed: int,
          processes: int | None, note: str) -> dict:
    """``_run_peer`` after importing ``package`` here (so that a missing peer raises
    ImportError, and is reported as not installed), with the peer's version and note."""
    __import__(package)
    res = _run_peer(setup, kwargs, seconds, processes, seed)
    return {**res, "version": version(dist), "note": note}


def bench_openspiel_hearts(seconds: float, seed: int = 0, processes: int | None = None) -> dict:
    """OpenSpiel's C++ Hearts, whole games in C++ (``pyspiel.evaluate_bots``, uniform random
    bots), one process per core.  No card passing (see ``HEARTS_NO_PASS``): 52 decisions a game."""
    return _peer(_openspiel_whole_games_worker,
                 {"name": "hearts", "params": {"pass_cards": False}, "prefix": HEARTS_NO_PASS,
                  "count_share": COUNT_SHARE},
                 "pyspiel", "open_spiel", seconds, seed, processes,
                 "whole games in C++: pyspiel.evaluate_bots with make_uniform_random_bot, deal "
                 "sampled in C++; pass_cards=False with 'no pass' applied first; decisions = games "
                 "x mean decisions/game, counted from the histories of further games played the "
                 "same way after the timed ones")


def bench_openspiel_doudizhu(seconds: float, seed: int = 0, processes: int | None = None) -> dict:
    """OpenSpiel's C++ ``dou_dizhu`` (default parameters), whole games in C++
    (``pyspiel.evaluate_bots``, uniform random bots), one process per core.  Its own bidding
    comes first: every decision counts, bids and passes included; chance nodes (the deal, the
    first bidder) do not."""
    return _peer(_openspiel_whole_games_worker,
                 {"name": "dou_dizhu", "params": {}, "prefix": (), "count_share": COUNT_SHARE},
                 "pyspiel", "open_spiel", seconds, seed, processes,
                 "whole games in C++: pyspiel.evaluate_bots with make_uniform_random_bot, deal "
                 "sampled in C++; bids counted; decisions = games x mean decisions/game, counted "
                 "from the histories of further games played the same way after the timed ones")


def bench_openspiel_hearts_python_loop(seconds: float, seed: int = 0,
                                       processes: int | None = None) -> dict:
    """The old figure: OpenSpiel's Hearts stepped from a Python loop (pyspiel's call overhead)."""
    return _peer(_openspiel_python_loop_worker,
                 {"name": "hearts", "params": {"pass_cards": False}, "prefix": HEARTS_NO_PASS},
                 "pyspiel", "open_spiel", seconds, seed, processes,
                 "secondary: stepped from a Python loop, one pyspiel call per action (measures "
                 "the binding's overhead, not C++); no passing")


def bench_openspiel_doudizhu_python_loop(seconds: float, seed: int = 0,
                                         processes: int | None = None) -> dict:
    """The old figure: OpenSpiel's ``dou_dizhu`` stepped from a Python loop."""
    return _peer(_openspiel_python_loop_worker,
                 {"name": "dou_dizhu", "params": {}, "prefix": ()},
                 "pyspiel", "open_spiel", seconds, seed, processes,
                 "secondary: stepped from a Python loop, one pyspiel call per action (measures "
                 "the binding's overhead, not C++); bids counted")


def bench_rlcard_doudizhu(seconds: float, seed: int = 0, processes: int | None = None) -> dict:
    """RLCard's pure-Python Dou Dizhu engine (``rlcard.make('doudizhu').game``), random legal
    actions, one process per core.  No bidding (RLCard's seat 0 is always the landlord)."""
    return _peer(_rlcard_doudizhu_worker, {"api": "game"}, "rlcard", "rlcard", seconds, seed,
                 processes, "pure Python: rlcard.make('doudizhu').game, init_game/step, random "
                 "legal actions, no observation encoding; no bidding")


def bench_rlcard_doudizhu_env(seconds: float, seed: int = 0,
                              processes: int | None = None) -> dict:
    """RLCard's Dou Dizhu env (``rlcard.make('doudizhu')``) through ``reset``/``step``, which
    also encode the observation and the legal actions for an agent."""
    return _peer(_rlcard_doudizhu_worker, {"api": "env"}, "rlcard", "rlcard", seconds, seed,
                 processes, "pure Python: rlcard.make('doudizhu'), env.reset/env.step with "
                 "observation encoding, random legal actions; no bidding")


def bench_douzero(seconds: float, seed: int = 0, processes: int | None = None) -> dict:
    """DouZero's pure-Python ``GameEnv`` (``pip install --no-deps douzero``: only
    ``douzero.env.game`` is used, torch is not needed), random legal moves, one process per
    core.  Every ``GameEnv.step`` (one move, pass included) is a decision; no bidding."""
    return _peer(_douzero_worker, {}, "douzero.env.game", "douzero", seconds, seed, processes,
                 "pure Python: douzero.env.game.GameEnv, random legal moves; no bidding")


def cite_shengji_plus(seconds: float = 0.0, seed: int = 0, processes: int | None = None) -> dict:
    """The ShengJi+ report's Python Tractor environment, quoted (about 20 hands/s on one core),
    not measured: no Tractor engine can be installed from PyPI."""
    return {"measured": False, "decisions_per_s": None, "version": None, **TRACTOR_QUOTE}


def peer_ratio(best: dict, res: dict) -> tuple[float | None, str | None]:
    """(cardjax best / peer, what was divided): steps/s over the peer's decisions/s, or for a
    peer known only in games/s, cardjax's games/s at its best batch over the peer's games/s."""
    if res.get("decisions_per_s"):
        return best["steps_per_s"] / res["decisions_per_s"], "steps/s / decisions/s"
    if res.get("games_per_s") and best.get("games_per_s"):
        return best["games_per_s"] / res["games_per_s"], "games/s / games/s"
    return None, None


# game -> [(peer name, fn(seconds, seed=, processes=) -> dict)]; a peer whose package cannot be
# imported is skipped with a note.  Mini Dou Di Zhu has no peer simulator.  Rows marked
# "secondary" are the old way of driving OpenSpiel, kept for comparison.
PEERS: dict[str, list[tuple[str, Callable[..., dict]]]] = {
    "gongzhu": [("open_spiel hearts", bench_openspiel_hearts),
                ("open_spiel hearts, Python loop", bench_openspiel_hearts_python_loop)],
    "doudizhu": [("open_spiel dou_dizhu", bench_openspiel_doudizhu),
                 ("open_spiel dou_dizhu, Python loop", bench_openspiel_doudizhu_python_loop),
                 ("rlcard doudizhu game", bench_rlcard_doudizhu),
                 ("rlcard doudizhu env", bench_rlcard_doudizhu_env),
                 ("douzero GameEnv", bench_douzero)],
    "tractor": [("ShengJi+ Python env (quoted)", cite_shengji_plus)],
}


def version(dist: str) -> str | None:
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:
        return None
