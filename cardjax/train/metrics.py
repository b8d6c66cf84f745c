"""Run logs: ``metrics.jsonl`` (one JSON object per line) and learning-curve plots.

A resumed run first drops the lines written after its checkpoint (:func:`truncate_after`), so
the log reads as if the run had never stopped.
"""

from __future__ import annotations

import json
import math
import os
from typing import Iterable

import numpy as np


def read_jsonl(path: str) -> list[dict]:
    """The records of a JSONL file (an empty list when it does not exist).

    A last line cut short by a killed run is dropped; any other bad line raises ``ValueError``
    naming its line number."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        lines = f.read().split("\n")
    records = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as e:
            if i >= len(lines) - 1:  # the last line, written when the run was killed
                break
            raise ValueError(f"{path}:{i}: not a JSON object ({e})") from None
    return records


def write_jsonl(path: str, records: Iterable[dict]) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    os.replace(tmp, path)


def append_jsonl(path: str, record: dict) -> None:
    with open(path, "a") as f:
        f.write(json.dumps(record) + "\n")
        f.flush()


def truncate_after(path: str, iteration: int) -> list[dict]:
    """Keep the records with ``iteration <= iteration``; returns them."""
    kept = [r for r in read_jsonl(path) if r.get("iteration", 0) <= iteration]
    if os.path.exists(path):
        write_jsonl(path, kept)
    return kept


def plot_curves(records: list[dict], evals: list[dict], path: str, title: str = "",
                rate_name: str = "positions_per_s", eval_name: str = "WPG") -> None:
    """Loss terms, speed and evaluation score against iteration, one PNG.

    ``records``: metrics.jsonl rows (``iteration``, ``loss`` and, when present, ``policy_kl``,
    ``value_l1`` with ``value_target_abs``, else ``target_abs``, the speed ``rate_name``); ``evals``: rows with ``iteration``,
    ``elapsed_s``, ``mean`` and ``stderr`` (the score ``eval_name``, e.g. WPG or ADP).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    it = [r["iteration"] for r in records]

    def line(ax, key, label=None):
        ys = [r.get(key, math.nan) for r in records]
        if any(np.isfinite(ys)):
            ax.plot(it, ys, label=label or key)

    line(axes[0, 0], "loss")
    if any("policy_kl" in r for r in records):
        line(axes[0, 0], "policy_kl")
    axes[0, 0].set_title("loss")
    axes[0, 0].legend()
    if any("value_l1" in r for r in records):
        # The error is read against the targets' size: the search's value targets start near 0
        # (an untrained net's values) and grow to the game's score scale, so the absolute error
        # and the loss rise while the error relative to the targets falls.
        line(axes[0, 1], "value_l1", "mean |error|")
        line(axes[0, 1], "value_target_abs", "mean |target|")
        axes[0, 1].set_title("value error and the targets' size (points)")
        axes[0, 1].legend(loc="upper left")
        rel = [r["value_l1"] / r["value_target_abs"] if r.get("value_target_abs") else math.nan
               for r in records]
        if any(np.isfinite(rel)):
            twin = axes[0, 1].twinx()
            twin.plot(it, rel, color="tab:red", lw=0.8)
            twin.set_ylabel("|error| / |target|", color="tab:red")
    else:
        line(axes[0, 1], "target_abs")
        axes[0, 1].set_title("mean |target|")
    line(axes[1, 0], rate_name)
    axes[1, 0].set_title(rate_name.replace("_per_s", "/s") + " (whole step)")
    ax = axes[1, 1]
    if evals:
        xs = [e["elapsed_s"] / 60 for e in evals]
        errors = [np.nan if e.get("stderr") is None else e["stderr"] for e in evals]  # one game
        ax.errorbar(xs, [e["mean"] for e in evals], yerr=errors, marker="o", capsize=3)
        ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_title(f"evaluation ({eval_name}) vs minutes of training")
    for a in axes.flat:
        a.set_xlabel("iteration")
    ax.set_xlabel("minutes")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
