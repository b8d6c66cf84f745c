"""``cardjax serve`` / ``python -m cardjax.web``: the web table on a local port.

    python -m cardjax.web                       # http://127.0.0.1:8000/
    cardjax serve --port 8080 --idle-timeout 600

The server is Werkzeug's threaded WSGI server (Flask's own): each request runs in a thread of
its own, and each table's players move in a thread of their own, so tables never wait for one
another.  It is meant for this machine (``--host 127.0.0.1``); a player word can name any run
directory the server can read.
"""

from __future__ import annotations

import argparse
import logging
import socket

from cardjax.cli import positive_float, positive_int, run_command

DEFAULT_PORT = 8000


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
    p.add_argument("--verbose", action="store_true", help="log every request")
    return p


def make_server(host: str, port: int, idle_timeout: float = 300.0, max_tables: int = 64,
                verbose: bool = False, tables=None):
    """Werkzeug's threaded server of a new app (``server.serve_forever()``; ``server.port``:
    the port, the one chosen when ``port`` is 0); ``tables``: a :class:`Tables` to serve
    (else a new one).  ``SystemExit`` with one line when it cannot listen.  ``verbose`` logs
    every request (the page asks several times a second while players move)."""
    from werkzeug.serving import make_server as werkzeug_server

    from cardjax.web.app import create_app
    from cardjax.web.tables import Tables

    _check_address(host, port)
    logging.getLogger("werkzeug").setLevel(logging.INFO if verbose else logging.WARNING)
    app = create_app(tables or Tables(idle_timeout=idle_timeout, max_tables=max_tables))
    try:
        return werkzeug_server(host, port, app, threaded=True)
    except (OSError, SystemExit):  # (Werkzeug exits when the port was taken meanwhile)
        raise SystemExit(f"error: cannot listen on {host}:{port}") from None


def _check_address(host: str, port: int) -> None:
    """``SystemExit`` with one line unless ``host:port`` can be listened on (Werkzeug would
    print its own lines and exit)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        family, _, _, _, address = infos[0]
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
            probe.bind(address)
    except OSError as e:
        raise SystemExit(f"error: cannot listen on {host}:{port}: {e.strerror or e}") from None


def serve(argv=None, prog: str | None = None) -> None:
    args = parser(prog).parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    server = make_server(args.host, args.port, args.idle_timeout, args.max_tables, args.verbose)
    print(f"cardjax table: http://{args.host}:{server.port}/  (Ctrl-C stops it)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def main(argv=None) -> None:
    run_command(lambda: serve(argv, prog="python -m cardjax.web"))
