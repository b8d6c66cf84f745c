"""``python -m cardjax``: the ``cardjax`` command (:mod:`cardjax.commands`)."""

from cardjax.commands import main

main()
