"""The pretrained players shipped in the package (cardjax.agents.pretrained): each loads by name
and plays a whole game of its env with only legal moves (Dou Dizhu: with its auction too); a
shipped search player plays as it was measured, in the env its networks know."""

from __future__ import annotations

import os

import jax
import numpy as np
import pytest

import cardjax
from cardjax import agents
from cardjax.agents import pretrained

CASES = [("gongzhu", "scrofazero-pretrained", {}, {"worlds": 2, "b": 2}),
         ("doudizhu", "doudizhu-pretrained", {}, {}),
         ("doudizhu", "doudizhu-pretrained", {"bidding": True}, {}),
         ("doudizhu", "doudizhu-search", {}, {"candidates": 4}),
         ("tractor", "tractor-pretrained", {}, {})]


def test_every_shipped_player_is_played_here_and_networks_are_not_players():
    shipped = {n for g in cardjax.GAMES for n in pretrained.names(g)}
    assert shipped == {case[1] for case in CASES}
    assert set(pretrained.networks("doudizhu")) == {"doudizhu-value", "doudizhu-inference"}
    assert set(pretrained.networks("gongzhu")) == {"gongzhu-inference"}
    assert not set(pretrained.networks("doudizhu")) & set(agents.baselines("doudizhu"))
    with pytest.raises(ValueError, match="network is not a card player"):
        agents.load(cardjax.make("doudizhu"), pretrained.path("doudizhu-value"))


@pytest.mark.parametrize("game, name, env_options, play", CASES)
def test_a_shipped_player_plays_a_legal_game(game, name, env_options, play):
    env = cardjax.make(game, **env_options)
    meta = pretrained.info(name)
    assert meta["game"] == game and meta["lineage"]["command"] and meta["lineage"]["device"]
    assert name in agents.baselines(game)
    me = agents.get(env, name, **play)
    act, step = jax.jit(me.act), jax.jit(env.step)
    key = jax.random.PRNGKey(1)
    state, moves = env.init(key), 0
    while not bool(state.terminated):
        key, k = jax.random.split(key)
        a = int(act(me.params, k, state))
        assert bool(state.legal_action_mask[a]), (game, moves, a)
        state, moves = step(state, a), moves + 1
    assert moves > 10 and np.isfinite(np.asarray(state.rewards)).all()


def test_the_arenas_play_options_reach_a_shipped_player_named_on_the_command_line(monkeypatch):
    """``cardjax arena --a scrofazero-pretrained --worlds 27`` plays with 27 worlds, as a player
    directory does; the word's own settings win, and a DMC player ignores them."""
    from cardjax.agents import scrofazero

    seen = {}
    monkeypatch.setattr(scrofazero, "agent_from_params",
                        lambda env, params, network, **kw: seen.update(kw) or "player")
    monkeypatch.setattr(agents, "compiled", lambda player: player)
    env = cardjax.make("gongzhu")
    arena_options = dict(worlds=27, sampling="uniform", iec=False, b=30)
    agents.load(env, "scrofazero-pretrained:b=40", **arena_options)
    assert {k: seen[k] for k in arena_options} == dict(arena_options, b=40)
    # its worlds come from the card-location network shipped beside it, unless a word says
    assert seen["inference"] == "gongzhu-inference"
    agents.load(env, "scrofazero-pretrained:inference=oracle")
    assert seen["inference"] == "oracle"
    monkeypatch.undo()  # the real player: inference=none draws the stratified worlds again
    from cardjax.agents.scrofazero import PLAY_DEFAULTS, agent_from_params

    made = {}
    monkeypatch.setattr(scrofazero, "make_agent", lambda *a, **kw: made.update(kw) or
                        agents.Agent("x", None, None))
    monkeypatch.setattr(agents, "compiled", lambda player: player)
    monkeypatch.setattr(scrofazero, "_ACTS", {})
    agent_from_params(env, None, {"width": 1, "depth": 1, "target_beta": 0.1}, inference="none")
    assert made["inference"] is None and made["sampling"] == PLAY_DEFAULTS["sampling"]
    dmc = agents.load(cardjax.make("doudizhu"), "doudizhu-pretrained", **arena_options)
    assert dmc.name == "doudizhu-pretrained"


def test_the_shipped_gongzhu_player_is_one_compiled_act_however_often_it_is_loaded():
    """Its worlds come from a shipped network, which does not change while a process runs: every
    load of it shares one ``act`` (one compile), as a player with stratified worlds does."""
    from cardjax.agents import scrofazero

    env = cardjax.make("gongzhu")
    params, config = scrofazero.load_params(pretrained.path("scrofazero-pretrained"))
    a, b = (scrofazero.agent_from_params(env, params, config, inference="gongzhu-inference")
            for _ in range(2))
    assert a.act is b.act
    assert scrofazero.agent_from_params(env, params, config, inference="none").act is not a.act


def test_the_search_player_plays_as_measured_and_only_where_its_networks_were_trained(
        monkeypatch):
    """``doudizhu-search`` is PIMC with its recorded settings, the arena's options for trained
    players ignored (its ``--worlds`` is ScrofaZero's) and a word's own settings kept; at a
    table with an auction, which its networks never saw, it refuses in one line."""
    from cardjax.agents import pimc

    seen = {}
    monkeypatch.setattr(pimc, "make", lambda env, **kw: seen.update(kw) or
                        agents.Agent("pimc", None, None))
    monkeypatch.setattr(agents, "compiled", lambda player: player)
    env = cardjax.make("doudizhu")
    me = agents.load(env, "doudizhu-search:search=4", worlds=27, sampling="uniform", iec=False,
                     b=30)
    assert me.name == "doudizhu-search"
    assert seen == dict(worlds=8, candidates=8, search=4, value="doudizhu-value",
                        rank="doudizhu-pretrained", inference="doudizhu-inference")
    with pytest.raises(ValueError, match=r"plays cardjax.make\('doudizhu', bidding=False"):
        agents.get(cardjax.make("doudizhu", bidding=True), "doudizhu-search")


def test_a_search_player_exports_as_its_settings(tmp_path):
    """``cardjax export --search`` writes a search player's word as an artifact of no parameters
    that loads by its directory; a word that is no search player, a network of another game, or
    no --game is refused before anything is written."""
    from cardjax.commands import export

    out = str(tmp_path)
    args = ["--game", "doudizhu", "--command", "measured", "--device", "cpu", "--directory", out]
    meta = export.main(["--search", "pimc:worlds=2,value=doudizhu-value", "--name", "mine"]
                       + args)
    assert meta["kind"] == "search" and meta["parameters"] == 0
    assert meta["env"] == {"bidding": False, "spring": False, "reward": "adp"}
    assert pretrained.names("doudizhu", out) == ("mine",)
    player = agents.load(cardjax.make("doudizhu"), os.path.join(out, "mine"))
    assert player.name == "mine"
    for word, match in [("rule", "not a search player"),
                        ("pimc:value=scrofazero-pretrained", "a network of gongzhu")]:
        with pytest.raises(SystemExit, match=match):
            export.main(["--search", word, "--name", "bad"] + args)
    with pytest.raises(SystemExit):
        export.main(["--search", "pimc", "--name", "bad", "--command", "c", "--device", "d"])
    assert sorted(os.listdir(out)) == ["mine"]


def test_the_shipped_files_are_small():
    """Every player and network the package ships, under 24 MiB: small enough to commit and to
    put in a wheel, with room for the paper's 512 x 6 Gongzhu network at half precision (6.8 MB)
    beside the 13.9 MB shipped now (the Tractor player and the search players' networks are
    stored at half precision)."""
    shipped = [n for g in cardjax.GAMES for n in pretrained.names(g) + pretrained.networks(g)]
    total = sum(os.path.getsize(os.path.join(pretrained.path(n), f))
                for n in shipped for f in os.listdir(pretrained.path(n)))
    assert len(shipped) == 7 and total < 24 * 2 ** 20


def _maps() -> int:
    with open("/proc/self/maps") as f:
        return sum(1 for _ in f)


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="needs /proc (Linux)")
@pytest.mark.parametrize("game, name", [("gongzhu", "greed"), ("doudizhu", "doudizhu-pretrained")])
def test_playing_one_state_at_a_time_compiles_once(game, name):
    """The obvious loop -- ``a = me.act(me.params, key, state)`` on one state, no jit of one's
    own -- compiles the player once: the process's memory maps stay flat from game to game
    (eager, every call added new compiled code: thousands of maps a game)."""
    env = cardjax.make(game)
    me = agents.get(env, name)
    step = jax.jit(env.step)
    counts = []
    for g in range(3):
        key = jax.random.PRNGKey(g)
        state = env.init(key)
        while not bool(state.terminated):
            key, k = jax.random.split(key)
            state = step(state, me.act(me.params, k, state))
        counts.append(_maps())
    assert counts[2] - counts[1] < 50, counts
