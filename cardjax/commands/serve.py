"""Play the games in a browser: a web table on a local port (cardjax.web)."""

from __future__ import annotations

from cardjax.web.serve import serve


def main(argv=None) -> None:
    serve(argv, prog="cardjax serve")
