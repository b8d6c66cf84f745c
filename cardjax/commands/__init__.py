"""The command-line programs: ``cardjax <command>`` (:mod:`cardjax.commands.main`) runs the
module of that name here; ``scripts/*.py`` and ``experiments/*.py`` are wrappers of them.  The top
floor: a command may import anything in cardjax, and nothing in cardjax imports a command."""
