"""The ``cardjax`` command: ``cardjax serve`` starts the web table (:mod:`cardjax.web`)."""

from __future__ import annotations

import argparse
import sys

from cardjax.cli import run_command

COMMANDS = {"serve": "play the games in a browser: a web table on a local port"}


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    p = argparse.ArgumentParser(prog="cardjax", description=__doc__.split("\n\n")[0])
    p.add_argument("command", choices=sorted(COMMANDS),
                   help="; ".join(f"{name}: {what}" for name, what in COMMANDS.items()))
    args = p.parse_args(argv[:1])
    if args.command == "serve":
        from cardjax.web.serve import serve

        run_command(lambda: serve(argv[1:], prog="cardjax serve"))
