"""DeepRocket (cardjax.nets.deeprocket, cardjax.train.deeprocket, cardjax train deeprocket,
cardjax.agents.deeprocket):
the paper's planes on its own table-1 position, every legal move as one category and its kickers
and back, the kicker choices exactly those that complete a legal move, the masked player never
plays an illegal move, the trainer learns its teacher, a resumed run is the uninterrupted one, a
run is a player, and record files become a corpus with bad ones refused by line and move."""

from __future__ import annotations

import dataclasses
import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cardjax
from cardjax import agents, corpus
from cardjax.corpus.batches import to_device
from cardjax.eval import arena
from cardjax.games.doudizhu import categories as C
from cardjax.games.doudizhu import moves as mv
from cardjax.games.doudizhu import records as rec
from cardjax.games.doudizhu.record_text import parse_record
from cardjax.nets.deeprocket.adapters import doudizhu as A
from cardjax.nets.deeprocket.play import choose
from cardjax.train.deeprocket import Config
from cardjax.train.deeprocket import train as dr
from cardjax.commands import corpus as corpus_command
from cardjax.commands.train import deeprocket as deeprocket_recipe
import conftest
from paper_records import SECTION_4_2, TABLE_6

# One network and one learning rate for every run of the file: runs of one config share one
# compiled trainer (cached_trainer), and the tests that build its parts use that trainer too.
TINY_CFG = Config(width=8, depth=1, fc=16, kicker_width=8, kicker_depth=1, kicker_fc=16,
                  batch=64, kicker_batch=16, batch_games=4, lr=0.003)
TINY = [f for k in ("width", "depth", "fc", "kicker_width", "kicker_depth", "kicker_fc", "batch",
                    "kicker_batch", "batch_games", "lr")
        for f in (f"--{k}", str(getattr(TINY_CFG, k)))] + ["--no-progress"]


@pytest.fixture(scope="module")
def env():
    return cardjax.make("doudizhu")


@pytest.fixture(scope="module")
def script():
    return deeprocket_recipe


@pytest.fixture(scope="module")
def make_corpus():
    return corpus_command


@pytest.fixture(scope="module", autouse=True)
def chunks_of_256():
    """Evaluations score 256 decisions at a time, not the command's 512: the runs' validation
    and test games (4, about 220 decisions) fill one chunk of either size, and a chunk's time
    on a busy CPU is its size.  What is scored does not depend on the chunks."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(deeprocket_recipe, "CHUNK", 256)
        yield


@pytest.fixture(scope="module")
def random_corpus(make_corpus, tmp_path_factory):
    """128 games of random players (they play every kind of move, kickers included; the rule
    player plays none).  Its validation and test splits hold 9 and 6 games: an evaluation of 4
    replays them in the training batch's shape (--batch_games 4), one compiled program."""
    out = str(tmp_path_factory.mktemp("corpus") / "random")
    make_corpus.main(["--game", "doudizhu", "--players", "random", "--games", "128", "--out", out,
                      "--batch", "128", "--no-progress"])
    return out


@pytest.fixture(scope="module")
def trainer(env):
    """The trainer of TINY_CFG: the one the runs below compile and use (cached_trainer)."""
    return dr.cached_trainer(TINY_CFG, env)


@pytest.fixture(scope="module")
def nets(trainer):
    return trainer.nets


@pytest.fixture(scope="module")
def choose_move(nets):
    """The masked player of ``nets``, jitted once for the file (a new jit traces again)."""
    return jax.jit(lambda params, s: choose(nets, params, s))


def _counts(cards: str) -> np.ndarray:
    return mv.hand_counts(cards).astype(np.int32)


def _expected_plane(cards: str, type_row=None, ranks=None):
    """uint8[15, 19] written out by hand: count levels, then the move's type row on its ranks."""
    p = np.zeros((15, 19), np.uint8)
    c = _counts(cards)
    for r in range(15):
        p[r, :c[r]] = 1
    if type_row is not None:
        for r in ranks:
            p[r, 4 + type_row] = 1
    return p


def test_table_1_sample_4(env):
    """The paper's table 1, sample 4: state '0,33;1,55;2,66;0,77;1,AA;1,6;2,T;0,J;', label '1,K'.
    Rounds start with the seat to act (1): the last round is its 6, seat 2's T, seat 0's J."""
    r = parse_record(SECTION_4_2)
    states, actions = rec.replay_actions(r)
    k = actions.index(mv.action_index("J"))
    s, a = states[k + 1], actions[k + 1]
    assert int(s.current_player) == 1 and a == mv.action_index("K")
    p = np.asarray(A.planes(env, s, 1))
    assert p.shape == (15, 19, 21)
    R = mv.RANK_INDEX
    solo, pair, pass_ = 0, 2, 14  # rows of table 3
    want = np.zeros((15, 19, 21), np.uint8)
    want[..., 9] = _expected_plane("33", pair, [R["3"]])  # 4th last round: only seat 0 played
    want[..., 10] = _expected_plane("55", pair, [R["5"]])
    want[..., 11] = _expected_plane("66", pair, [R["6"]])
    want[..., 12] = _expected_plane("77", pair, [R["7"]])
    want[..., 13] = _expected_plane("AA", pair, [R["A"]])
    want[..., 14] = _expected_plane("", pass_, range(15))  # seat 2 passed
    want[..., 15] = _expected_plane("", pass_, range(15))  # seat 0 passed
    want[..., 16] = _expected_plane("6", solo, [R["6"]])
    want[..., 17] = _expected_plane("T", solo, [R["T"]])
    want[..., 18] = _expected_plane("J", solo, [R["J"]])
    hand = "337899TTJJK2"  # 335567899TTJJKAA2 less 55, AA, 6
    want[..., 20] = _expected_plane(hand)
    seen = _counts(hand) + _counts("335566677TJAA")  # all played
    want[..., 19] = _expected_plane(mv.counts_to_str(np.array(A.doudizhu.DECK) - seen))
    for z in range(21):
        np.testing.assert_array_equal(p[..., z], want[..., z], err_msg=f"plane {z + 1}")
    x = np.asarray(A.extras(env, s, 1))
    assert list(x[:3]) == [0, 1, 0]  # the down peasant
    assert [int(np.argmax(x[3 + 21 * i:24 + 21 * i])) for i in range(3)] == [12, 14, 15]
    assert int(A.category(a)) == int(C.CATEGORY[mv.action_index("K")])


def _positions(seed: int, plies: int, env):
    """A random deal's first ``plies`` positions (random moves): many kicker moves on leads.
    Stepped by the session's jitted functions (outside jit, a Dou Dizhu step and its legal
    moves are built operation by operation: tenths of a second a move)."""
    c = conftest.get_compiled(env)
    key = jax.random.PRNGKey(seed)
    s = c.init(key)
    out = [s]
    for t in range(plies):
        s = c.step(s, c.random_action(jax.random.fold_in(key, t), s))
        if bool(s.terminated):
            break
        out.append(s)
    return out


@pytest.fixture(scope="module")
def kicker_check(env):
    @jax.jit
    def check(s, a):
        c = A.category(a)
        targets, chosen, valid = A.kicker_targets(a)
        masks = jax.vmap(lambda ch: A.kicker_mask(env, s, c, ch))(chosen)
        rebuilt = jnp.zeros(15, jnp.int32)
        for j in range(A.MAX_KICKERS):
            rebuilt = jnp.where(valid[j], A.add_kicker(c, rebuilt, targets[j]), rebuilt)
        return targets, valid, masks, A.action_of(env, s, c, rebuilt), A.category_mask(env, s)
    return check


def _sequence(a: int) -> tuple:
    """The kicker outputs of action ``a``, increasing (written independently of the adapter)."""
    kind = int(C.KICKER_KIND[a])
    unit = 2 if kind == 2 else 1
    out = []
    for r in range(15):
        out += [r + (15 if kind == 2 else 0)] * (int(C.KICKERS[a][r]) // unit)
    return tuple(out)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**30), plies=st.integers(0, 4))
def test_every_legal_move_is_a_category_and_kickers_and_back(env, kicker_check, seed, plies):
    """For every legal move: its category is legal, the teacher's kickers are each allowed when
    chosen, and rebuilding gives the move; the allowed kickers after any prefix are exactly the
    next kickers of the category's legal moves with that prefix (brute force)."""
    s = _positions(seed, plies, env)[-1]
    legal = np.flatnonzero(np.asarray(s.legal_action_mask))
    seqs = {}
    for a in legal:
        seqs.setdefault(int(C.CATEGORY[a]), []).append(_sequence(int(a)))
    rng = np.random.default_rng(seed)
    for a in rng.choice(legal, min(60, legal.size), replace=False):
        targets, valid, masks, back, cmask = jax.device_get(kicker_check(s, jnp.int32(a)))
        c = int(C.CATEGORY[a])
        assert cmask[c] and int(back) == a
        n = int(valid.sum())
        assert n == int(C.NUM_KICKERS[a]) and tuple(targets[:n]) == _sequence(int(a))
        for j in range(n):
            prefix = tuple(targets[:j])
            nxt = {q[j] for q in seqs[c] if q[:j] == prefix}
            assert set(np.flatnonzero(masks[j])) == nxt, (mv.action_string(int(a)), j)
    assert set(np.flatnonzero(cmask)) == set(seqs)  # kicker_check's A.category_mask(env, s)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**30), plies=st.integers(0, 60), init=st.integers(0, 2**30))
def test_the_masked_player_plays_only_legal_moves(env, trainer, choose_move, seed, plies, init):
    """Any network (random weights) picks a legal move, kickers included; and the planes hold
    every card once: played before the six rounds + the rounds' moves + unseen + hand = deck."""
    s = _positions(seed, plies, env)[-1]
    params = trainer.init(jax.random.PRNGKey(init)).params  # init_params, jitted
    a = int(choose_move(params, s))
    assert bool(s.legal_action_mask[a])
    p = np.asarray(A.planes(env, s, s.current_player)).astype(np.int32)
    counts = p[:, :4, :].sum(1)  # [15 ranks, 21 planes]
    np.testing.assert_array_equal(counts.sum(1), A.doudizhu.DECK)


def test_decisions_are_the_recorded_moves(env, random_corpus, trainer):
    """The positions the trainer draws from are the games' decisions, replayed: decision t of a
    game, rebuilt by stepping, has the planes and the target the trainer computes."""
    c = corpus.Corpus(random_corpus, env)
    g = next(c.games("train", 4))  # a training batch (--batch_games 4): the runs' program
    st_, act, decides = trainer.positions(*to_device(g))  # dr.game_positions, jitted
    decides = np.asarray(decides).reshape(env.max_steps, 4)
    np.testing.assert_array_equal(decides.sum(0), g.length)
    s = jax.tree_util.tree_map(lambda x: jnp.asarray(x[1]), g.state)
    step = conftest.get_compiled(env).step  # env.step jitted (unjitted, each op compiles)
    for a in g.actions[1, :7]:
        s = step(s, jnp.int32(a))
    row = 7 * 4 + 1
    one = jax.tree_util.tree_map(lambda x: x[row], st_)
    np.testing.assert_array_equal(np.asarray(A.planes(env, one, one.current_player)),
                                  np.asarray(A.planes(env, s, s.current_player)))
    assert int(act[row]) == int(g.actions[1, 7])


def test_it_learns_its_teacher(script, make_corpus, tmp_path):
    """A deterministic teacher (the rule player) is learned far beyond a uniform choice among
    the legal categories."""
    # 40 iterations end about 0.38 above uniform (an untrained network is about 0.1 above).
    # 4 validation and test games: scored in the training batch's shape (--batch_games 4), no
    # program of another shape.
    data = str(tmp_path / "rule")
    make_corpus.main(["--game", "doudizhu", "--players", "rule", "--games", "100", "--out", data,
                      "--batch", "100", "--no-progress"])
    s = script.main(["--corpus", data, "--out", str(tmp_path / "run"), "--iterations", "40",
                     "--eval_every", "40", "--eval_games", "4"] + TINY)
    assert s["policy_accuracy"] > s["uniform_accuracy"] + 0.2, s
    e = json.load(open(tmp_path / "run" / "eval.json"))["evaluations"][-1]
    assert {x["role"] for x in e["detail"]["by_role"]} == set(A.ROLES)


def test_a_resumed_run_is_the_uninterrupted_one(script, random_corpus, choose_move, tmp_path,
                                                capsys):
    # every 2nd iteration and after the last: the cut run (2 iterations) is evaluated at its
    # end, the resumed one at 3 (each evaluation scores one chunk of decisions: chunks_of_256)
    common = ["--corpus", random_corpus, "--eval_every", "2", "--eval_games", "4"] + TINY
    full, cut = conftest.assert_corpus_run_resumes(script.main, common, tmp_path)
    e1 = json.load(open(os.path.join(full, "eval.json")))["evaluations"]
    assert [e["iteration"] for e in e1] == [2, 3]
    # a run ends with a sentence on stderr: its result in words, its files, how to play it
    last = json.load(open(os.path.join(cut, "eval.json")))["evaluations"][-1]
    test = json.load(open(os.path.join(cut, "test.json")))["policy"]["accuracy"]
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"trained 3 iterations into {cut}; the last evaluation (iteration 3): valid policy "
        f"accuracy {last['mean']:.3g} ± {last['stderr']:.2g} (the share of the validation "
        f"games' decisions where it plays the corpus's move, choosing uniformly "
        f"{last['uniform_accuracy']:.3g}, the test split {test:.3g}); files: curves.png, "
        "eval.json, test.json, metrics.jsonl, best.msgpack, checkpoints, player; play it: "
        f"cardjax arena --game doudizhu --a {cut}/player.")
    assert e1[-1]["detail"]["kicker"]["n"] > 0  # random players' games have kickers
    # the run directory is a player (its best network), for the arena and every script
    player = agents.load(env_of(full), full)
    assert player.name == "deeprocket"
    res = arena.duplicate_match(env_of(full), player, agents.get(env_of(full), "random"), deals=4,
                                progress=False)
    assert res["games"] == 8 and np.isfinite(res["mean"])
    with pytest.raises(ValueError, match="unknown options"):
        agents.load(env_of(full), full, temperature=1)
    # the player is an artifact, the best network, written with the evaluation that found it
    from cardjax import artifact
    from cardjax.train import corpus_run

    art = artifact.read(os.path.join(full, "player"))
    assert art.kind == "deeprocket" and art.game == "doudizhu"
    assert art.meta["lineage"]["iteration"] == [e for e in e1 if e["best"]][-1]["iteration"]
    cfg = Config.from_dict(art.meta["network"])
    assert cfg == dataclasses.replace(TINY_CFG, corpus=cfg.corpus)  # choose_move's network
    trainer = dr.cached_trainer(cfg, env_of(full))
    old = corpus_run.load_best(full, jax.eval_shape(trainer.init, jax.random.PRNGKey(0)).params)
    for x, y in zip(jax.tree_util.tree_leaves(old), jax.tree_util.tree_leaves(art.params)):
        np.testing.assert_array_equal(np.asarray(x), y)
    states = [s for seed in (3, 4) for s in _positions(seed, 12, env_of(full))]
    act = jax.jit(player.act)
    played = [int(act(player.params, jax.random.PRNGKey(0), s)) for s in states]
    assert played == [int(choose_move(old, s)) for s in states]
    # and the playout policy of a search player
    env = env_of(full)
    pimc = agents.get(env, "pimc", worlds=1, playout=full)
    s = _positions(7, 1, env)[-1]  # a follow: few legal moves
    a = int(jax.jit(pimc.act)(pimc.params, jax.random.PRNGKey(0), s))
    assert bool(s.legal_action_mask[a])


def env_of(run):
    return cardjax.make("doudizhu")


@pytest.mark.parametrize("argv, message", [
    (["--iterations", "1"], "--corpus is required"),
    (["--corpus", "/nonexistent/x"], "not a corpus"),
    (["--corpus", "CORPUS", "--batch_games", "100000"], "fewer than --batch_games"),
    (["--corpus", "CORPUS", "--width", "0"], "--width: expected a positive integer, got 0"),
])
def test_bad_input_is_refused(script, random_corpus, tmp_path, argv, message, capsys):
    argv = [random_corpus if a == "CORPUS" else a for a in argv]
    with pytest.raises(SystemExit, match=message if "expected" not in message else None):
        # TINY first (a later flag wins): a network whose init is compiled already
        script.main(TINY + argv + ["--out", str(tmp_path / "r")])
    if "expected" in message:
        assert message in capsys.readouterr().err


def test_record_files_become_a_corpus(make_corpus, tmp_path):
    """The paper's records, stored a chunk at a time and resumed; their games replay to the
    records' outcome; a malformed record stops the command naming its file, line and move."""
    text = tmp_path / "records.txt"
    text.write_text("\n\n".join([SECTION_4_2, TABLE_6] * 5))
    out = str(tmp_path / "c")
    make_corpus.main(["--records", str(text), "--out", out, "--chunk", "4", "--games", "6",
                      "--no-progress"])
    s = make_corpus.main(["--out", out, "--resume", "--no-progress"])
    assert s["deals"] == 10 and s["records"] == [str(text)]
    c, env = corpus.open_with_env(out)
    g = corpus.Games.concat([next(c.games(split, 10)) for split in corpus.SPLITS
                             if c.count(split)])
    assert g.deal_id.size == 10 and (g.length == 36).all()
    np.testing.assert_array_equal(g.returns, np.tile([-2.0, 1.0, 1.0], (10, 1)))
    bad = tmp_path / "bad.txt"
    bad.write_text(TABLE_6 + "\n\n" + SECTION_4_2.replace("0,KK", "0,QQ"))
    with pytest.raises(SystemExit, match=r"bad.txt: line 5: move 13 '0,QQ': illegal move"):
        make_corpus.main(["--records", str(bad), "--out", str(tmp_path / "b"), "--no-progress"])
    with pytest.raises(SystemExit, match="records are Dou Dizhu games"):
        make_corpus.main(["--records", str(text), "--game", "gongzhu", "--out",
                          str(tmp_path / "g"), "--no-progress"])
