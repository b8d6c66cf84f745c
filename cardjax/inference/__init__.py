"""Card-location inference: worlds drawn in proportion to per-card predictions
(:mod:`cardjax.inference.worlds`)."""
