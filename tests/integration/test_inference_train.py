"""The card-location inference trainer (cardjax.train.inference, cardjax train inference) and
its network (cardjax.nets.card_locations): the positions it trains on are the corpus games'
decisions with the true hidden cards, its loss is the cross-entropy of the unseen cards, it
learns more than the simple baseline, a resumed run is the uninterrupted one, a run holds its
best network as an artifact that predicts as the run does, early stopping stops, and bad input
is refused."""

from __future__ import annotations

import functools
import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import serialization

import cardjax
from cardjax import agents, corpus
from cardjax.nets.card_locations import adapter as adapters
from cardjax.nets.card_locations.network import log_probs
from cardjax.train import run_config, runner
from cardjax.train.inference import Config, make_trainer, positions
from cardjax.train.inference import train as inf
from cardjax.commands import corpus as corpus_command
from cardjax.commands import tssr as tssr_command
from cardjax.commands.train import inference as inference_recipe
import conftest

SMALL = ["--width", "64", "--depth", "1", "--batch_games", "8", "--no-progress"]


@pytest.fixture(scope="module")
def script():
    return inference_recipe


@pytest.fixture(scope="module")
def if_corpus(tmp_path_factory):
    """600 Gongzhu games of four Mr Ifs (a quarter of Mr Greed's cost to play)."""
    out = str(tmp_path_factory.mktemp("corpus") / "if")
    corpus_command.main(
        ["--game", "gongzhu", "--players", "if", "--games", "600", "--out", out,
         "--batch", "600", "--no-progress"])
    return out


@pytest.fixture(scope="module")
def small_run(script, if_corpus, tmp_path_factory):
    """A run of 2 iterations on the module's corpus, evaluated at the end: its best network and
    player/ for the tests of cardjax tssr, PIMC's worlds and --from, which only read it (one run,
    not one each)."""
    run = str(tmp_path_factory.mktemp("small") / "run")
    script.main(["--corpus", if_corpus, "--out", run, "--iterations", "2", "--eval_every", "2",
                 "--eval_games", "8"] + SMALL)
    return run


@functools.cache
def positions_of(game: str):
    """``positions`` of ``game``'s default env, jitted once for the tests that read single
    positions (the same batch of 8 games: one compile)."""
    env = cardjax.make(game)
    return jax.jit(lambda s, a: positions(env, adapters.get(game), s, a))


def test_positions_are_the_decisions_with_the_truth(if_corpus):
    c, env = corpus.open_with_env(if_corpus)
    adapter = adapters.get("gongzhu")
    g = next(c.games("train", 8))  # the module's corpus: no games of its own to play
    states = jax.tree_util.tree_map(jnp.asarray, g.state)
    pos = positions_of("gongzhu")(states, jnp.asarray(g.actions))
    valid = np.asarray(pos.valid).reshape(env.max_steps, 8)
    # every decision but the last of each game leaves a card unseen
    np.testing.assert_array_equal(valid.sum(0), g.length - 1)
    # decision 10 of game 1, rebuilt by stepping (the session's jitted step, not op by op)
    step = conftest.get_compiled(env).step
    s = conftest.tree_index(states, 1)
    for a in g.actions[1, :10]:
        s = step(s, jnp.int32(a))
    truth, features = jax.jit(lambda s: (env.hidden_cards(s, s.current_player).truth,
                                         adapter.features(env, s, s.current_player)))(s)
    row = 10 * 8 + 1
    np.testing.assert_array_equal(np.asarray(pos.truth[row]), np.asarray(truth))
    np.testing.assert_array_equal(np.asarray(pos.features[row]), np.asarray(features))
    assert int(pos.stage[row]) == 10 // 4


def test_the_loss_is_the_cross_entropy_of_the_unseen_cards():
    env = cardjax.make("gongzhu")
    s = conftest.get_compiled(env).init(jax.random.PRNGKey(0))

    @jax.jit  # one small program, not a compile for each operation run eagerly
    def losses(s):
        h = env.hidden_cards(s, 0)
        pos = inf.Positions(jnp.zeros((1, 1)), h.copies[None], h.allowed[None], h.capacity[None],
                            h.truth[None], jnp.zeros((1, 52), jnp.int32),
                            jnp.zeros((1, 3), bool), jnp.ones(1, bool), jnp.zeros(1, jnp.int32),
                            jnp.zeros(1, jnp.int32))
        sure = log_probs(jnp.where(h.truth > 0, 50.0, 0.0)[None], h.allowed[None],
                         h.capacity[None])
        return inf.card_losses(inf.uniform_log_probs(pos), pos), inf.card_losses(sure, pos)

    (ce, cards, _), (sure_ce, _, right) = losses(s)
    # the deal: 39 unseen cards, three hands of 13: each card log 3 nats
    assert int(cards[0]) == 39 and float(ce[0]) / 39 == pytest.approx(np.log(3), rel=1e-5)
    assert float(sure_ce[0]) < 1e-6 and int(right[0]) == 39


def test_it_learns_more_than_the_baseline(script, if_corpus, tmp_path):
    out = str(tmp_path / "run")
    script.main(["--corpus", if_corpus, "--out", out, "--iterations", "200", "--eval_every",
                 "200", "--eval_games", "40", "--width", "128", "--depth", "1", "--batch_games",
                 "8", "--checkpoint_every", "200", "--no-progress"])
    last = json.load(open(os.path.join(out, "eval.json")))["evaluations"][-1]
    # Mr If's play tells where cards are: a gain over the baseline beyond its error (measured:
    # 0.017 +- 0.005 nats a card)
    assert last["gain"] > 2 * last["gain_stderr"] > 0
    assert last["mean"] == pytest.approx(last["uniform_ce"] - last["gain"])
    assert last["accuracy"] > last["uniform_accuracy"]
    assert {x["stage"] for x in last["by_stage"]} == set(range(13))
    lines = open(os.path.join(out, "metrics.jsonl")).read().splitlines()
    assert len(lines) == 200 and "decisions_per_s" in json.loads(lines[-1])
    # the best network loads into the trainer's parameters
    t = make_trainer(Config(width=128, depth=1, batch_games=8), cardjax.make("gongzhu"))
    like = jax.eval_shape(t.init, jax.random.PRNGKey(0)).params  # shapes: nothing to compile
    params = serialization.from_bytes(like, open(os.path.join(out, "best.msgpack"), "rb").read())
    assert jax.tree_util.tree_structure(params) == jax.tree_util.tree_structure(like)


def test_a_resumed_run_is_the_uninterrupted_one(script, if_corpus, tmp_path):
    common = ["--corpus", if_corpus, "--eval_every", "1", "--eval_games", "8"] + SMALL
    full, _ = conftest.assert_corpus_run_resumes(script.main, common, tmp_path)
    evals = json.load(open(os.path.join(full, "eval.json")))["evaluations"]
    assert len(evals) == 3
    # the run's network is its best one, named by the best one's iteration even where a newer
    # checkpoint stands beside it (the player below says the best came at iteration 1)
    from cardjax import artifact

    best = min(evals, key=lambda e: e["mean"])["iteration"]
    art = artifact.from_run(full)
    assert art.meta["lineage"]["iteration"] == best
    player = os.path.join(full, "player")
    meta = artifact.read_meta(player)
    artifact.write(player, dict(meta, lineage=dict(meta["lineage"], iteration=1)), art.params)
    assert artifact.from_run(full).meta["lineage"]["iteration"] == 1
    stored = serialization.msgpack_restore(open(os.path.join(full, "best.msgpack"), "rb").read())
    for a, b in zip(jax.tree_util.tree_leaves(artifact.from_run(full).params),
                    jax.tree_util.tree_leaves(stored)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_a_dou_dizhu_corpus_trains(tmp_path, capsys):
    out = str(tmp_path / "ddz")
    corpus_command.main(
        ["--game", "doudizhu", "--players", "random", "--games", "80", "--out", out,
         "--no-progress"])
    s = inference_recipe.main(
        ["--corpus", out, "--out", str(tmp_path / "run"), "--iterations", "2",
         "--eval_games", "4"] + SMALL)
    assert s["game"] == "doudizhu" and np.isfinite(s["valid_ce"])
    # the closing sentence on stderr, before the JSON line: the result in words, the files,
    # and how to use the network
    printed = capsys.readouterr()
    run = tmp_path / "run"
    last = json.load(open(run / "eval.json"))["evaluations"][-1]
    assert json.loads(printed.out.splitlines()[-1]) == s
    assert printed.err.splitlines()[-1] == (
        f"trained 2 iterations into {run}; the last evaluation (iteration 2): valid CE per card "
        f"{s['valid_ce']:.3g} ± {last['stderr']:.2g}"
        f" (nats an unseen card, lower is better; the uniform baseline's {s['uniform_ce']:.3g}); "
        "files: curves.png, eval.json, metrics.jsonl, best.msgpack, checkpoints, player; "
        f"draw PIMC's worlds with it: cardjax arena --game doudizhu --a "
        f"pimc:worlds=16,inference={run} --b pimc:worlds=16.")


def test_a_tractor_corpus_trains_on_the_play_from_the_burial_on(tmp_path):
    from cardjax.train.inference.tssr import make_tssr

    out = str(tmp_path / "tractor")
    corpus_command.main(
        ["--game", "tractor", "--players", "random", "--games", "24", "--out", out,
         "--batch", "24", "--no-progress"])  # 24 games played, not the default batch's 256
    run = str(tmp_path / "run")
    # 2 games a batch, not SMALL's 8 (the later flag wins): this Tractor trainer compiles for
    # itself anyway, and each game in a batch replays 620 steps
    s = inference_recipe.main(
        ["--corpus", out, "--out", run, "--iterations", "2", "--eval_games", "2"] + SMALL
        + ["--batch_games", "2"])
    assert s["game"] == "tractor" and np.isfinite(s["valid_ce"])
    trainer, params, c = inf.load_run(run)
    g = next(c.games("train", 2))
    states = jax.tree_util.tree_map(jnp.asarray, g.state)
    out = jax.device_get(make_tssr(trainer)(params, states, jnp.asarray(g.actions)))
    # positions while dealing are not trained on; from the burial on every one is, exactly.
    # The phase of each position, the games stepped one by one (the session's jitted step).
    step = conftest.get_compiled(trainer.env).step
    phase = np.zeros(g.actions.shape[::-1], np.int64)  # [T, B]
    for b, actions in enumerate(g.actions):
        s = conftest.tree_index(states, b)
        for t, a in enumerate(actions[:g.length[b]]):
            phase[t, b] = int(s.phase)
            s = step(s, jnp.int32(a))
        phase[g.length[b]:, b] = int(s.phase)  # the end, held
    phase = phase.reshape(-1)  # [T * B], as the positions
    valid = out["valid"]
    assert valid.any() and not valid[phase == 0].any()
    assert (out["log_size"][valid] > out["log_network"][valid] - 1e-3).all()  # TSSR <= |I|
    assert np.isfinite(out["log_network"][valid]).all()


@pytest.mark.parametrize("argv, message", [
    (["--iterations", "1"], "--corpus is required"),
    (["--corpus", "/nonexistent/x"], "not a corpus"),
    (["--corpus", "CORPUS", "--batch_games", "100000"], "fewer than --batch_games"),
])
def test_bad_input_is_refused(script, if_corpus, tmp_path, argv, message):
    argv = [if_corpus if a == "CORPUS" else a for a in argv]
    with pytest.raises(SystemExit, match=message):
        script.main(argv + ["--out", str(tmp_path / "r"), "--no-progress"])


def test_a_resumed_run_keeps_its_flags(script, if_corpus, tmp_path):
    out = str(tmp_path / "r")
    script.main(["--corpus", if_corpus, "--out", out, "--iterations", "1",
                 "--eval_games", "0"] + SMALL)
    with pytest.raises(SystemExit, match="--width 32"):
        script.main(["--out", out, "--resume", "--iterations", "2", "--width", "32"])


def test_the_runner_stops_when_asked(tmp_path):
    from flax import struct

    @struct.dataclass
    class Counter:
        iteration: jax.Array

    step = lambda s: (s.replace(iteration=s.iteration + 1), {"loss": jnp.float32(0)})
    scores = iter([3.0, 2.0, 2.5, 2.2, 2.1, 1.0])

    def evaluate(s):
        return {"mean": next(scores), "stderr": 0.0}

    patience = lambda evals: len(evals) > 2 and min(e["mean"] for e in evals[-2:]) >= min(
        e["mean"] for e in evals[:-2])
    final = runner.run(out=str(tmp_path / "run"), state=Counter(jnp.int32(0)), step=step,
                       config={}, iterations=10, units_per_iteration=1, evaluate=evaluate,
                       eval_every=1, progress=False, stop=patience, checkpoint_every=5)
    assert int(final.iteration) == 4  # 3, 2 (best), 2.5, 2.2: two without a better one
    assert run_config.existing_run(str(tmp_path / "run")) == 4


def test_tssr_is_exact_and_the_baseline_is_uniform(small_run, if_corpus, tmp_path):
    """cardjax tssr on a short run: the baseline's worlds are uniform over each Gongzhu
    information set (TSSR 1); the network's TSSR of an endgame position equals P(true) x |I|
    found by enumerating its worlds."""
    from cardjax.inference import worlds as W
    from cardjax.train.inference.tssr import make_tssr

    run = small_run
    report = tssr_command.main(["--run", run, "--games", "8", "--json", str(tmp_path / "t.json"),
                        "--png", str(tmp_path / "t.png")])
    assert [r["stage"] for r in report["rows"]] == list(range(13))
    for r in report["rows"]:
        assert r["baseline"] == pytest.approx(1.0, rel=1e-3)
        assert r["oracle"] > r["network"] > 0
    assert os.path.getsize(tmp_path / "t.png") > 0
    assert report["overall"]["baseline_log10"] == pytest.approx(0.0, abs=1e-3)
    # another corpus (here the same one named again) scores the same positions alike
    again = tssr_command.main(["--run", run, "--games", "8", "--corpus", if_corpus])
    assert again["rows"] == report["rows"]
    with pytest.raises(SystemExit, match="not a corpus"):
        tssr_command.main(["--run", run, "--corpus", str(tmp_path)])
    trainer, params, c = inf.load_run(run)
    # the command's batch of 8 games: its compiled tssr (from the compilation cache) and the
    # positions of the test above
    g = next(c.games("test", 8))
    states = jax.tree_util.tree_map(jnp.asarray, g.state)
    out = make_tssr(trainer)(params, states, jnp.asarray(g.actions))
    pos = positions_of("gongzhu")(states, jnp.asarray(g.actions))
    t = 44 * 8  # game 0 in trick 12: 8 cards unseen by the seat to act
    logq = log_probs(trainer.net.apply(params, pos.features[t]), pos.allowed[t],
                     pos.capacity[t])
    worlds, probs = W.brute_force(pos.copies[t], pos.allowed[t], pos.capacity[t],
                                  np.exp(np.asarray(logq)))
    true = [i for i, w in enumerate(worlds) if np.array_equal(w, np.asarray(pos.truth[t]))]
    assert len(true) == 1 and len(worlds) > 1
    assert float(np.exp(out["log_network"][t])) == pytest.approx(probs[true[0]] * len(worlds),
                                                                  rel=1e-4)
    assert float(np.exp(out["log_size"][t])) == pytest.approx(len(worlds), rel=1e-5)
    assert float(np.exp(out["log_size"][0])) == pytest.approx(8.4478e16, rel=1e-3)  # 39!/13!^3


def test_tssr_refuses_a_run_without_a_best_network(script, if_corpus, tmp_path):
    run = str(tmp_path / "run")
    script.main(["--corpus", if_corpus, "--out", run, "--iterations", "1", "--eval_games",
                 "0"] + SMALL)
    with pytest.raises(SystemExit, match="no best.msgpack"):
        tssr_command.main(["--run", run])


def test_pimc_draws_its_worlds_from_a_run(small_run):
    run = small_run
    env = cardjax.make("gongzhu")
    a = agents.get(env, "pimc", inference=run, worlds=2, candidates=4)
    assert a.name == "pimc+inference" and a.params[0] is not None
    s = conftest.get_compiled(env).init(jax.random.PRNGKey(9))  # the session's jitted init
    act = int(jax.jit(a.act)(a.params, jax.random.PRNGKey(1), s))
    assert bool(s.legal_action_mask[act])
    with pytest.raises(ValueError, match="was trained for"):
        agents.get(cardjax.make("gongzhu", exposure=True), "pimc", inference=run)
    # the run's player/ is its best network, and predicts as the run loaded through the trainer
    from cardjax import artifact
    from cardjax.agents.world_sources import load_log_q
    from cardjax.nets.card_locations.network import log_q_fn

    art = artifact.read(os.path.join(run, "player"))
    assert (art.kind, art.game, art.meta["lineage"]["iteration"]) == ("inference", "gongzhu", 2)
    assert art.meta["env"] == env.options
    trainer, old, _ = inf.load_run(run)
    log_q, params = load_log_q(env, run)
    # jitted (the seat an argument): a program each, not a compile for each operation
    mine, theirs = jax.jit(log_q), jax.jit(log_q_fn(env, trainer.adapter, trainer.net))
    for seat in range(4):
        np.testing.assert_allclose(np.asarray(mine(params, s, seat)),
                                   np.asarray(theirs(old, s, seat)), rtol=1e-6)


def test_with_network_replaces_or_drops_the_placeholder():
    from cardjax.commands.inference_rounds import with_network

    word = "pimc:worlds=2,inference=NET,playout=if"
    assert with_network(word, "/r/net") == "pimc:worlds=2,inference=/r/net,playout=if"
    assert with_network(word, None) == "pimc:worlds=2,playout=if"
    assert with_network("ismcts:inference=NET", None) == "ismcts"
    assert with_network("greed", "/r/net") == "greed"


def test_rounds_play_the_players_that_meet_and_score_each_network_on_the_next(tmp_path, capsys):
    """Two rounds on tiny settings: round 1's corpus is played by the named players with uniform
    worlds (the NET setting dropped), round 2's by the same search drawing its worlds from round
    1's network; round 2 scores that network on its games (TSSR and cross-entropy beside the
    baseline's, the same figures as cardjax tssr gives), so a round's network loads in the
    search player and plays; --resume redoes nothing, after a kill in round 2 it does round 2's
    missing parts alone, and bad settings are refused in one line."""
    from cardjax.commands import inference_rounds

    out = str(tmp_path / "rounds")
    search = "pimc:worlds=2,playout=random,candidates=2,inference=NET"
    argv = ["--out", out, "--game", "gongzhu", "--rounds", "2", "--games", "24", "--batch", "8",
            "--players", search, "random", search, "random", "--score_games", "4",
            "--train", "--iterations 2 --eval_every 2 --eval_games 8 " + " ".join(SMALL[:-1]),
            "--no-progress"]
    report = inference_rounds.main(argv)
    first, second = report["rounds"]
    plain = "pimc:worlds=2,playout=random,candidates=2"
    net1 = first["network"]
    assert first["players"] == [plain, "random"] * 2 and "previous" not in first
    assert second["players"] == [f"{plain},inference={net1}", "random"] * 2
    for row in report["rounds"]:
        m = corpus.store.read_manifest(row["corpus"])
        assert m["settings"]["players"] == row["players"] and m["next_deal"] == 24
        assert np.isfinite(row["valid_ce"]) and row["baseline_ce"] > 0
    prev = second["previous"]
    assert prev["network"] == net1 and prev["games_of"] == second["corpus"]
    assert prev["oracle_tssr_log10"] > 5 and abs(prev["baseline_tssr_log10"]) < 1e-3
    direct = tssr_command.main(["--run", net1, "--corpus", second["corpus"], "--games", "4"])
    assert prev["tssr_log10"] == pytest.approx(direct["overall"]["network_log10"])
    assert 0.5 < prev["ce"] < 2.0 and 0.5 < prev["baseline_ce"] < 2.0
    with open(os.path.join(out, "rounds.json")) as f:
        assert json.load(f)["rounds"] == json.loads(json.dumps(report["rounds"]))
    capsys.readouterr()
    again = inference_rounds.main(["--out", out, "--resume", "--no-progress"])
    assert again["rounds"] == report["rounds"]
    assert "already holds 24 deals" in capsys.readouterr().err
    # killed while round 2 trained: its corpus kept, its score and network not yet written;
    # --resume keeps round 1 as it is and does round 2's missing parts, to the same report
    import shutil

    kept = os.path.join(net1, "best.msgpack")
    stamp = os.path.getmtime(kept)
    shutil.rmtree(second["network"])
    os.remove(os.path.join(out, "round_2", "score.json"))
    resumed = inference_rounds.main(["--out", out, "--resume", "--no-progress"])
    assert resumed["rounds"] == report["rounds"]
    assert os.path.getmtime(kept) == stamp
    assert os.path.isfile(os.path.join(second["network"], "best.msgpack"))
    assert os.path.isfile(os.path.join(out, "round_2", "score.json"))
    capsys.readouterr()
    for bad, says in ((argv, "already holds rounds"),
                      (["--out", out, "--resume", "--games", "30"], "--games 30"),
                      (["--out", str(tmp_path / "none"), "--resume"], "no readable"),
                      (argv[:-1] + ["--out", str(tmp_path / "b"), "--players", "random", "if"],
                       "one player or 4")):
        with pytest.raises(SystemExit, match=says):
            inference_rounds.main(bad)


def test_a_run_continues_from_a_network(script, if_corpus, small_run, tmp_path, monkeypatch):
    """``--from``: a new run starts from an exported network's parameters with a fresh optimizer,
    its training flags the defaults; a network of another shape or trainer, and ``--from`` with
    ``--resume``, are one-line errors; the next export names the parent in its lineage."""
    from cardjax import artifact

    word = os.path.join(small_run, "player")  # the parent: 2 iterations
    player = artifact.read(word)
    seen = {}

    def fake_run(**kw):  # the state the first iteration would start from; nothing trains
        seen.update(kw)
        return kw["state"]

    with monkeypatch.context() as m:
        m.setattr(runner, "run", fake_run)
        script.main(["--corpus", if_corpus, "--out", str(tmp_path / "c"), "--from", word,
                     "--no-progress"])
    assert {k: seen["config"][k] for k in ("width", "depth", "batch_games")} == {
        "width": 64, "depth": 1, "batch_games": 8}  # the player's, not the command's defaults
    state = seen["state"]
    assert int(state.iteration) == 0
    for x, y in zip(jax.tree_util.tree_leaves(state.params),
                    jax.tree_util.tree_leaves(player.params)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    assert not any(np.any(np.asarray(x)) for x in jax.tree_util.tree_leaves(state.opt_state)
                   if np.asarray(x).ndim)
    for argv, message in ((["--width", "32"], "--from .*shape"),
                          (["--resume"], "drop one of them")):
        with pytest.raises(SystemExit, match=message) as e:
            script.main(["--corpus", if_corpus, "--out", str(tmp_path / "bad"), "--from", word,
                         "--no-progress"] + argv)
        assert "\n" not in str(e.value.code)
    with pytest.raises(SystemExit, match="a dmc network, not a inference one"):
        script.main(["--corpus", if_corpus, "--out", str(tmp_path / "bad2"), "--from",
                     "doudizhu-pretrained", "--no-progress"])
    out = str(tmp_path / "child")
    script.main(["--corpus", if_corpus, "--out", out, "--from", word, "--iterations", "2",
                 "--eval_every", "2", "--eval_games", "8", "--no-progress"])
    lineage = artifact.read(os.path.join(out, "player")).meta["lineage"]
    assert lineage["parent"] == os.path.abspath(word) and lineage["iteration"] == 2
    assert lineage["parent_params_sha256"] == player.meta["params_sha256"]
