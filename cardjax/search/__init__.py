"""Search over cardjax games: batched MCTS with per-team values (:mod:`cardjax.search.mcts`) and
play under hidden information (:mod:`cardjax.search.hidden_info`: MCTS in sampled worlds, with
pluggable world samplers and weights), and cheating, determinized and information-set UCT
(:mod:`cardjax.search.uct`).  Generic: nothing here imports a game module."""

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
