"""The Flask app of the web table: the page, its static files, and the JSON API (see
``docs/web.md``).  Every error of the API is JSON ``{"error": "..."}`` with a one-line reason:
400 for a bad request or a refused move, 404 for an unknown table, 413 for a body over
:data:`~cardjax.web.limits.MAX_BODY`, 503 when too many are open; a 500 names no exception."""

from __future__ import annotations

import importlib.resources
import re

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

import cardjax
from cardjax import agents, registry
from cardjax.table import IllegalMove
from cardjax.table.base import NAMES_BY_SEATS
from cardjax.web import warm as warming
from cardjax.web.limits import MAX_BODY, MAX_CARD_ID, MAX_CARDS, MAX_TEXT, one_line
from cardjax.web.live import LOG
from cardjax.web.new_table import BadTable
from cardjax.web.tables import Full, NoTable, Tables

def catalogue() -> dict:
    """The games as the page's form offers them."""
    return {spec.name: {"title": spec.title, "blurb": spec.blurb,
                        "seats": list(NAMES_BY_SEATS[cardjax.make(spec.name).num_players]),
                        "players": agents.baselines(spec.name), "default": spec.default_opponent,
                        "options": list(spec.page_options), "play_label": spec.play_label}
            for spec in registry.specs() if spec.table is not None}


def _body() -> dict:
    """The request's JSON object (whatever its content type says: the body is read, so one
    over ``MAX_CONTENT_LENGTH`` is a 413 on every route that takes one)."""
    try:
        body = request.get_json(force=True, silent=True)
    except RecursionError:  # the JSON parser's, on thousands of nested brackets
        raise BadTable("the request body is nested too deeply") from None
    if not isinstance(body, dict):
        raise BadTable("the request body must be a JSON object")
    return body


def _cards(body: dict):
    """The move or preview of a request: (cards, text)."""
    cards, text = body.get("cards"), body.get("text")
    if text is not None:
        if not isinstance(text, str):
            raise BadTable('"text" must be a string, e.g. "pass" or "Q♠"')
        if len(text) > MAX_TEXT:
            raise BadTable(f'"text" is a move in at most {MAX_TEXT} characters')
        return None, text
    if not isinstance(cards, list) or not all(isinstance(c, int) and not isinstance(c, bool)
                                              for c in cards):
        raise BadTable('a move is {"cards": [card ids]} or {"text": "..."}')
    if len(cards) > MAX_CARDS or not all(0 <= c <= MAX_CARD_ID for c in cards):
        raise BadTable(f"cards are at most {MAX_CARDS} ids 0..{MAX_CARD_ID} of the view's cards")
    return cards, None


def create_app(tables: Tables | None = None, reaper: bool = True, warm=()) -> Flask:
    """The app over ``tables`` (new: :class:`Tables` with its defaults); ``reaper`` starts the
    thread that closes idle tables; ``warm``: the games whose default table is prepared in the
    background now (True: every game of the page; ``cardjax serve`` warms, tests mostly not)."""
    static = importlib.resources.files("cardjax.web") / "static"
    app = Flask(__name__, static_folder=str(static), static_url_path="/static")
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY  # Werkzeug refuses a longer body: a 413
    app.url_map.merge_slashes = False  # "//" is a 404, not a redirect that echoes the query
    app.json.ensure_ascii = False  # card symbols as they are
    app.json.sort_keys = False  # the games in cardjax's order
    tables = tables or Tables()
    app.extensions["cardjax_tables"] = tables
    if reaper:
        tables.start_reaper()
    if warm:
        warming.start(tables, list(catalogue()) if warm is True else list(warm))

    @app.get("/")
    def index():
        return app.send_static_file("index.html")

    @app.get("/favicon.ico")
    def favicon():
        return "", 204

    @app.get("/healthz")
    def healthz():
        """For a supervisor or load balancer: answers while the server serves (and, when it
        warms the games, how far that is)."""
        health = {"ok": True, "tables": tables.count()}
        if tables.programs.warm:
            health["warm"] = dict(tables.programs.warm)
        return jsonify(health)

    @app.get("/api/games")
    def games():
        return jsonify(catalogue())

    @app.get("/api/programs")
    def programs():
        """Per game: its default table's programs ready, or about how long they take."""
        return jsonify(tables.programs.status())

    @app.post("/api/tables")
    def create():
        live = tables.create(_body())
        return jsonify({"id": live.id, "view": live.view()}), 201

    @app.get("/api/tables/<table_id>")
    def view(table_id):
        at = request.args.get("at")
        if at is not None and not re.fullmatch(r"-?[0-9]{1,6}", at):  # ASCII digits, bounded
            raise BadTable(f"at must be a move number, got {at[:20]!r}")
        return jsonify(tables.get(table_id).view(None if at is None else int(at)))

    @app.post("/api/tables/<table_id>/move")
    def move(table_id):
        body = _body()  # first: a body over the limit is a 413 whatever the table
        live = tables.get(table_id)
        cards, text = _cards(body)
        return jsonify(live.move(cards=cards, text=text))

    @app.post("/api/tables/<table_id>/preview")
    def preview(table_id):
        body = _body()
        live = tables.get(table_id)
        cards, _ = _cards({"cards": body.get("cards")})
        return jsonify(live.preview(cards))

    @app.get("/api/tables/<table_id>/record")
    def record(table_id):
        live = tables.get(table_id)
        rec = live.record()
        response = jsonify(rec)
        name = f"cardjax-{rec['game']}-{rec['seed']}.json"
        response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
        return response

    @app.route("/api/tables/<table_id>", methods=["DELETE"])
    @app.post("/api/tables/<table_id>/close")
    def close(table_id):
        tables.close(table_id)
        return jsonify({"closed": table_id})

    def error(message: str, status: int):
        return jsonify({"error": one_line(message)}), status

    @app.errorhandler(IllegalMove)
    @app.errorhandler(BadTable)
    def refused(e):
        return error(str(e), 400)

    @app.errorhandler(NoTable)
    def no_table(e):
        return error(e.args[0], 404)

    @app.errorhandler(Full)
    def full(e):
        return error(str(e), 503)

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(e):
        return error(f"the request body is over {MAX_BODY // 1024} KiB, the most this server "
                     "reads", 413)

    @app.errorhandler(HTTPException)
    def http_error(e):
        if not request.path.startswith("/api/"):
            return e
        return error(f"{e.name}: {e.description}", e.code)

    @app.errorhandler(Exception)
    def failure(e):
        LOG.exception("request %s %s failed", request.method, request.path)
        return error("the server failed on this request (its log has the details)", 500)

    return app
