"""cardjax.table: the games as a person sees them, apart from any front end (the terminal's
tests are tests/integration/test_play.py, the web's tests/integration/test_web_api.py,
test_table_hints.py and tests/docs/test_web_browser.py): Mini Dou Di Zhu's table, which only
these tests play (its "leads" badge too), views that are JSON, and the words of Dou Dizhu's
moves on the page."""

from __future__ import annotations

import json

import pytest

import cardjax
from cardjax import table
from cardjax.play import Game, table_for
from cardjax.games.doudizhu.table import spoken
from cardjax.play.players import load_player
from cardjax.play.record import game_record, replay


def test_mini_doudizhu_played_by_a_person_and_replayed():
    env = cardjax.make("mini_doudizhu")
    tab = table_for(env, 1, brief=True)
    game = Game(env, tab, {0: load_player(env, "random")}, seed=2)
    while not game.over:
        view = tab.view(game.state, game.moves, reveal=False)
        json.dumps(view)
        assert view["seats"][0]["hand"] is None and len(view["seats"][1]["hand"]) == \
            view["seats"][1]["count"]
        if game.turn == 0:
            game.commit(game.agent_move())
            continue
        person = view["person"]
        with pytest.raises(table.IllegalMove, match="you do not hold the big joker"):
            tab.from_cards(game.state, [5, 5])  # two red jokers: there is one
        if not person["playable"]:
            game.commit(game.person_move(tab.from_text(game.state, "pass")))
            continue
        card = person["playable"][0]
        assert tab.preview(game.state, [card])["ready"]
        game.commit(game.person_move(tab.from_cards(game.state, [card])))
    view = tab.view(game.state, game.moves, reveal=True)
    assert view["phase"] == "over" and " wins; rewards: South " in view["result"]["lines"][0]
    record = json.loads(json.dumps(game_record(game, ["random", "you"])))
    final, returns = replay(record)
    assert bool(final.terminated) and list(returns) == record["returns"]
    assert sorted(returns) == [-1.0, 1.0]


def test_a_person_refused_in_mini_doudizhu():
    env = cardjax.make("mini_doudizhu")
    tab = table_for(env, 0)
    game = Game(env, tab, {1: load_player(env, "random")}, seed=3)
    with pytest.raises(table.IllegalMove, match="you lead: you cannot pass"):
        tab.from_text(game.state, "pass")
    with pytest.raises(table.IllegalMove, match="unknown move '77'"):
        tab.from_text(game.state, "77")
    with pytest.raises(table.IllegalMove, match="choose the cards of your move, or pass"):
        tab.from_cards(game.state, [])


@pytest.mark.parametrize("move, said", [
    ("pass", "pass"), ("BR", "rocket"), ("3334B", "333 4 small joker"),
    ("TTJJQQ", "10 10 JJ QQ"), ("R", "big joker"), ("bid 2", "bid 2")])
def test_doudizhu_moves_as_the_page_says_them(move, said):
    assert spoken(move) == said


def test_mini_doudizhu_leads_badge_follows_the_round():
    """The seat that led the current round wears "leads": a pass hands it to the other seat."""
    env = cardjax.make("mini_doudizhu")
    tab = table_for(env, None, brief=True)
    game = Game(env, tab, {s: load_player(env, "random") for s in (0, 1)}, seed=5)
    leader, passes = int(game.state.current_player), 0
    while not game.over:
        view = tab.view(game.state, game.moves, reveal=True)
        assert [s["badges"] for s in view["seats"]] == [["leads"] if i == leader else []
                                                        for i in range(2)]
        move = game.commit(game.agent_move())
        if move.actions[0] == tab.pass_action:
            leader, passes = 1 - move.seat, passes + 1
    assert passes, "a game without a pass"
