"""Search over cardjax games: batched MCTS with per-team values (see :mod:`cardjax.search.mcts`)."""

from cardjax.search.mcts import (
    SearchOutput,
    Tree,
    batched_search,
    num_teams,
    search,
    simulations,
    team_matrix,
    zero_value,
)

__all__ = [
    "SearchOutput",
    "Tree",
    "batched_search",
    "num_teams",
    "search",
    "simulations",
    "team_matrix",
    "zero_value",
]
