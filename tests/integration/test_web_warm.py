"""The web table's compiled programs (cardjax.web.warm): a server that warms prepares each game's
default table in the background and says so (``/healthz``, ``/api/programs``, the table's view);
one that does not gives the page an estimate in seconds, from the time recorded here, else the
laptop's figure."""

from __future__ import annotations

import math
import time

import jax
import pytest

pytest.importorskip("flask")

from cardjax import programs, registry  # noqa: E402
from cardjax.web import warm  # noqa: E402
from cardjax.web.app import create_app  # noqa: E402
from cardjax.web.tables import Tables  # noqa: E402

GAME = "mini_doudizhu"  # the quickest to compile


def wait_warm(client, game, seconds=60.0) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        health = client.get("/healthz").json
        if health["warm"][game] in (warm.READY, warm.FAILED) or time.monotonic() > deadline:
            return health
        time.sleep(0.1)


def test_a_warming_server_prepares_the_default_table_and_says_it_is_ready():
    tables = Tables()
    tables.programs.prepared = set()  # as in a new process (other tests compiled tables here)
    client = create_app(tables, reaper=False, warm=[GAME]).test_client()
    try:
        assert client.get("/healthz").json["warm"][GAME] in (warm.WAITING, warm.WARMING)
        health = wait_warm(client, GAME)
        assert health == {"ok": True, "tables": 0, "warm": {GAME: warm.READY}}  # closed again
        status = client.get("/api/programs").json
        assert status[GAME] == {"state": "ready", "seconds": 0, "source": "ready"}
        assert status["gongzhu"]["state"] == "cold" and status["gongzhu"]["seconds"] >= 1
        # the page's default table now starts with its programs compiled
        r = client.post("/api/tables", json=warm.default_request(GAME))
        assert r.status_code == 201
        assert r.json["view"]["estimate"] in (None, {"seconds": 0, "source": "ready"})
        # the time it took is recorded beside the compilation cache: another server's estimate
        if jax.config.jax_compilation_cache_dir:
            took = programs.recorded(tables.programs.default_key(GAME))
            assert took is not None
            other = Tables()
            other.programs.prepared = set()
            assert other.programs.estimate(GAME) == {"seconds": max(1, math.ceil(took)),
                                                     "source": "recorded"}
    finally:
        tables.stop()


def test_a_server_that_does_not_warm_estimates_the_seconds(monkeypatch):
    tables = Tables()
    tables.programs.prepared = set()  # as in a new process (other tests compiled tables here)
    client = create_app(tables, reaper=False).test_client()  # the tests' default: no warming
    try:
        health = client.get("/healthz").json
        assert health == {"ok": True, "tables": 0}
        status = client.get("/api/programs").json
        assert set(status) == {"gongzhu", "doudizhu", "mini_doudizhu", "tractor"}
        for game, p in status.items():
            assert p["state"] == "cold" and p["source"] in ("recorded", "measured"), (game, p)
            assert isinstance(p["seconds"], int) and p["seconds"] >= 1, (game, p)
        # nothing recorded on this machine: the laptop's figures
        monkeypatch.setattr(programs, "recorded", lambda what: None)
        status = client.get("/api/programs").json
        assert {g: p["seconds"] for g, p in status.items()} == {
            g: registry.spec(g).table_seconds for g in status}
        assert {p["source"] for p in status.values()} == {"measured"}
        # a table being prepared carries its estimate for the page's banner
        r = client.post("/api/tables", json={**warm.default_request(GAME), "seed": 1})
        view = r.json["view"]
        assert view["ready"] or view["estimate"] == {"seconds": 15, "source": "measured"}
    finally:
        tables.stop()


def test_the_command_warms_unless_told_not_to():
    from cardjax.web import serve

    assert serve.parser().parse_args([]).warm is True
    assert serve.parser().parse_args(["--no-warm"]).warm is False
    server = serve.make_server("127.0.0.1", 0)  # the function the tests use: no warming
    try:
        assert server.tables.programs.warm == {}
    finally:
        server.server_close()
