"""Adding a game is one folder plus one adapter per trainer: the toy game of ``tests/toygame/``
(defined outside ``cardjax/``) registered at run time and played through the registry, the
players, the arena, the DMC trainer and the web table, with nothing in ``cardjax/`` naming it.

The registry and the DMC adapters are process-wide: the module fixture registers the toy game and
its adapter for this file only and removes both at the end, so other test files never see it.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax import agents
from cardjax.eval import arena
from conftest import read_metrics, tree_index, wait_for_view
import toygame
from toygame import dmc_adapter as toy_dmc
from toygame import env as toy_rules
from toygame.spec import SPEC

DOC = """Train the toy game by DMC (the test's command).

    (no usage)

The generic DMC command of cardjax.train.dmc.cli, with the toy game's defaults."""
TINY = dict(num_envs=4, width=8, depth=1, head_width=8, head_depth=1, minibatch=16, lr=1e-3)


@pytest.fixture(scope="module", autouse=True)
def toy():
    """The toy game registered (its card and its DMC adapter) for this module only."""
    with toygame.registered() as env:
        yield env


def play_out(env, act_a, act_b, keys, batch_states):
    """Both seats' players (``act(key, state)`` batched over games) play ``batch_states`` to the
    end; every action must be legal.  Returns the final states."""
    step = jax.jit(jax.vmap(env.step))
    s = batch_states
    for t in range(env.max_steps):
        keys = jax.vmap(lambda k: jax.random.split(k)[0])(keys)
        seat = np.asarray(s.current_player)
        a = np.where(seat == 0, np.asarray(act_a(keys, s)), np.asarray(act_b(keys, s)))
        live = ~np.asarray(s.terminated)
        assert np.asarray(s.legal_action_mask)[np.arange(len(a)), a][live].all(), t
        s = step(s, jnp.asarray(a, jnp.int32))
    assert np.asarray(s.terminated).all()
    return s


def batched(agent):
    act = jax.jit(jax.vmap(agent.act, in_axes=(None, 0, 0)))
    return lambda keys, states: act(agent.params, keys, states)


# --------------------------------------------------------------------------------- the registry
def test_registered_game_is_made_and_meets_the_contract(toy):
    assert "toy" in cardjax.GAMES
    env = cardjax.make("toy")
    assert type(env) is toy_rules.Toy and repr(env) == "cardjax.make('toy')"
    assert cardjax.registry.spec("toy").version == "1"
    assert cardjax.registry.spec("toy") is SPEC
    assert cardjax.api_test(env) == {"games": 8, "steps": 6}
    checked = cardjax.make("toy", checked=True)
    s = checked.init(jax.random.PRNGKey(0))
    bad = int(np.flatnonzero(~np.asarray(s.legal_action_mask))[0])
    with pytest.raises(ValueError, match="illegal action"):
        checked.step(s, bad)
    with pytest.raises(ValueError, match="bad options for 'toy'"):
        cardjax.make("toy", colour=1)
    with pytest.raises(ValueError, match="is registered already"):
        cardjax.registry.register(SPEC.__class__(**{**SPEC.__dict__}))


def test_rules_rotation_and_hidden_cards(toy):
    env = toy
    s = env.init_from_deal([[0, 3, 7], [1, 2, 6]])
    for card in (0, 6, 2, 3, 7, 1):  # 0 < 6: seat 1 takes; 2 < 3: seat 0; 7 > 1: seat 0
        s = env.step(s, card)
    assert bool(s.terminated) and np.asarray(s.tricks).tolist() == [2, 1]
    assert np.asarray(s.rewards).tolist() == [1.0, -1.0]
    first = env.init(jax.random.PRNGKey(3))
    r = env.rotate(first)
    np.testing.assert_array_equal(np.asarray(r._hands), np.asarray(first._hands)[::-1])
    assert int(r.leader) == int(r.current_player) == 1
    np.testing.assert_array_equal(np.asarray(r.legal_action_mask), np.asarray(first._hands[0]))
    # the hidden cards: seat 0 sees its hand and the played cards; the other five are dealt
    # three to seat 1, two to the kitty, differently in different worlds
    s = env.step(first, int(np.argmax(np.asarray(first.legal_action_mask))))
    seen = np.asarray(s._hands[0]) | np.asarray(s.played).any(0)
    hands = set()
    for i in range(12):
        w = env.sample_hidden(jax.random.PRNGKey(i), s, 0)
        np.testing.assert_array_equal(np.asarray(env.observe(w, 0)), np.asarray(env.observe(s, 0)))
        opp, kitty = np.asarray(w._hands[1]), np.asarray(w._kitty)
        assert opp.sum() == 3 and kitty.sum() == 2 and not (opp & seen).any()
        assert not (opp & kitty).any() and (opp | kitty | seen).all()
        np.testing.assert_array_equal(np.asarray(w.legal_action_mask), opp)  # seat 1 to act
        hands.add(tuple(np.flatnonzero(opp)))
    assert len(hands) > 1


# ---------------------------------------------------------------------------------- the players
def test_baselines_include_the_cards_players_and_every_games(toy):
    names = agents.baselines("toy")
    assert {"random", "low", "cheat_uct", "det_uct", "ismcts", "pimc"} <= set(names)
    assert agents.get(toy, "low").name == "low"
    with pytest.raises(ValueError, match="unknown agent 'greed' for toy"):
        agents.get(toy, "greed")


def test_low_and_ismcts_play_legal_moves(toy):
    low = agents.get(toy, "low")
    search = agents.get(toy, "ismcts", iterations=20)
    assert search.name == "ismcts"
    keys = jax.random.split(jax.random.PRNGKey(1), 4)
    states = jax.vmap(toy.init)(keys)
    final = play_out(toy, batched(search), batched(low), keys, states)
    assert set(np.abs(np.asarray(final.rewards)).ravel()) == {1.0}
    # the low player plays its lowest card
    s = tree_index(states, 0)
    assert int(low.act(None, None, s)) == int(np.flatnonzero(np.asarray(s._hands[0]))[0])


# ------------------------------------------------------------------------------------ the arena
def test_duplicate_match_uses_the_cards_scheme(toy):
    low, rnd = agents.get(toy, "low"), agents.get(toy, "random")
    r = arena.duplicate_match(toy, low, rnd, deals=16, batch=16, progress=False, per_deal=True)
    assert {"game", "a", "b", "deals", "games", "mean", "stderr", "wp_a", "wp_a_first",
            "wp_b_first"} <= set(r)
    assert (r["game"], r["a"], r["b"], r["deals"], r["games"]) == ("toy", "low", "random", 16, 32)
    assert -1.0 <= r["mean"] <= 1.0 and 0.0 <= r["wp_a"] <= 1.0
    assert np.isin(np.asarray(r["per_game"]), [-1.0, 1.0]).all()  # every game is won or lost
    assert r["wp_a"] == pytest.approx(np.mean(np.asarray(r["per_game"]) > 0))


def test_identical_deterministic_players_score_exactly_zero(toy):
    low = agents.get(toy, "low")
    r = arena.duplicate_match(toy, low, low, deals=16, batch=16, progress=False, per_deal=True)
    assert r["mean"] == 0.0 and r["stderr"] == 0.0
    assert np.asarray(r["per_deal"]).tolist() == [0.0] * 16  # the rotation cancels every deal
    assert r["wp_a_first"] == r["wp_b_first"]


# --------------------------------------------------------------------------------- DMC training
@pytest.fixture(scope="module")
def dmc_run(toy, tmp_path_factory):
    """Two iterations of the generic DMC command (:mod:`cardjax.train.dmc.cli`) on the toy
    game: its adapter's defaults, tiny nets, no evaluation."""
    from cardjax.train.dmc import cli as dmc_cli

    out = str(tmp_path_factory.mktemp("toy_dmc") / "run")
    defaults = dmc_cli.train_defaults("toy", **TINY)
    parser = dmc_cli.make_parser(DOC, out, 2, defaults, "none")
    args = parser.parse_args(["--out", out, "--iterations", "2", "--eval_deals", "0",
                              "--no-progress"])

    def make_evaluate(cfg, params, deals, seed):
        raise AssertionError("no evaluation with --eval_deals 0")

    summary = dmc_cli.main(args, defaults, make_evaluate, label="Toy DMC", eval_name="none",
                           summarize=lambda last: {}, load_player=agents.load)
    return out, summary


def test_dmc_config_comes_from_the_adapter(toy):
    from cardjax.train import dmc

    assert "toy" in dmc.available() and dmc.get_adapter("toy") is toy_dmc.ADAPTER
    cfg = dmc.Config.for_game("toy")
    assert (cfg.game, cfg.reward, cfg.k, cfg.max_steps, cfg.num_roles) == ("toy", "win", 3, 6, 1)
    game = dmc.make_game(cfg)
    assert game.action_features.shape == (8, 15) and game.num_actions == 8
    s = toy.init(jax.random.PRNGKey(0))
    np.testing.assert_array_equal(np.asarray(game.features(s)),
                                  np.asarray(toy.observe(s, 0)) > 0.5)


def test_dmc_trains_two_iterations(dmc_run):
    out, summary = dmc_run
    assert summary == {"iteration": 2, "out": out}
    rows = read_metrics(out)
    assert [r["iteration"] for r in rows] == [1, 2]
    for r in rows:
        assert math.isfinite(r["loss"]) and r["loss"] == r["loss_player"] >= 0
        assert r["decisions"] == r["frames"] == TINY["num_envs"] * 6
        assert r["game_length"] == 6 and r["truncated"] == r["overflow"] == 0
        assert 0.0 <= r["seat0_wins"] <= 1.0  # the adapter's outcome
        assert r["target_abs"] == 1.0  # every decision's target is its seat's +1 / -1


def test_trained_player_loads_and_plays_legal_cards(toy, dmc_run):
    from cardjax.agents import dmc as dmc_agent

    out, _ = dmc_run
    params, cfg = dmc_agent.load_params(out)
    assert cfg.game == "toy" and cfg.num_envs == TINY["num_envs"]
    assert all(x.shape[0] == 1 for x in jax.tree_util.tree_leaves(params))  # one network
    me = dmc_agent.load(toy, out)
    assert me.name == "toy_dmc"
    assert agents.load(toy, out).name == "toy_dmc"  # the generic loader finds the run too
    keys = jax.random.split(jax.random.PRNGKey(7), 4)
    play_out(toy, batched(me), batched(me), keys, jax.vmap(toy.init)(keys))


# ------------------------------------------------------------------------------- the web table
@pytest.fixture(scope="module")
def client(toy):
    pytest.importorskip("flask")
    from cardjax.web.app import create_app
    from cardjax.web.tables import Tables

    tables = Tables(idle_timeout=600)
    yield create_app(tables, reaper=False).test_client()
    tables.stop()


def test_the_catalogue_lists_the_toy_game(client):
    games = client.get("/api/games").json
    assert games["toy"]["title"] == "Toy" and games["toy"]["blurb"] == SPEC.blurb
    assert games["toy"]["seats"] == ["South", "North"] and games["toy"]["default"] == "low"
    assert "low" in games["toy"]["players"] and "ismcts" in games["toy"]["players"]


def test_a_person_plays_a_whole_game_at_the_web_table(client, toy):
    from cardjax.play.record import replay

    r = client.post("/api/tables", json={"game": "toy", "seat": 0, "seed": 5, "pace": 0})
    assert r.status_code == 201, r.json
    tid = r.json["id"]
    assert r.json["view"]["game"] == "toy" and r.json["view"]["players"] == ["you", "low"]
    played = 0
    while True:
        v = wait_for_view(client, tid, lambda v: v["person"] is not None or v["over"])
        if v["over"]:
            break
        hand = [f["id"] for f in v["seats"][0]["hand"]]
        playable = v["person"]["playable"]
        assert playable and set(playable) <= set(hand)
        if played == 0:  # a card not in the hand is refused with the reason
            stranger = next(c for c in range(8) if c not in hand)
            bad = client.post(f"/api/tables/{tid}/move", json={"cards": [stranger]})
            assert bad.status_code == 400 and f"you do not hold {stranger}" in bad.json["error"]
        moved = client.post(f"/api/tables/{tid}/move", json={"cards": [playable[-1]]})
        assert moved.status_code == 200, moved.json
        played += 1
    assert played == 3 and v["phase"] == "over" and v["moves"] == 6
    result = v["result"]
    assert sorted(result["rewards"]) == [-1.0, 1.0] and sum(result["tricks"]) == 3
    assert result["rewards"][result["winner"]] == 1.0 and result["lines"]
    record = client.get(f"/api/tables/{tid}/record").json
    assert record["game"] == "toy" and len(record["actions"]) == 6
    final, returns = replay(record)
    assert returns.tolist() == result["rewards"] and bool(final.terminated)
    assert client.post(f"/api/tables/{tid}/close").status_code == 200
