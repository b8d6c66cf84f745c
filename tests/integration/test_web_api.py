"""The web table's JSON API (cardjax.web), through Flask's test client: tables made and refused,
legal moves accepted and illegal ones refused with the reason, finished games whose records
replay through the env, Tractor's four phases, tables that do not wait for one another, the
reaper of idle tables, and the server's limits (body size, options, player words, budgets,
players directories; tests/integration/test_web_fuzz.py fuzzes them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import jax
import jax.numpy as jnp
import pytest

pytest.importorskip("flask")

from cardjax.core import Agent  # noqa: E402
from cardjax.play.record import replay  # noqa: E402
from cardjax.web import words  # noqa: E402
from cardjax.web.app import create_app  # noqa: E402
from cardjax.web.limits import MAX_BODY, QUOTE, shown  # noqa: E402
from cardjax.web.tables import Tables, workers  # noqa: E402
from conftest import wait_for_view  # noqa: E402


@pytest.fixture(scope="module")
def client():
    tables = Tables(idle_timeout=600)
    yield create_app(tables, reaper=False).test_client()
    tables.stop()


def new_table(client, **body):
    r = client.post("/api/tables", json={"pace": 0, "players": "random", **body})
    assert r.status_code == 201, r.json
    return r.json["id"]


def person_or_over(client, tid):
    return wait_for_view(client, tid, lambda v: v["person"] is not None or v["over"])


def move(client, tid, **body):
    return client.post(f"/api/tables/{tid}/move", json=body)


def choose(client, tid, view) -> list[int]:
    """Cards for a several-card move, picked as a person clicks them: a highlighted card still
    in the hand, again, until the selection makes a move (preview's ``ready``); a single that
    could be a pair becomes the pair."""
    hand = [f["id"] for f in view["seats"][view["you"]]["hand"]]
    chosen = []
    while True:
        p = client.post(f"/api/tables/{tid}/preview", json={"cards": chosen}).json
        left = list(hand)
        for c in chosen:
            left.remove(c)
        if p["ready"]:
            if len(chosen) == 1 and chosen[0] in p["playable"] and chosen[0] in left:
                chosen.append(chosen[0])
                continue
            return chosen
        chosen.append(next(c for c in p["playable"] if c in left))


def play_out(client, tid, bid="bid 3"):
    """The person's moves until the end: the first highlighted card, the cards ``choose``
    picks, ``bid`` in an auction, the last declaration offered, pass when nothing else."""
    phases, multi = set(), False
    while True:
        v = person_or_over(client, tid)
        if v["over"]:
            return v, phases, multi
        p = v["person"]
        phases.add(v["phase"])
        enabled = [c["text"] for c in p["choices"] if c["enabled"]]
        if v["phase"] == "bidding":
            body = {"text": bid if bid in enabled else "no bid"}
        elif not p["playable"] and not p["submit"] or v["phase"] == "expose":
            body = {"text": enabled[-1]}
        elif not p["submit"]:
            body = {"cards": [p["playable"][0]]}
        elif not p["playable"]:
            body = {"text": "pass"}
        else:
            body = {"cards": choose(client, tid, v)}
            multi |= len(body["cards"]) > 1 and v["phase"] == "play"
        r = move(client, tid, **body)
        assert r.status_code == 200, (body, r.json)


# ------------------------------------------------------------------ requests that are refused
def test_the_games_and_the_page(client):
    games = client.get("/api/games").json
    assert list(games) == ["gongzhu", "doudizhu", "mini_doudizhu", "tractor"]
    assert games["doudizhu"]["seats"] == ["South", "West", "East"]
    assert "random" in games["tractor"]["players"]
    # the page names the play phase from the cards: rounds of plays, or tricks
    assert {g: v["play_label"] for g, v in games.items()} == {
        "gongzhu": "Tricks", "doudizhu": "Plays", "mini_doudizhu": "Plays", "tractor": "Tricks"}
    page = client.get("/")
    assert page.status_code == 200 and b"table.js" in page.data
    assert client.get("/static/table.js").status_code == 200


@pytest.mark.parametrize("body, message", [
    ({"game": "chess"}, "unknown game 'chess'; available: gongzhu, doudizhu"),
    ({"game": "gongzhu", "seat": 4}, "seat must be 0-3 in gongzhu"),
    ({"game": "gongzhu", "options": {"colour": 1}}, "unknown option 'colour' for gongzhu"),
    ({"game": "doudizhu", "players": ["random", "random"]}, "a list of 3"),
    ({"game": "gongzhu", "players": "no_such_player"}, "player 'no_such_player'"),
    ({"game": "gongzhu", "seed": -1}, "seed must be an integer"),
    ({"game": "gongzhu", "pace": "fast"}, "pace must be seconds"),
    ({"game": "gongzhu", "seat": None, "players": ["you", "random", "random", "random"]},
     "a watched table has no seat"),
    ({"game": "gongzhu", "colour": "red"}, "unknown field(s) 'colour'"),
])
def test_a_bad_table_is_a_400_that_says_why(client, body, message):
    r = client.post("/api/tables", json=body)
    assert r.status_code == 400 and message in r.json["error"], r.json


def test_bad_requests_are_json_errors(client):
    r = client.post("/api/tables", data="not json", content_type="application/json")
    assert r.status_code == 400 and "JSON object" in r.json["error"]
    for r in (client.get("/api/tables/stale"), client.post("/api/tables/stale/move", json={}),
              client.get("/api/tables/stale/record"), client.post("/api/tables/stale/close")):
        assert r.status_code == 404 and "no table 'stale'" in r.json["error"]
    r = client.get("/api/nothing")
    assert r.status_code == 404 and "error" in r.json
    r = client.put("/api/tables")
    assert r.status_code == 405 and "error" in r.json
    tid = new_table(client, game="gongzhu", seed=1)
    person_or_over(client, tid)
    for body, message in (({"cards": "Q♠"}, 'a move is {"cards"'), ({"text": 5}, '"text" must'),
                          ({"cards": [77]}, "no card has id 77")):
        r = move(client, tid, **body)
        assert r.status_code == 400 and message in r.json["error"], r.json
    r = client.get(f"/api/tables/{tid}?at=x")
    assert r.status_code == 400 and "at must be a move number" in r.json["error"]
    assert client.post(f"/api/tables/{tid}/close").json == {"closed": tid}
    assert client.get(f"/api/tables/{tid}").status_code == 404


# ------------------------------------------------------------------ Gongzhu
def test_gongzhu_legal_moves_are_played_and_illegal_ones_refused(client):
    tid = new_table(client, game="gongzhu", seat=1, seed=3)
    refused = {}
    while True:
        v = person_or_over(client, tid)
        if v["over"]:
            break
        p = v["person"]
        hand = [f["id"] for f in v["seats"][1]["hand"]]
        other = [c for c in hand if c not in p["playable"]]
        if other and "follow" not in refused:  # a card of another suit while following
            r = move(client, tid, cards=[other[0]])
            assert r.status_code == 400
            refused["follow"] = r.json["error"]
            assert client.get(f"/api/tables/{tid}").json["moves"] == v["moves"]  # unchanged
        missing = next(c for c in range(52) if c not in hand)
        r = move(client, tid, cards=[missing])
        refused["hold"] = r.json["error"]
        r = move(client, tid, text=f"{p['playable'][0]}")  # text must be a card as people write
        assert r.status_code == 400 and "unknown card" in r.json["error"]
        r = move(client, tid, cards=[p["playable"][0]])
        assert r.status_code == 200 and r.json["moves"] > v["moves"]
    assert "is not legal: you must follow" in refused["follow"]
    assert refused["hold"].startswith("you do not hold")
    assert len(v["result"]["lines"]) == 2 and v["at"] == v["moves"] == 52
    r = move(client, tid, cards=[0])
    assert r.status_code == 400 and r.json["error"] == "the game is over"

    record = client.get(f"/api/tables/{tid}/record")
    assert "attachment" in record.headers["Content-Disposition"]
    record = json.loads(record.data)
    assert record["game"] == "gongzhu" and record["players"][1] == "you"
    final, returns = replay(record)
    assert bool(final.terminated)
    assert list(returns) == record["returns"] == v["result"]["rewards"]
    # stepping through: the deal, every hand shown now that the game is over
    first = client.get(f"/api/tables/{tid}?at=0").json
    assert first["at"] == 0 and first["moves"] == 52 and first["person"] is None
    assert all(len(s["hand"]) == 13 for s in first["seats"])
    assert client.get(f"/api/tables/{tid}?at=53").status_code == 400


def test_a_record_is_refused_before_the_end_and_replays_only_legal_actions(client):
    tid = new_table(client, game="gongzhu", seed=4)
    person_or_over(client, tid)
    r = client.get(f"/api/tables/{tid}/record")
    assert r.status_code == 400 and "not over" in r.json["error"]
    v, _, _ = play_out(client, tid)
    record = client.get(f"/api/tables/{tid}/record").json
    bad = dict(record, actions=record["actions"][:3] + [record["actions"][1]])
    with pytest.raises(ValueError, match="action 3 .* is not legal"):
        replay(bad)


def test_a_watched_table_plays_itself(client):
    tid = new_table(client, game="gongzhu", seat=None, seed=5)
    v = wait_for_view(client, tid, lambda v: v["over"])
    assert v["watch"] and all(s["hand"] is not None for s in v["seats"])
    r = move(client, tid, cards=[0])
    assert r.status_code == 400 and "you are watching" in r.json["error"]
    _, returns = replay(client.get(f"/api/tables/{tid}/record").json)
    assert list(returns) == v["result"]["rewards"]


# ------------------------------------------------------------------ Dou Dizhu
def test_doudizhu_with_bidding_to_the_end(client):
    tid = new_table(client, game="doudizhu", options={"bidding": True}, seed=6)
    v = person_or_over(client, tid)
    assert v["phase"] == "bidding" and v["centre"] == {"label": "Bottom", "backs": 3}
    assert [c["label"] for c in v["person"]["choices"]] == ["No bid", "Bid 1", "Bid 2", "Bid 3"]
    r = move(client, tid, cards=[0])
    assert r.status_code == 400 and "the auction is on" in r.json["error"]
    # as the landlord: a lead may not pass, and a move the hand does not hold is refused
    r = move(client, tid, text="bid 3")
    assert r.status_code == 200
    v = person_or_over(client, tid)
    assert v["seats"][0]["badges"] == ["landlord"] and len(v["centre"]["cards"]) == 3
    r = move(client, tid, text="pass")
    assert r.status_code == 400 and r.json["error"] == "you lead: you cannot pass"
    hand = [f["id"] for f in v["seats"][0]["hand"]]
    r = move(client, tid, cards=[hand[-1]] * (hand.count(hand[-1]) + 1))  # one more 3 than held
    assert r.status_code == 400 and r.json["error"] == "you do not hold 3", r.json
    v, phases, _ = play_out(client, tid)
    record = client.get(f"/api/tables/{tid}/record").json
    _, returns = replay(record)
    assert list(returns) == record["returns"] == v["result"]["rewards"] and sum(returns) == 0
    assert v["result"]["landlord"] == 0 and phases == {"play"}


def test_doudizhu_refuses_a_move_that_does_not_beat(client):
    tid = new_table(client, game="doudizhu", seat=1, seed=8)  # a peasant; South leads
    while True:
        v = person_or_over(client, tid)
        assert not v["over"], "no follow where a held card does not beat"
        p = v["person"]
        if p["prompt"].startswith("Your lead"):
            assert move(client, tid, cards=[p["playable"][0]]).status_code == 200
            continue
        low = [f["id"] for f in v["seats"][1]["hand"] if f["id"] not in p["playable"]]
        if low:
            r = move(client, tid, cards=[low[-1]])
            assert r.status_code == 400 and " does not beat " in r.json["error"], r.json
            return
        assert move(client, tid, text="pass").status_code == 200


# ------------------------------------------------------------------ Tractor
def test_tractor_through_its_four_phases(client):
    # seat 0 deals; deal 34 asks the person to declare, bury and overturn
    tid = new_table(client, game="tractor", options={"dealer": 0}, seed=34)
    v = person_or_over(client, tid)
    assert v["phase"] == "declare" and v["person"]["choices"][0]["label"] == "Pass"
    assert v["person"]["choices"][-1]["label"].startswith("Declare")
    r = move(client, tid, cards=[0])
    assert r.status_code == 400 and "choose a declaration" in r.json["error"]
    move(client, tid, text=v["person"]["choices"][-1]["text"])
    v = wait_for_view(client, tid, lambda v: v["phase"] == "bury" and v["person"])
    assert v["seats"][0]["count"] == 33 and v["person"]["submit"] == "Bury"
    hand = [f["id"] for f in v["seats"][0]["hand"]]
    r = move(client, tid, cards=hand[:5])
    assert r.status_code == 400 and r.json["error"] == "bury 8 cards: you chose 5"
    r = move(client, tid, cards=hand[:9])
    assert r.status_code == 400 and "too many cards" in r.json["error"]
    v, phases, multi = play_out(client, tid)
    assert phases >= {"bury", "overturn", "play"} and multi
    assert sum(v["result"]["level_gain"]) > 0
    record = client.get(f"/api/tables/{tid}/record").json
    assert any(len(m["actions"]) > 2 for m in record["moves"] if m["seat"] == 0)
    _, returns = replay(record)
    assert list(returns) == record["returns"] == v["result"]["rewards"]


def test_tractor_refuses_a_follow_off_suit(client):
    tid = new_table(client, game="tractor", options={"dealer": 0}, seed=2)  # (the env compiled)
    while True:
        v = person_or_over(client, tid)
        assert not v["over"], "no follow with a card off the led suit"
        p = v["person"]
        hand = [f["id"] for f in v["seats"][0]["hand"]]
        if v["phase"] == "play" and p["prompt"].startswith("Follow with 1 card"):
            off = [c for c in hand if c not in p["playable"]]
            if off:
                r = move(client, tid, cards=[off[0]])
                assert r.status_code == 400 and "(you must follow" in r.json["error"], r.json
                return
        if p["choices"]:
            move(client, tid, text="pass")
        else:
            assert move(client, tid, cards=choose(client, tid, v)).status_code == 200


# ------------------------------------------------------------------ tables side by side
def slow_player(seconds: float):
    """A test player whose every move is ``seconds`` of compiled work (no Python, no sleep),
    then a random legal action."""
    def spin(n):
        return jax.lax.fori_loop(0, n, lambda i, v: jnp.sin(v) * 0.999 + 0.001, jnp.float32(.5))

    probe = jax.jit(spin, static_argnums=0)
    probe(10 ** 6).block_until_ready()
    t = time.perf_counter()
    probe(10 ** 6).block_until_ready()
    n = int(10 ** 6 * seconds / max(time.perf_counter() - t, 1e-4))

    def make(env):
        def act(params, key, state):
            v = spin(n)
            return jnp.where(v > 1e9, 0, env.random_action(key, state)).astype(jnp.int32)
        return Agent("slow", act)
    return make


def test_a_slow_player_holds_up_no_other_table():
    tables = Tables(players={"slow": slow_player(3.0)})
    client = create_app(tables, reaper=False).test_client()
    try:
        # A: the person at West; South, who leads, thinks for seconds a move
        a = new_table(client, game="gongzhu", seat=1, seed=9,
                      players=["slow", "you", "random", "random"])
        wait_for_view(client, a, lambda v: v["thinking"] == 0, timeout=60)
        r = move(client, a, cards=[0])
        assert r.status_code == 400 and r.json["error"] == "it is not your turn: South is to play"
        t = time.perf_counter()
        b = new_table(client, game="gongzhu", seat=0, seed=10)  # B: random players
        v = person_or_over(client, b)
        assert move(client, b, cards=[v["person"]["playable"][0]]).status_code == 200
        seen = client.get(f"/api/tables/{a}").json
        took = time.perf_counter() - t
        assert seen["thinking"] == 0, "South's slow move ended before B was played"
        assert took < 1.5, f"table B waited {took:.1f} s for table A's slow player"
    finally:
        tables.stop()


def test_idle_tables_are_reaped_and_polled_ones_kept():
    tables = Tables(idle_timeout=0.6)
    client = create_app(tables, reaper=False).test_client()
    tables.start_reaper(every=0.05)
    try:
        idle = new_table(client, game="gongzhu", seat=None, seed=11, pace=0.05)
        kept = new_table(client, game="gongzhu", seat=None, seed=12, pace=0.05)
        live = tables.tables[idle]
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            assert client.get(f"/api/tables/{kept}").status_code == 200
            time.sleep(0.1)
        r = client.get(f"/api/tables/{idle}")
        assert r.status_code == 404 and "idle for more than 0.6 s" in r.json["error"]
        assert live.closed.is_set()
        time.sleep(0.3)
        assert not live.working  # its worker stopped
        # the reaper is not a table's thread: a server stopping (and the tests' end) waits for
        # the moves being computed, never for a reaper that runs until its Tables stops
        assert tables.reaper.is_alive() and tables.reaper not in workers()
    finally:
        tables.stop()
    assert tables.tables == {}


@pytest.mark.parametrize("query", ["%C2%B2", "1" * 5000, "-", "3.5", "x"])
def test_a_bad_move_number_is_a_400_with_a_short_reason(client, query):
    tid = new_table(client, game="mini_doudizhu", seed=3)
    r = client.get(f"/api/tables/{tid}?at={query}")
    assert r.status_code == 400 and r.json["error"].startswith("at must be a move number")
    assert len(r.get_data()) < 200


def test_deeply_nested_json_is_a_400(client):
    r = client.post("/api/tables", data="[" * 60_000, content_type="application/json")
    assert r.status_code == 400, r.get_data()[:200]
    assert "Error" not in r.json["error"] and "/" not in r.json["error"]


def test_too_many_tables_is_a_503():
    tables = Tables(max_tables=1)
    client = create_app(tables, reaper=False).test_client()
    try:
        new_table(client, game="gongzhu", seed=1)
        r = client.post("/api/tables", json={"game": "gongzhu", "players": "random"})
        assert r.status_code == 503 and "1 tables are open" in r.json["error"]
    finally:
        tables.stop()


def test_the_cap_holds_under_concurrent_creation():
    """Places are taken under the lock before the players load (a tester once opened 9 tables at
    once past the cap: the count was checked, the lock released while players loaded, and the
    table inserted without a second look)."""
    import threading

    from cardjax.web.tables import Full

    tables = Tables(max_tables=3)
    made, full, barrier = [], [], threading.Barrier(12)
    real_open = tables._open

    def slow_open(req):  # players that take a while to load widen the window
        time.sleep(0.2)
        return real_open(req)

    tables._open = slow_open

    def create():
        barrier.wait()
        try:
            made.append(tables.create({"game": "mini_doudizhu", "players": "random", "pace": 0}))
        except Full as e:
            full.append(str(e))

    threads = [threading.Thread(target=create) for _ in range(12)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert len(made) == 3 and len(full) == 9 and len(tables.tables) == 3
        assert tables.loading == 0 and all("3 tables are open" in e for e in full)
    finally:
        tables.stop()


# ------------------------------------------------------------------ the command
def test_the_command_line():
    from cardjax.web import serve

    with pytest.raises(SystemExit) as e:
        serve.parser().parse_args(["--port", "70000"])
    assert e.value.code == 2
    server = serve.make_server("127.0.0.1", 0)
    try:
        with pytest.raises(SystemExit, match=r"^error: cannot listen on 127\.0\.0\.1:\d+: "):
            serve.make_server("127.0.0.1", server.port)
    finally:
        server.server_close()
    r = subprocess.run([sys.executable, "-m", "cardjax", "serve", "--port", "x"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "argument --port: expected a port number" in r.stderr
    r = subprocess.run([sys.executable, "-m", "cardjax.web", "--help"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and "--idle-timeout" in r.stdout and "--players-dir" in r.stdout


def test_a_stop_finishes_the_requests_in_progress():
    """The graceful stop (SIGTERM and Ctrl-C call it): the listening socket closes at once, and
    a request in progress is answered whole before the server returns."""
    import http.client
    import socket
    import threading

    from cardjax.web import serve

    tables = Tables()
    server = serve.make_server("127.0.0.1", 0, tables=tables)
    count = tables.count
    tables.count = lambda: (time.sleep(1.0), count())[1]  # /healthz takes a second
    loop = threading.Thread(target=server.serve_forever)
    loop.start()
    answer = {}

    def ask():
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        conn.request("GET", "/healthz")
        r = conn.getresponse()
        answer["healthz"] = r.status, json.loads(r.read())

    asker = threading.Thread(target=ask)
    asker.start()
    try:
        time.sleep(0.4)  # the request is in progress
        start = time.monotonic()
        server.shutdown()
        took = time.monotonic() - start
        asker.join(10)
        assert answer["healthz"] == (200, {"ok": True, "tables": 0})
        assert 0.3 < took < 5 and not loop.is_alive()
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", server.port), timeout=2).close()
    finally:
        server.shutdown()
        server.server_close()
        tables.stop()


# ------------------------------------------------------------------ limits
def refusal(r, status=400) -> str:
    """The one-line reason of a refusal, checked short and free of the server's internals."""
    assert r.status_code == status, (r.status_code, r.get_data()[:300])
    assert set(r.json) == {"error"} and len(r.get_data()) < 1024, r.get_data()[:300]
    message = r.json["error"]
    assert "\n" not in message and "Traceback" not in message and ".py" not in message
    assert os.getcwd() not in message and "site-packages" not in message
    return message


def test_healthz(client):
    r = client.get("/healthz")
    assert r.status_code == 200 and r.json["ok"] is True and isinstance(r.json["tables"], int)


@pytest.mark.parametrize("route", ["/api/tables", "/api/tables/x/move", "/api/tables/x/preview"])
def test_a_body_over_the_limit_is_a_413(client, route):
    big = json.dumps({"game": "gongzhu", "players": "x" * MAX_BODY})
    for content_type in ("application/json", "text/plain"):
        r = client.post(route, data=big, content_type=content_type)
        assert "64 KiB" in refusal(r, 413)
    r = client.post("/api/tables", data=b"x" * 1_000_000)  # the tester's 50 MB, smaller
    assert "64 KiB" in refusal(r, 413)


@pytest.mark.parametrize("options, message", [
    ({"checked": True}, "option checked: a table runs the jitted env"),
    ({"checked": "x"}, "option checked must be true or false, got 'x'"),
    ({"exposure": 1}, "option exposure must be true or false, got 1"),
    ({"exposure": "yes"}, "option exposure must be true or false"),
    ({"illegal_penalty": 5}, "unknown option 'illegal_penalty' for gongzhu"),
    ({"first_leader": "x" * 5000}, "option first_leader got 'xxx"),
    ({"first_leader": "nobody"}, "first_leader must be 'seat0' or 'holder_of_S2'"),
    ({"first_leader": ["seat0"]}, "option first_leader takes a number or a word, got a list"),
])
def test_gongzhu_options_are_checked_by_type_and_value(client, options, message):
    r = client.post("/api/tables", json={"game": "gongzhu", "options": options})
    assert message in refusal(r)


@pytest.mark.parametrize("game, options, message", [
    ("tractor", {"chaodi": "x"}, "option chaodi must be true or false"),
    ("tractor", {"level": "Z"}, "option level got 'Z': one of 2, 3"),
    ("tractor", {"dealer": True}, "option dealer takes a number or a word, got true"),
    ("tractor", {"dealer": 1e300}, "option dealer must be a number within"),
    ("tractor", {"throw_penalty": 5}, "throw_penalty must be 0 or 10"),
    ("doudizhu", {"bidding": "true"}, "option bidding must be true or false"),
    ("doudizhu", {"spring": None}, "option spring must be true or false, got null"),
    ("mini_doudizhu", {"bidding": True}, "unknown option 'bidding' for mini_doudizhu"),
])
def test_every_games_options_are_checked(client, game, options, message):
    r = client.post("/api/tables", json={"game": game, "options": options})
    assert message in refusal(r)


@pytest.mark.parametrize("word, message", [
    ("ismcts:iterations=1000000000000", "iterations is a number 0 .. 20,000"),
    ("ismcts:iterations=20001", "iterations is a number 0 .. 20,000"),
    ("det_uct:iterations=1000", "40 trees x 1000 iterations is over this server's 20,000"),
    ("cheat_uct:trees=65", "trees is a number 0 .. 64"),
    ("pimc:worlds=100000", "worlds is a number 0 .. 256"),
    ("pimc:playouts=1e9", "playouts is a number 0 .. 64"),
    ("pimc:candidates=x", "candidates is a number 0 .. 256"),
    ("ismcts:k=nan", "k is a number 0 .. 100"),
    ("x" * 10_000, "player words are at most 200 characters"),
    ("rand\x00om", "a player word is printable text"),
    ("ismcts:iterations", "bad setting 'iterations'"),
])
def test_player_words_and_search_budgets_are_bounded(client, word, message):
    r = client.post("/api/tables", json={"game": "gongzhu", "players": word})
    reason = refusal(r)
    assert message in reason and reason.count("x" * 10) <= QUOTE // 10


def test_paths_outside_the_players_dirs_get_one_answer(tmp_path, monkeypatch):
    """A player word may load only inside --players-dir, symlinks and .. resolved; a path outside
    gets the same answer whether or not it exists."""
    allowed, outside = tmp_path / "players", tmp_path / "outside"
    (allowed / "empty").mkdir(parents=True)
    (outside / "real").mkdir(parents=True)
    (allowed / "link").symlink_to(outside / "real")
    monkeypatch.chdir(tmp_path)
    tables = Tables(players_dirs=[str(allowed)])
    client = create_app(tables, reaper=False).test_client()

    def reason(word, game="gongzhu"):
        return refusal(client.post("/api/tables", json={"game": game, "players": word}))

    def shape(word, message):  # the answer with the word taken out
        return message.replace(shown(word), "WORD")

    answers = {shape(w, reason(w)) for w in (
        "/etc", "/no/such/directory", str(outside / "real"), "outside/real", "players/link",
        "players/../outside/real", "players", "players/missing", "no_such_player")}
    assert len(answers) == 1, answers
    (answer,) = answers
    assert "is not allowed" in answer and "--players-dir" in answer and "random" in answer
    # a word naming a directory inside a setting is held to the same rule
    assert "is not allowed" in reason("ismcts:value=/etc")
    assert "is not allowed" in reason("ismcts:playout=outside/real")
    assert "is not allowed" in reason("bidder:play=/etc", game="doudizhu")
    # inside: the loader's own reason, with the path as it was sent, never the server's
    message = reason("players/empty")
    assert "players/empty" in message and str(tmp_path) not in message
    # baselines and shipped pretrained players are unaffected by the directories
    assert words.check("scrofazero-pretrained", "gongzhu", dirs=[]) == "scrofazero-pretrained"
    assert words.check("ismcts:iterations=300", "gongzhu", dirs=[]) == "ismcts:iterations=300"
    # and so are the networks the package ships, by name (not as a path), for their own game
    word = "pimc:value=doudizhu-value,inference=doudizhu-inference"
    assert words.check(word, "doudizhu", dirs=[]) == word
    assert "is not allowed" in reason("pimc:value=doudizhu-value")  # a network of Dou Dizhu
    real = words.check("players/empty:iteration=3", "gongzhu", dirs=[str(allowed)])
    assert real == f"{os.path.realpath(allowed / 'empty')}:iteration=3"


def test_long_ids_moves_and_numbers_are_quoted_short(client):
    message = refusal(client.get("/api/tables/" + "y" * 5000), 404)
    assert message.count("y") <= QUOTE
    tid = new_table(client, game="mini_doudizhu", seed=5)
    person_or_over(client, tid)
    assert "at most 200 characters" in refusal(move(client, tid, text="pass" * 1000))
    assert "at most 64 ids" in refusal(move(client, tid, cards=[0] * 1000))
    assert "ids 0..255" in refusal(move(client, tid, cards=[10 ** 30]))
    r = client.post("/api/tables", json={"game": "gongzhu", "seed": 10 ** 4000})
    assert len(refusal(r)) < 200
    client.post(f"/api/tables/{tid}/close")


def test_a_player_that_fails_says_so_without_internals():
    def broken(env):
        def act(params, key, state):
            raise ZeroDivisionError(f"in {__file__}")  # fails while it is traced
        return Agent("broken", act)

    tables = Tables(players={"broken": broken})
    client = create_app(tables, reaper=False).test_client()
    try:
        tid = new_table(client, game="mini_doudizhu", seat=None, players="broken")
        end = time.monotonic() + 60
        while (v := client.get(f"/api/tables/{tid}").json)["error"] is None:
            assert time.monotonic() < end
            time.sleep(0.05)
        assert v["error"] == "the game stopped: a player failed (the server's log has why)"
    finally:
        tables.stop()
