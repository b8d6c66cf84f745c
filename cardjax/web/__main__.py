"""``python -m cardjax.web``: the web table (see :mod:`cardjax.web.serve`)."""

from cardjax.web.serve import main

main()
