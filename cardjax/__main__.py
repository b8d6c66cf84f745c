"""``python -m cardjax``: the ``cardjax`` command (:mod:`cardjax.commands.main`)."""

from cardjax.commands.main import main

main()
