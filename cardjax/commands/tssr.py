"""The true-state sampling ratio (TSSR) of a card-location inference run.  By trick (or move)
and role, on held-out corpus games (Solinas, Rebstock and Buro 2019, section 5 and figure 2).

    cardjax tssr --run runs/inference_greed --games 200 --json tssr.json --png tssr.png

For every decision of ``--games`` games of the corpus's ``--split`` (default ``test``), seen by the
seat to act: how many times more likely the true world is drawn than by a uniform draw from the
information set, for worlds drawn in proportion to the run's best network (``best.msgpack``), to
the simple baseline (what is ruled out respected, the rest by the places' unseen cards) and to
the oracle (the true world: TSSR = the information-set size).  Exact (``cardjax.inference.worlds``),
not sampled.  Prints and writes the mean TSSR (the paper's figure) and the mean log10 TSSR per
stage and role.  ``--corpus DIR`` scores the run on another corpus of the same game (games of
other players: how well the network's inference carries over to them).
"""

from __future__ import annotations

import argparse
import json
import os

import jax
import jax.numpy as jnp
import numpy as np

from cardjax import corpus as corpora
from cardjax.cli import positive_int
from cardjax.train.inference import load_run
from cardjax.train.inference.tssr import make_tssr

SAMPLERS = ("network", "baseline", "oracle")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--run", required=True, help="an cardjax train inference run directory")
    p.add_argument("--split", choices=corpora.SPLITS, default="test")
    p.add_argument("--corpus", default=None,
                   help="score on this corpus instead of the run's (same game and options)")
    p.add_argument("--games", type=positive_int, default=200)
    p.add_argument("--batch", type=positive_int, default=8, help="games replayed at once")
    p.add_argument("--json", default=None)
    p.add_argument("--png", default=None)
    return p.parse_args(argv)


def main(argv=None) -> dict:
    args = parse_args(argv)
    try:
        trainer, params, c = load_run(args.run)
        if args.corpus:
            c = corpora.Corpus(args.corpus, trainer.env)
    except (ValueError, corpora.CorpusError) as e:
        raise SystemExit(f"error: {e}") from None
    tssr = make_tssr(trainer)
    parts, seen = [], 0
    for g in c.games(args.split, args.batch):
        n = g.deal_id.shape[0]
        rows = np.arange(args.batch) % n  # a short last batch is padded, the padding dropped
        states = jax.tree_util.tree_map(jnp.asarray, g.take(rows).state)
        out = jax.device_get(tssr(params, states, jnp.asarray(g.take(rows).actions)))
        T = out["valid"].shape[0] // args.batch
        keep = np.arange(args.batch) < min(n, args.games - seen)
        parts.append({k: v.reshape(T, args.batch)[:, keep].reshape(-1) for k, v in out.items()})
        seen += int(keep.sum())
        if seen >= args.games:
            break
    if not parts:
        raise SystemExit(f"error: the corpus has no {args.split} games")
    r = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    logs = {"network": r["log_network"], "baseline": r["log_baseline"], "oracle": r["log_size"]}
    adapter = trainer.adapter
    rows = []
    for role, name in enumerate(adapter.role_names):
        for stage in range(adapter.stages):
            m = r["valid"] & (r["role"] == role) & (r["stage"] == stage)
            if not m.any():
                continue
            row = {"role": name, "stage": stage, "positions": int(m.sum())}
            for s in SAMPLERS:
                x = logs[s][m].astype(np.float64)  # Tractor's sets pass 10^38
                row[s] = float(np.mean(np.exp(x)))
                row[f"{s}_log10"] = float(np.mean(x) / np.log(10))
            rows.append(row)
    v = r["valid"]
    overall = {f"{s}_log10": float(np.mean(logs[s][v]) / np.log(10)) for s in SAMPLERS}
    report = {"run": args.run, "corpus": c.directory, "game": trainer.env.name,
              "split": args.split, "games": seen, "positions": int(v.sum()), "overall": overall,
              "stage_name": adapter.stage_name, "rows": rows}
    print(f"{'role':>14} {adapter.stage_name:>9} {'positions':>9} " +
          " ".join(f"{s + ' TSSR':>16}" for s in SAMPLERS))
    for row in rows:
        print(f"{row['role']:>14} {row['stage'] + 1:>9} {row['positions']:>9} " +
              " ".join(f"{row[s]:16.4g}" for s in SAMPLERS))
    print("mean log10 TSSR over every position: " + ", ".join(
        f"{s} {overall[s + '_log10']:.3f}" for s in SAMPLERS))
    if args.json:
        tmp = args.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(report, f, indent=1)
        os.replace(tmp, args.json)
    if args.png:
        plot(report, args.png)
    return report


def plot(report: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = [r["role"] for r in report["rows"]]
    roles = sorted(set(order), key=order.index)
    fig, axes = plt.subplots(1, len(roles), figsize=(4.5 * len(roles), 3.6), squeeze=False)
    for ax, role in zip(axes[0], roles):
        rows = [r for r in report["rows"] if r["role"] == role]
        x = [r["stage"] + 1 for r in rows]
        for s, style in zip(SAMPLERS, ("o-", "s--", "^:")):
            ax.plot(x, [r[s] for r in rows], style, label=s)
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.set_yscale("log")
        ax.set_xlabel(report["stage_name"])
        ax.set_title(f"{report['game']}: {role}")
    axes[0][0].set_ylabel("mean TSSR")
    axes[0][0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
