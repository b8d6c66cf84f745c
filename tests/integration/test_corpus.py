"""Game corpora (cardjax.corpus, cardjax corpus): what is written reads back as the same
games, every game replays to its recorded outcome, a stopped or damaged corpus is never read as
a valid one, and the games do not depend on how they were batched."""

from __future__ import annotations

import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax import corpus
from cardjax.corpus import store
from cardjax.commands import corpus as corpus_command
import conftest

MINI = ["--game", "mini_doudizhu", "--players", "random", "--no-progress"]


@pytest.fixture(scope="module")
def script():
    return corpus_command


@pytest.fixture(scope="module")
def mini():
    return cardjax.make("mini_doudizhu")


@pytest.fixture(scope="module")
def made(script, tmp_path_factory):
    """A 60-deal Mini Dou Di Zhu corpus of random players, 16 games a batch, 24 deals a chunk."""
    out = str(tmp_path_factory.mktemp("corpus") / "c")
    script.main(MINI + ["--games", "60", "--out", out, "--batch", "16", "--chunk", "24"])
    return out


def _all_games(c: corpus.Corpus) -> corpus.Games:
    return corpus.Games.concat([g for s in corpus.SPLITS for g in c.games(s, 1000)])


def test_games_read_back_and_replay_to_their_outcome(made, mini):
    c = corpus.Corpus(made, mini)
    g = _all_games(c)
    assert sorted(g.deal_id.tolist()) == list(range(60))  # every deal once, in one split
    assert c.count("train") + c.count("valid") + c.count("test") == 60
    order = np.argsort(g.deal_id)
    g = g.take(order)
    fresh = jax.vmap(mini.init)(corpus.deal_keys(0, g.deal_id))
    for a, b in zip(jax.tree_util.tree_leaves(fresh), jax.tree_util.tree_leaves(g.state)):
        np.testing.assert_array_equal(np.asarray(a), b)  # the initial states are the deals
    final, total, _ = corpus.replay(mini, jax.tree_util.tree_map(jnp.asarray, g.state), g.actions)
    assert bool(final.terminated.all())
    np.testing.assert_allclose(np.asarray(total), g.returns)
    np.testing.assert_array_equal(g.length, (g.actions >= 0).sum(axis=1))
    assert c.count("train", "decisions") == int(g.length[corpus.split_of(0, g.deal_id) == 0].sum())
    # the splits are the hash's
    for split_id, name in enumerate(corpus.SPLITS):
        ids = np.concatenate([x.deal_id for x in c.games(name, 7)] or [np.zeros(0, int)])
        assert (corpus.split_of(0, ids) == split_id).all()


def test_the_games_do_not_depend_on_the_batching(made, script, tmp_path):
    out = str(tmp_path / "other")
    script.main(MINI + ["--games", "60", "--out", out, "--batch", "7", "--chunk", "60"])
    a, b = (_all_games(corpus.Corpus(d)) for d in (made, out))
    a, b = a.take(np.argsort(a.deal_id)), b.take(np.argsort(b.deal_id))
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        np.testing.assert_array_equal(x, y)


def test_streaming_batches_cover_a_split_once(made):
    c = corpus.Corpus(made)
    n = c.count("train")
    sizes, ids = [], []
    for g in c.games("train", 8, shuffle=True, seed=3):
        sizes.append(g.deal_id.shape[0])
        ids += g.deal_id.tolist()
    assert sorted(ids) == sorted(set(ids)) and len(ids) == n
    assert sizes[:-1] == [8] * (len(sizes) - 1) and 0 < sizes[-1] <= 8
    assert sum(g.deal_id.shape[0] for g in c.games("train", 8, drop_last=True)) == n - n % 8


def test_a_stopped_command_keeps_its_chunks_and_resumes_to_the_same_corpus(
        made, script, tmp_path, monkeypatch):
    out = str(tmp_path / "stopped")
    real = store.CorpusWriter._save_manifest
    calls = {"n": 0}

    def dies_on_the_third_save(self):  # 1: the empty corpus, 2: chunk 0, 3: chunk 1
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        real(self)

    monkeypatch.setattr(store.CorpusWriter, "_save_manifest", dies_on_the_third_save)
    with pytest.raises(KeyboardInterrupt):
        script.main(MINI + ["--games", "60", "--out", out, "--batch", "16", "--chunk", "24"])
    monkeypatch.setattr(store.CorpusWriter, "_save_manifest", real)
    c = corpus.Corpus(out)
    assert c.manifest["next_deal"] == 24  # chunk 1's shards are on disk, not in the manifest
    assert sorted(_all_games(c).deal_id.tolist()) == list(range(24))
    with pytest.raises(SystemExit, match="--resume"):
        script.main(MINI + ["--games", "60", "--out", out])
    with pytest.raises(SystemExit, match="players"):
        script.main(["--games", "60", "--out", out, "--resume", "--players", "low"])
    script.main(["--games", "60", "--out", out, "--resume", "--batch", "16", "--chunk", "24",
                 "--no-progress"])
    a, b = _all_games(corpus.Corpus(made)), _all_games(corpus.Corpus(out))
    a, b = a.take(np.argsort(a.deal_id)), b.take(np.argsort(b.deal_id))
    np.testing.assert_array_equal(a.actions, b.actions)
    np.testing.assert_array_equal(a.returns, b.returns)


@pytest.mark.parametrize("damage", ["flip", "truncate", "delete", "manifest", "version"])
def test_damaged_corpora_raise_errors_naming_the_file(made, tmp_path, damage):
    import shutil

    d = str(tmp_path / "damaged")
    shutil.copytree(made, d)
    shard = os.path.join(d, corpus.Corpus(d).shards("train")[0]["file"])
    manifest = os.path.join(d, "manifest.json")
    if damage == "flip":
        data = bytearray(open(shard, "rb").read())
        data[len(data) // 2] ^= 0xFF
        open(shard, "wb").write(bytes(data))
        where, what = shard, "checksum"
    elif damage == "truncate":
        data = open(shard, "rb").read()
        open(shard, "wb").write(data[: len(data) // 2])
        where, what = shard, "truncated"
    elif damage == "delete":
        os.remove(shard)
        where, what = shard, "missing"
    elif damage == "manifest":
        open(manifest, "w").write('{"format": "cardjax-corpus", "vers')
        where, what = manifest, "unreadable"
    else:
        m = json.load(open(manifest))
        m["version"] = 99
        json.dump(m, open(manifest, "w"))
        where, what = manifest, "version"
    with pytest.raises(corpus.CorpusError, match=what) as e:
        list(corpus.Corpus(d).games("train", 100))
    assert where in str(e.value)


def test_a_corpus_records_its_rules_and_refuses_other_ones(made, tmp_path):
    import shutil

    assert store.read_manifest(made)["rules"] == "mini_doudizhu@1"
    d = str(tmp_path / "other_rules")
    shutil.copytree(made, d)
    manifest = os.path.join(d, "manifest.json")
    m = json.load(open(manifest))
    m["rules"] = "mini_doudizhu@9"
    json.dump(m, open(manifest, "w"))
    with pytest.raises(corpus.CorpusError, match=r"was made with mini_doudizhu@9; this cardjax "
                                                 r"has mini_doudizhu@1"):
        corpus.Corpus(d)
    del m["rules"]  # a corpus made before the rules had versions still reads
    json.dump(m, open(manifest, "w"))
    assert corpus.Corpus(d).manifest["game"] == "mini_doudizhu"


def test_a_corpus_whose_fields_moved_still_reads(made, mini, tmp_path):
    """Shards keep each state field by name: a corpus written when the state's fields came in
    another order (before the games' states shared cardjax.core.State) reads the same games."""
    import shutil

    d = str(tmp_path / "old_order")
    shutil.copytree(made, d)
    manifest = os.path.join(d, "manifest.json")
    m = json.load(open(manifest))
    m["state_fields"] = m["state_fields"][::-1]
    json.dump(m, open(manifest, "w"))
    a, b = (_all_games(corpus.Corpus(x, mini)) for x in (made, d))
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        np.testing.assert_array_equal(x, y)
    m["state_fields"][0] = dict(m["state_fields"][0], shape=[99])  # a field of another shape
    json.dump(m, open(manifest, "w"))
    with pytest.raises(corpus.CorpusError, match="does not fit"):
        corpus.Corpus(d, mini)


def test_a_corpus_of_another_game_is_refused(made):
    with pytest.raises(corpus.CorpusError, match="does not fit"):
        corpus.Corpus(made, cardjax.make("gongzhu"))
    with pytest.raises(corpus.CorpusError, match="not a corpus"):
        corpus.Corpus(os.path.dirname(made))


def test_each_seat_is_played_by_its_player():
    """Gongzhu with the lowest-legal player at seats 0 and 2 and the highest at 1 and 3: the
    recorded actions are those players' choices, replayed step by step."""
    env = cardjax.make("gongzhu")
    lineup = [conftest.LOW, conftest.HIGH, conftest.LOW, conftest.HIGH]
    g = corpus.record_games(env, lineup, seed=5, deal_ids=np.arange(3))
    for d in range(3):
        s = env.init(corpus.deal_keys(5, [d])[0])
        for t in range(int(g.length[d])):
            player = lineup[int(s.current_player)]
            a = int(player.act(None, None, s))
            assert a == int(g.actions[d, t])
            s = env.step(s, a)
        assert bool(s.terminated)


@pytest.mark.parametrize("argv, message", [
    (["--players", "random", "random", "random"], "one player or 2"),
    (["--players", "nobody"], "unknown agent"),
    (["--games", "0"], "positive"),
])
def test_bad_flags_are_refused(script, tmp_path, argv, message, capsys):
    base = ["--game", "mini_doudizhu", "--games", "4", "--out", str(tmp_path / "x")]
    args = base + argv if argv[0] != "--games" else base[:2] + argv + base[4:]
    with pytest.raises(SystemExit) as e:
        script.main(args)
    assert message in str(e.value) + capsys.readouterr().err
