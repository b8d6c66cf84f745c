"""A toy trick-taking game defined outside ``cardjax/``, as a user's own game would be: one folder
(``env``, ``players``, ``metrics``, ``table``, ``spec``) plus one DMC adapter
(``dmc_adapter``).  ``tests/integration/test_toy_game.py`` registers it (``cardjax.registry.register(SPEC)``,
``cardjax.nets.dmc.adapter.register(ADAPTER)``) and plays it through the registry, the arena,
the DMC trainer and the web table.

``tests/`` is on ``sys.path`` under pytest (the rootdir conftest's folder), so ``import toygame``
works from the tests, and the card's ``"toygame.env:Toy"`` strings resolve.
"""
