"""Evaluation: duplicate arena matches and the papers' metrics."""
