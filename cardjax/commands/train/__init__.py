"""Train a player: one recipe per experiment of a paper, each naming its trainer and game."""
