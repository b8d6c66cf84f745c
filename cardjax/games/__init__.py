"""One module per game; ``cardjax.make(name)`` builds their envs."""
