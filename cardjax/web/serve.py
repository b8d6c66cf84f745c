"""``cardjax serve`` / ``python -m cardjax.web``: the web table on a local port.

    python -m cardjax.web                       # http://127.0.0.1:8000/
    cardjax serve --port 8080 --idle-timeout 600 --players-dir runs --players-dir ~/players

The server is waitress, a production WSGI server in pure Python: its requests run in a pool
of threads of one process, so JAX's compiled programs and thread pools serve every request
(a forking server such as gunicorn would copy a process JAX has started, which JAX does not
support), and it runs alike on Linux, macOS and Windows.  Each table's players move in a thread
of their own, so tables never wait for one another.  At start a background thread prepares
each game's default table (its env and players compiled: minutes on a laptop with nothing
cached), so the first person at a table does not wait; ``--no-warm`` leaves each game to compile
at its first table.  A player word may load from disk only inside the ``--players-dir``
directories.  SIGTERM or Ctrl-C stops it gracefully: it stops accepting, finishes the requests
in progress (a record being downloaded is sent whole), closes the tables and exits 0.
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import os
import signal
import sys
import threading
import time

from cardjax.cli import positive_float, positive_int, run_command
from cardjax.web.limits import MAX_BODY_READ

DEFAULT_PORT = 8000
THREADS = 16  # requests answered at once (views are short; a first table compiles for a while)
CONNECTIONS = 500  # connections kept open at once (a page keeps one or two)
DRAIN_SECONDS = 10.0  # the most a stop waits for the requests in progress
LOG = logging.getLogger("cardjax.web")


def port_number(text: str) -> int:
    """A TCP port 0..65535 (0: any free port)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number 0..65535, got {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number 0..65535, got {port}")
    return port


def parser(prog: str | None = None) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (127.0.0.1)")
    p.add_argument("--port", type=port_number, default=DEFAULT_PORT,
                   help=f"the port ({DEFAULT_PORT}; 0: any free port)")
    p.add_argument("--idle-timeout", type=positive_float, default=300.0,
                   help="seconds after which a table nobody asks about is closed (300)")
    p.add_argument("--max-tables", type=positive_int, default=64,
                   help="the most tables open at once (64)")
    p.add_argument("--players-dir", action="append", metavar="DIR",
                   help="a directory player words may load trained players from (repeat for "
                        "more; default: the package's pretrained players and ./runs)")
    p.add_argument("--threads", type=positive_int, default=THREADS,
                   help=f"requests answered at once ({THREADS})")
    p.add_argument("--warm", action=argparse.BooleanOptionalAction, default=True,
                   help="prepare each game's default table in the background at start, so the "
                        "first table starts at once (default; --no-warm: each game compiles at "
                        "its first table)")
    p.add_argument("--verbose", action="store_true", help="log every request")
    return p


class Server:
    """waitress serving ``app`` on ``host:port`` (``port``: the port it listens on, the one
    chosen when 0 was asked), stopped gracefully: :meth:`shutdown` (or a signal, through
    :meth:`request_stop`) stops accepting, lets the requests in progress finish and their
    answers be sent (at most :data:`DRAIN_SECONDS`), then closes every connection."""

    def __init__(self, app, host: str, port: int, threads: int = THREADS):
        from waitress.server import BaseWSGIServer, create_server

        self.map: dict = {}
        self.waitress = create_server(
            app, map=self.map, host=host, port=port, threads=threads,
            connection_limit=CONNECTIONS, max_request_body_size=MAX_BODY_READ, ident="cardjax")
        listening = [d for d in self.map.values() if isinstance(d, BaseWSGIServer)]
        self.listening, self.port = listening, listening[0].effective_port
        self.stopping, self.stopped = threading.Event(), threading.Event()
        self.stopped.set()  # until it serves

    def request_stop(self) -> None:
        """Ask the serving loop to stop (safe in a signal handler: it only sets a flag)."""
        self.stopping.set()

    def serve_forever(self, poll: float = 0.25) -> None:
        from waitress import wasyncore

        self.stopped.clear()
        try:
            while not self.stopping.is_set():
                wasyncore.loop(timeout=poll, map=self.map, count=1)
            self._drain(poll)
        finally:
            self.stopped.set()

    def _drain(self, poll: float) -> None:
        """Stop accepting; close each connection once it has no request in progress and
        nothing left to send; give up after :data:`DRAIN_SECONDS`."""
        from waitress import wasyncore
        from waitress.channel import HTTPChannel

        for d in self.listening:
            wasyncore.dispatcher.close(d)  # the listening socket (not waitress's trigger)
        end = time.monotonic() + DRAIN_SECONDS
        while time.monotonic() < end:
            busy = 0
            for ch in [c for c in self.map.values() if isinstance(c, HTTPChannel)]:
                if ch.requests or ch.total_outbufs_len or ch.request is not None:
                    busy += 1
                else:
                    ch.will_close = True  # waitress's own way to close a connection
            if not busy:
                break
            wasyncore.loop(timeout=min(poll, 0.05), map=self.map, count=1)
        else:
            LOG.warning("stopping: %d request(s) still in progress after %.0f s", busy,
                        DRAIN_SECONDS)
        wasyncore.loop(timeout=0.01, map=self.map, count=2)  # the closes marked last

    def shutdown(self, timeout: float = DRAIN_SECONDS + 5) -> None:
        """Stop serving (from another thread) and wait until the loop has stopped."""
        self.request_stop()
        self.stopped.wait(timeout)

    def server_close(self) -> None:
        """Close what is left: the request threads and every socket (idempotent)."""
        from waitress import wasyncore

        self.request_stop()
        self.waitress.task_dispatcher.shutdown(timeout=DRAIN_SECONDS)
        wasyncore.close_all(self.map, ignore_all=True)


def make_server(host: str, port: int, idle_timeout: float = 300.0, max_tables: int = 64,
                verbose: bool = False, tables=None, players_dirs=None,
                threads: int = THREADS, warm=False) -> Server:
    """The :class:`Server` of a new app (``server.serve_forever()``); ``tables``: a
    :class:`Tables` to serve (else a new one, with ``players_dirs``); ``warm``: the games whose
    default table is prepared in the background (True: all; :mod:`cardjax.web.warm`).
    ``SystemExit`` with one line when it cannot listen.  ``verbose`` logs every request (the page
    asks several times a second while players move)."""
    if importlib.util.find_spec("waitress") is None:
        raise SystemExit('error: the web table needs waitress and Flask: pip install -e '
                         '".[web]"')
    from cardjax.web.app import create_app
    from cardjax.web.tables import Tables

    tables = tables or Tables(idle_timeout=idle_timeout, max_tables=max_tables,
                              players_dirs=players_dirs)
    app = create_app(tables, warm=warm)
    if verbose:
        app.wsgi_app = _logged(app.wsgi_app)
    try:
        server = Server(app, host, port, threads)
    except (OSError, ValueError) as e:  # taken, not an address of this machine, not an address
        reason = getattr(e, "strerror", None) or e
        raise SystemExit(f"error: cannot listen on {host}:{port}: {reason}") from None
    server.tables = tables
    return server


def _logged(wsgi_app):
    """``wsgi_app`` logging each request's method, path, status and milliseconds."""
    def logged(environ, start_response):
        began, seen = time.perf_counter(), {}

        def start(status, headers, exc_info=None):
            seen["status"] = status.split()[0]
            return start_response(status, headers, exc_info)

        try:
            return wsgi_app(environ, start)
        finally:
            LOG.info("%s %s %s %.0f ms", environ.get("REQUEST_METHOD"),
                     environ.get("PATH_INFO"), seen.get("status", "-"),
                     1000 * (time.perf_counter() - began))
    return logged


def serve(argv=None, prog: str | None = None) -> None:
    from cardjax.web.tables import workers

    args = parser(prog).parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    for folder in args.players_dir or ():
        if not os.path.isdir(folder):
            LOG.warning("--players-dir %s is not a directory (yet): no player loads from it",
                        folder)
    server = make_server(args.host, args.port, args.idle_timeout, args.max_tables,
                         args.verbose, players_dirs=args.players_dir, threads=args.threads,
                         warm=args.warm)
    for name in ("SIGTERM", "SIGINT"):
        signal.signal(getattr(signal, name), lambda signum, frame: server.request_stop())
    print(f"cardjax table: http://{args.host}:{server.port}/  (Ctrl-C stops it)", flush=True)
    if args.warm:
        print("cardjax table: preparing each game's default table in the background "
              "(/healthz says how far; --no-warm skips it)", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
        closed = server.tables.stop(wait=1.0)
    print(f"cardjax table: stopped; {closed} table(s) closed", flush=True)
    if workers():  # a player still compiling or searching: not waited for
        LOG.warning("stopping: %d table thread(s) still computing a move, left", len(workers()))
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)  # a thread inside XLA aborts the interpreter's own teardown


def main(argv=None) -> None:
    run_command(lambda: serve(argv, prog="python -m cardjax.web"))
