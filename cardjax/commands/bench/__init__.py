"""Benchmark the playouts, a training step, the search players and the compile times."""
