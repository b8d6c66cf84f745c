"""The on-disk format of a game corpus, and its streaming reader.

A corpus is a directory::

    manifest.json               what the corpus holds; the only file a reader trusts
    train-00000.npz ...         shards, one per split and chunk of deals
    valid-00000.npz, test-00000.npz

A game is stored as its initial state (every field of the env's state, hidden ones included) and
the actions played from it; replaying the actions with the env gives every later state, so the
features a trainer computes can change without making a new corpus.  A shard is a NumPy
``.npz`` (zlib-compressed) with, for its ``n`` games:

* ``deal_id`` int64[n]: the deal's index in the corpus (deals ``0 .. games - 1``);
* ``actions`` int16[n, max_steps]: the actions in order, ``-1`` after the last;
* ``length`` int32[n]: the number of actions;
* ``returns`` float32[n, num_players]: each seat's rewards summed over the game;
* ``state.<field>``: the initial state's field, leading axis n (the names and shapes are in the
  manifest's ``state_fields``).

Deals are split by a hash of ``(seed, deal_id)``: 90% train, 5% valid, 5% test.  A corpus is
written chunk by chunk (``chunk_games`` consecutive deals); the chunk's shards are written to
temporary files and renamed, then the manifest, itself written to a temporary file and renamed,
adds them.  A writer killed at any moment leaves a corpus that reads as the chunks completed
before it, and ``resume`` continues after them.  The manifest holds each shard's size and SHA-256,
checked when the shard is read: a corrupt, truncated or missing file raises :class:`CorpusError`
naming it.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import io
import json
import os
import zipfile
from typing import Iterator, NamedTuple

import jax
import numpy as np

from cardjax import registry
from cardjax.files import write_atomic

FORMAT = "cardjax-corpus"
VERSION = 1
SPLITS = ("train", "valid", "test")
MANIFEST = "manifest.json"


class CorpusError(ValueError):
    """A corpus directory or file that cannot be read as one (the message names the file)."""


class Games(NamedTuple):
    """A batch of recorded games (NumPy arrays, leading axis the games)."""

    state: object  # the env's initial-state pytree, batched
    actions: np.ndarray  # int16[n, max_steps], -1 after the last action
    length: np.ndarray  # int32[n]
    returns: np.ndarray  # float32[n, num_players]
    deal_id: np.ndarray  # int64[n]

    def take(self, rows) -> "Games":
        """The games at ``rows`` (indices or a boolean mask)."""
        return jax.tree_util.tree_map(lambda x: x[rows], self)

    @staticmethod
    def concat(parts) -> "Games":
        return jax.tree_util.tree_map(lambda *xs: np.concatenate(xs), *parts)


def split_of(seed: int, deal_id: np.ndarray) -> np.ndarray:
    """int8[n]: 0 train, 1 valid, 2 test, from a 64-bit mix of ``(seed, deal_id)`` (splitmix64)."""
    with np.errstate(over="ignore"):
        x = (np.asarray(deal_id, np.uint64) + np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15))
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
    bucket = (x % np.uint64(100)).astype(np.int64)
    return np.where(bucket < 90, 0, np.where(bucket < 95, 1, 2)).astype(np.int8)


def state_fields(env) -> list[dict]:
    """``[{"name", "shape", "dtype"}]`` of one game's state, in the pytree's leaf order."""
    shapes = jax.eval_shape(env.init, jax.random.PRNGKey(0))
    leaves = jax.tree_util.tree_flatten_with_path(shapes)[0]
    return [{"name": jax.tree_util.keystr(path).lstrip("."), "shape": list(x.shape),
             "dtype": str(x.dtype)} for path, x in leaves]


def same_layout(a: list[dict], b: list[dict]) -> bool:
    """Two ``state_fields`` lists name the same fields with the same shapes and dtypes, in any
    order (shards store each field by its name, so a state whose fields moved still reads)."""
    return sorted(a, key=lambda f: f["name"]) == sorted(b, key=lambda f: f["name"])


def open_with_env(directory: str):
    """``(corpus, env)``: a corpus opened with the env of its game and options (the manifest's)."""
    m = read_manifest(directory)
    env = registry.make(m["game"], **m.get("options", {}))
    return Corpus(directory, env), env


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class CorpusWriter:
    """Writes a corpus chunk by chunk (see the module docstring).  ``resume=True`` opens an
    existing corpus made with the same ``settings`` and continues after its last chunk."""

    def __init__(self, directory: str, env, settings: dict, chunk_games: int,
                 resume: bool = False):
        self.directory, self.env = directory, env
        self.fields = state_fields(env)
        path = os.path.join(directory, MANIFEST)
        if os.path.exists(path):
            if not resume:
                raise CorpusError(f"{directory}: a corpus is already there; pass --resume to "
                                  "continue it, or choose another directory")
            self.manifest = read_manifest(directory)
            self._check_same(settings)
        else:
            if resume:
                raise CorpusError(f"{directory}: no corpus to resume ({MANIFEST} missing)")
            os.makedirs(directory, exist_ok=True)
            self.manifest = {
                "format": FORMAT, "version": VERSION, "game": env.name,
                "rules": registry.rules(env.name), "env": repr(env),
                "options": env.options, "num_players": env.num_players,
                "num_actions": env.num_actions, "max_steps": env.max_steps,
                "state_fields": self.fields, "settings": settings, "chunk_games": chunk_games,
                "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                "next_deal": 0, "shards": [],
            }
            self._save_manifest()

    def _check_same(self, settings: dict) -> None:
        m = self.manifest
        if m["env"] != repr(self.env) or not same_layout(m["state_fields"], self.fields):
            raise CorpusError(f"{self.directory}: made with {m['env']} and another state "
                              f"layout than {self.env!r}; it cannot be continued here")
        if m["settings"] != settings:
            raise CorpusError(f"{self.directory}: made with settings {m['settings']}, not "
                              f"{settings}; resume with the same settings")

    @property
    def next_deal(self) -> int:
        """The first deal not yet written (the chunks are consecutive)."""
        return int(self.manifest["next_deal"])

    def add_chunk(self, games: Games, seed: int) -> None:
        """Write the games of deals ``next_deal .. next_deal + n - 1`` and commit them."""
        n = games.deal_id.shape[0]
        want = np.arange(self.next_deal, self.next_deal + n)
        if not np.array_equal(games.deal_id, want):
            raise ValueError(f"chunk deals must be {want[0]}..{want[-1]} in order")
        chunk = len({s["chunk"] for s in self.manifest["shards"]})
        leaves = jax.tree_util.tree_leaves(games.state)
        split = split_of(seed, games.deal_id)
        new = []
        for k, name in enumerate(SPLITS):
            rows = np.flatnonzero(split == k)
            if rows.size == 0:
                continue
            arrays = {"deal_id": games.deal_id[rows].astype(np.int64),
                      "actions": games.actions[rows].astype(np.int16),
                      "length": games.length[rows].astype(np.int32),
                      "returns": games.returns[rows].astype(np.float32)}
            for field, leaf in zip(self.fields, leaves):
                arrays["state." + field["name"]] = np.asarray(leaf)[rows]
            buf = io.BytesIO()
            np.savez_compressed(buf, **arrays)
            file = f"{name}-{chunk:05d}.npz"
            write_atomic(os.path.join(self.directory, file), buf.getvalue())
            new.append({"file": file, "split": name, "chunk": chunk, "games": int(rows.size),
                        "decisions": int(arrays["length"].sum()), "bytes": buf.tell(),
                        "sha256": hashlib.sha256(buf.getvalue()).hexdigest()})
        self.manifest["shards"] += new
        self.manifest["next_deal"] = self.next_deal + n
        self._save_manifest()

    def _save_manifest(self) -> None:
        data = json.dumps(self.manifest, indent=1).encode()
        write_atomic(os.path.join(self.directory, MANIFEST), data)


def read_manifest(directory: str) -> dict:
    path = os.path.join(directory, MANIFEST)
    if not os.path.isfile(path):
        raise CorpusError(f"{directory}: not a corpus ({MANIFEST} missing)")
    try:
        with open(path) as f:
            m = json.load(f)
    except (OSError, ValueError) as e:
        raise CorpusError(f"{path}: unreadable manifest ({e})") from None
    if not isinstance(m, dict) or m.get("format") != FORMAT:
        raise CorpusError(f"{path}: not a {FORMAT} manifest")
    if m.get("version") != VERSION:
        raise CorpusError(f"{path}: format version {m.get('version')}, this cardjax reads "
                          f"version {VERSION}")
    for key in ("game", "env", "state_fields", "shards", "max_steps", "num_players"):
        if key not in m:
            raise CorpusError(f"{path}: the manifest has no {key!r}")
    if "rules" in m:  # corpora made before the rules' versions hold none
        try:
            registry.check_version(m["rules"], f"the corpus in {os.path.dirname(path)}")
        except ValueError as e:
            raise CorpusError(str(e)) from None
    return m


class Corpus:
    """A corpus directory opened for reading (the manifest is checked; shards as they are read).

    ``corpus.games(split, batch)`` streams :class:`Games` of ``batch`` games, one shard in memory
    at a time; ``shuffle`` (with ``seed``) visits the shards and the games in them in a random
    order.  ``env`` (optional) is checked against the corpus's state layout.
    """

    def __init__(self, directory: str, env=None):
        self.directory = directory
        self.manifest = read_manifest(directory)
        # the fields in the env's leaf order (the manifest's where no env is given)
        self._fields = self.manifest["state_fields"] if env is None else state_fields(env)
        if env is not None and (env.name != self.manifest["game"]
                                or not same_layout(self._fields, self.manifest["state_fields"])):
            raise CorpusError(f"{directory}: a corpus of {self.manifest['env']}; it does not "
                              f"fit {env!r} (another game, options or state layout)")
        self._treedef = None if env is None else jax.tree_util.tree_structure(
            jax.eval_shape(env.init, jax.random.PRNGKey(0)))

    def shards(self, split: str) -> list[dict]:
        if split not in SPLITS:
            raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
        return [s for s in self.manifest["shards"] if s["split"] == split]

    def count(self, split: str, what: str = "games") -> int:
        """Games (or ``"decisions"``) in a split."""
        return sum(s[what] for s in self.shards(split))

    def read_shard(self, shard: dict) -> Games:
        """One shard, checked against the manifest (size and SHA-256)."""
        path = os.path.join(self.directory, shard["file"])
        if not os.path.isfile(path):
            raise CorpusError(f"{path}: missing (listed in the manifest)")
        size = os.path.getsize(path)
        if size != shard["bytes"]:
            raise CorpusError(f"{path}: {size} bytes, the manifest says {shard['bytes']} "
                              "(truncated or rewritten)")
        if _sha256(path) != shard["sha256"]:
            raise CorpusError(f"{path}: checksum mismatch (the file is corrupt)")
        try:
            with np.load(path, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        except (OSError, ValueError, zipfile.BadZipFile) as e:
            raise CorpusError(f"{path}: unreadable shard ({e})") from None
        fields = self._fields
        missing = [k for k in ["deal_id", "actions", "length", "returns"]
                   + ["state." + f["name"] for f in fields] if k not in arrays]
        if missing:
            raise CorpusError(f"{path}: arrays missing: {', '.join(missing)}")
        leaves = [arrays["state." + f["name"]] for f in fields]
        state = leaves if self._treedef is None else self._treedef.unflatten(leaves)
        return Games(state, arrays["actions"], arrays["length"], arrays["returns"],
                     arrays["deal_id"])

    def games(self, split: str, batch: int, shuffle: bool = False, seed: int = 0,
              drop_last: bool = False) -> Iterator[Games]:
        """Batches of ``batch`` games of ``split``, a shard at a time (the last batch of the split
        is smaller unless ``drop_last``)."""
        rng = np.random.default_rng(seed)
        shards = self.shards(split)
        order = rng.permutation(len(shards)) if shuffle else range(len(shards))
        carry = None
        for i in order:
            g = self.read_shard(shards[i])
            if shuffle:
                g = g.take(rng.permutation(g.deal_id.shape[0]))
            if carry is not None:
                g = Games.concat([carry, g])
            n = g.deal_id.shape[0]
            full = n - n % batch
            for start in range(0, full, batch):
                yield g.take(np.arange(start, start + batch))
            carry = g.take(np.arange(full, n)) if full < n else None
        if carry is not None and not drop_last:
            yield carry
