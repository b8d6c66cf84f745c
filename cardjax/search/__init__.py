"""Search over cardjax games: batched MCTS with per-team values (:mod:`cardjax.search.mcts`) and
play under hidden information (:mod:`cardjax.search.hidden_info`: sampled worlds, IEC weights)."""

from cardjax.search.mcts import (
    SearchOutput,
    Tree,
    batched_search,
    search,
    simulations,
    team_matrix,
    zero_value,
)

__all__ = [
    "SearchOutput",
    "Tree",
    "batched_search",
    "search",
    "simulations",
    "team_matrix",
    "zero_value",
]
