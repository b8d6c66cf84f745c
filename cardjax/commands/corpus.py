"""Play games with chosen players and store them as a corpus (``docs/corpus.md``).

    cardjax corpus --game gongzhu --players greed --games 20000 --out corpora/greed
    cardjax corpus --game gongzhu --players greed if greed if --games 20000 --out DIR
    cardjax corpus --game doudizhu --players rule --games 50000 --out corpora/ddz
    cardjax corpus --game tractor --players rule runs/shengji rule runs/shengji ...
    cardjax corpus --out corpora/greed --games 40000 --resume   # continue, or extend
    cardjax corpus --records games.txt more.txt --out corpora/records  # Dou Dizhu

``--players``: one player for every seat, or one per seat (seat order), each a baseline name (with
settings after a colon, e.g. ``ismcts:iterations=300``) or a training run directory.  Games are
played ``--batch`` at a time on the default device and written in chunks of ``--chunk`` deals
(one shard per split and chunk; 90% of the deals train, 5% valid, 5% test).  A stopped command
keeps every chunk it finished; ``--resume`` continues it with the same game, players and seed
(a larger ``--games`` extends the corpus).

``--records``: Dou Dizhu games written in the DeepRocket paper's record format (``docs/games.md``,
"Game records") instead of played ones, read a record at a time and checked move by move (an
illegal move or a malformed record stops the command, naming the file, line and move; the chunks
before it are kept, and ``--resume`` continues after them once the file is mended).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
from tqdm import tqdm

import cardjax
from cardjax import agents, corpus, registry
from cardjax.cli import positive_int


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", choices=cardjax.GAMES, default=None,
                   help="the game (default gongzhu; with --resume, the corpus's)")
    p.add_argument("--players", nargs="+", default=None, metavar="PLAYER",
                   help="one player for every seat or one per seat (default: the game's first "
                        "baseline other than random)")
    p.add_argument("--records", nargs="+", default=None, metavar="FILE",
                   help="Dou Dizhu record files to store instead of playing games")
    p.add_argument("--games", type=positive_int, default=None,
                   help="deals in the corpus (required unless --records; with it, at most this "
                        "many records)")
    p.add_argument("--out", required=True, help="the corpus directory")
    p.add_argument("--seed", type=int, default=None, help="default 0 (with --resume, the corpus's)")
    p.add_argument("--batch", type=positive_int, default=256, help="games played at once")
    p.add_argument("--chunk", type=positive_int, default=8192,
                   help="deals per chunk: the unit written and kept when the command stops")
    p.add_argument("--resume", action="store_true", help="continue the corpus in --out")
    p.add_argument("--no-progress", action="store_true")
    return p.parse_args(argv)


def main(argv=None) -> dict:
    args = parse_args(argv)
    if args.records is not None or (args.resume and _has_records(args.out)):
        return from_records(args)
    if args.games is None:
        raise SystemExit("error: --games is required (unless --records)")
    if args.resume:
        try:
            m = corpus.store.read_manifest(args.out)
        except corpus.CorpusError as e:
            raise SystemExit(f"error: --resume: {e}") from None
        for flag, value, have in (("--game", args.game, m["game"]),
                                  ("--players", args.players, m["settings"]["players"]),
                                  ("--seed", args.seed, m["settings"]["seed"])):
            if value is not None and value != have:
                raise SystemExit(f"error: --resume: the corpus in {args.out} has {flag} {have}, "
                                 f"not {value}")
        game, specs, seed = m["game"], m["settings"]["players"], m["settings"]["seed"]
        env = cardjax.make(game, **m["options"])
    else:
        game = args.game or "gongzhu"
        env = cardjax.make(game)
        specs = args.players or [registry.spec(game).default_opponent]
        seed = 0 if args.seed is None else args.seed
    if len(specs) not in (1, env.num_players):
        raise SystemExit(f"error: --players: one player or {env.num_players} (one per seat) for "
                         f"{game}, got {len(specs)}")
    # one player per distinct spec: the recorder plays each distinct player once a step, and a
    # spec loaded twice is two players (two copies of it in the program)
    loaded = {s: _agent(env, s) for s in dict.fromkeys(specs)}
    lineup = [loaded[s] for s in (specs * env.num_players if len(specs) == 1 else specs)]
    try:
        writer = corpus.CorpusWriter(args.out, env, {"players": list(specs), "seed": seed},
                                     args.chunk, resume=args.resume)
    except corpus.CorpusError as e:
        raise SystemExit(f"error: {e}") from None
    recorder = corpus.make_recorder(env, lineup)
    start, t0 = writer.next_deal, time.perf_counter()
    if start >= args.games:
        print(f"{args.out} already holds {start} deals", file=sys.stderr)
    elif start:
        print(f"resuming {args.out} at deal {start}", file=sys.stderr)
    bar = tqdm(total=args.games, initial=min(start, args.games), unit="game", file=sys.stderr,
               disable=args.no_progress, desc=f"{game}: {' '.join(specs)}")
    for first in range(start, args.games, args.chunk):
        ids = np.arange(first, min(args.games, first + args.chunk))
        parts = []
        for b in range(0, ids.size, args.batch):
            batch = ids[b:b + args.batch]
            padded = np.resize(batch, args.batch)  # one compiled size; the padding is dropped
            g = corpus.record_games(env, lineup, seed, padded, recorder)
            parts.append(g.take(np.arange(batch.size)))
            bar.update(batch.size)
        writer.add_chunk(corpus.Games.concat(parts), seed)
    bar.close()
    return _summary(args.out, writer, {"game": game, "players": specs, "seed": seed}, t0)


def _summary(out, writer, what: dict, t0) -> dict:
    m = writer.manifest
    summary = {"out": out, **what, "deals": m["next_deal"],
               "seconds": round(time.perf_counter() - t0, 1)}
    for split in corpus.SPLITS:
        shards = [s for s in m["shards"] if s["split"] == split]
        summary[split] = {"games": sum(s["games"] for s in shards),
                          "decisions": sum(s["decisions"] for s in shards),
                          "bytes": sum(s["bytes"] for s in shards)}
    print(" ".join(f"{k}: {v['games']} games, {v['decisions']} decisions, "
                   f"{v['bytes'] / 2**20:.1f} MiB;" for k, v in
                   ((s, summary[s]) for s in corpus.SPLITS)), file=sys.stderr)
    return summary


def _has_records(out: str) -> bool:
    try:
        return "records" in corpus.store.read_manifest(out)["settings"]
    except corpus.CorpusError:
        return False


def _records(files):
    """``(file, record)`` of every record of the files, in order, one at a time."""
    from cardjax.games.doudizhu.record_text import iter_records

    for name in files:
        try:
            f = open(name, encoding="utf-8")
        except OSError as e:
            raise SystemExit(f"error: --records: {name}: {e.strerror}") from None
        with f:
            try:
                for r in iter_records(f, check=False):
                    yield name, r
            except ValueError as e:
                raise SystemExit(f"error: --records: {name}: {e}") from None


def from_records(args) -> dict:
    """The corpus of the games in Dou Dizhu record files (module docstring)."""
    from cardjax.games.doudizhu import records as doudizhu_records

    if args.game not in (None, "doudizhu"):
        raise SystemExit("error: --records: records are Dou Dizhu games, not --game " + args.game)
    if args.players is not None:
        raise SystemExit("error: --records and --players: the records' players made the moves")
    files = None if args.records is None else [os.path.abspath(f) for f in args.records]
    if args.resume:
        m = corpus.store.read_manifest(args.out)
        if files is not None and files != m["settings"]["records"]:
            raise SystemExit(f"error: --resume: the corpus in {args.out} was made from "
                             f"{' '.join(m['settings']['records'])}")
        files, seed = m["settings"]["records"], m["settings"]["seed"]
    else:
        seed = 0 if args.seed is None else args.seed
    env = cardjax.make("doudizhu")
    try:
        writer = corpus.CorpusWriter(args.out, env, {"records": files, "seed": seed},
                                     args.chunk, resume=args.resume)
    except corpus.CorpusError as e:
        raise SystemExit(f"error: {e}") from None
    limit = args.games or float("inf")
    start, t0 = writer.next_deal, time.perf_counter()
    bar = tqdm(initial=start, unit="record", file=sys.stderr, disable=args.no_progress,
               desc="doudizhu: records")
    states, actions, n = [], [], 0
    for name, record in _records(files):
        if n >= limit:
            break
        n += 1
        if n <= start:
            continue  # written before (--resume)
        try:  # checked move by move (one jitted step, cached per env)
            seen, acts = doudizhu_records.replay_actions(record, env)
        except ValueError as e:
            raise SystemExit(f"error: --records: {name}: {e}") from None
        states.append(seen[0])
        actions.append(acts)
        bar.update(1)
        if len(states) == args.chunk:
            _write(writer, env, states, actions, seed)
            states, actions = [], []
    if states:
        _write(writer, env, states, actions, seed)
    bar.close()
    return _summary(args.out, writer, {"game": "doudizhu", "records": files, "seed": seed}, t0)


def _write(writer, env, states, actions, seed):
    first = writer.next_deal
    ids = np.arange(first, first + len(states))
    writer.add_chunk(corpus.games_from_actions(env, states, actions, ids), seed)


def _agent(env, spec: str):
    try:
        return agents.load(env, spec)
    except ValueError as e:
        raise SystemExit(f"error: --players: {e}") from None
