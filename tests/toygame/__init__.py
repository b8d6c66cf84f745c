"""A toy trick-taking game defined outside ``cardjax/``, as a user's own game would be: one folder
(``env``, ``players``, ``metrics``, ``table``, ``spec``) plus one DMC adapter
(``dmc_adapter``).  ``tests/integration/test_toy_game.py`` registers it (``cardjax.registry.register(SPEC)``,
``cardjax.nets.dmc.adapter.register(ADAPTER)``) and plays it through the registry, the arena,
the DMC trainer and the web table; ``tests/integration/test_dmc_extensions.py`` trains it with
each DMC extension.

``tests/`` is on ``sys.path`` under pytest (the rootdir conftest's folder), so ``import toygame``
works from the tests, and the card's ``"toygame.env:Toy"`` strings resolve.
"""

import contextlib


@contextlib.contextmanager
def registered():
    """The toy game registered (its card and its DMC adapter) inside the block, both removed at
    its end whatever happened: the registry and the DMC adapters are process-wide, so a test
    module that registers it leaves nothing for the next one."""
    import cardjax
    from cardjax.nets.dmc import adapter as dmc_adapters
    from toygame import dmc_adapter
    from toygame.spec import SPEC

    assert "toy" not in cardjax.GAMES and "toy" not in dmc_adapters.available()
    cardjax.registry.register(SPEC)
    dmc_adapters.register(dmc_adapter.ADAPTER)
    try:
        yield cardjax.make("toy")
    finally:
        cardjax.registry.unregister("toy")
        dmc_adapters.unregister("toy")
    assert "toy" not in cardjax.GAMES and "toy" not in dmc_adapters.available()
