"""Whitehouse, Powley & Cowling (CIG 2011) experiments.

    cardjax whitehouse mini-exact --json out.json --png out.png
    cardjax whitehouse mini-uct --deals 256 --repeats 1
    cardjax whitehouse dd-table1 --deals 8 --trees 10 --iterations 50
    cardjax whitehouse dd-table2 --deals 8 --repeats 2 --trees 10 --iterations 50

The UCT experiments (``mini-uct``, ``dd-table1``, ``dd-table2``) are described in
``cardjax/commands/whitehouse_uct.py`` and ``docs/search.md``.

``mini-exact``: the paper's figure 3, Mini Dou Di Zhu played exactly.  Every ordered pair of the
five exact players (cheating minimax; determinized minimax without inference, with an incorrect
and with the correct opponent model; information-set expectimax) plays one game on each of the
8832 distinct deals, player 1 (seat 0) leading; a deal counts with its probability under
shuffling.  The players are deterministic, so the win rates are exact fractions: no sampling,
no error bars.  The same matrix is then played with the plain tie-break (eps = 0: the lowest
action id among the moves of best value) to show what the paper's equation (1) does.  The
players: ``cardjax/games/mini_doudizhu/exact.py``; every tie-break: ``exact_tables.py`` there.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from cardjax.games.mini_doudizhu import exact as mx
from cardjax.games.mini_doudizhu import exact_tables as xt
from cardjax.cli import positive_int
from cardjax.commands import whitehouse_inference, whitehouse_uct  # more subcommands

ORDER = ("cheat", "det", "det_inc", "det_cor", "expectimax")
LABEL = {"cheat": "cheating minimax", "det": "det., no inference",
         "det_inc": "det., incorrect inference", "det_cor": "det., correct inference",
         "expectimax": "IS expectimax"}
SHORT = {"cheat": "cheat", "det": "det", "det_inc": "det+inc", "det_cor": "det+cor",
         "expectimax": "expmax"}

# What the paper says of its figure 3 (the bars carry no numbers; section IV.C, our copy).
PAPER = {
    "figure": "Fig. 3. Performance of several agents in Mini Dou Di Zhu. For each group of bars, "
              "player 2 uses the algorithm specified in the x-axis label; for each bar within a "
              "group, player 1 uses the algorithm specified by the legend. The bars themselves "
              "represent the win rate over all deals for player 1. We did not test "
              "determinization with correct inference against itself.",
    "x_axis": ["Det without inference", "Det with incorrect inf", "Det with correct inf",
               "Expectimax"],
    "claims": {
        "cheat - det": ("~ +40", "the win rate for cheating minimax is approximately 40% greater "
                        "than that of determinized minimax, although the exact value depends on "
                        "the opponent type"),
        "expectimax - det": ("~ +30", "Expectimax is a significant improvement over determinized "
                             "minimax, outperforming it by around 30%"),
        "cheat - expectimax": ("~ +10", "achieving a win rate around 10% lower than that of "
                               "cheating minimax"),
        "det_inc - det": ("~ +10", "Inference improves the strength of determinized minimax, "
                          "increasing the win rate by around 10%"),
        "det_cor - det": ("~ +23", "or 23% with a perfect opponent model"),
    },
    "also": [
        "approximately three quarters of the apparent benefit of cheating ... can actually be "
        "attributed to the effects of strategy fusion and non-locality",
        "the performance of determinized minimax with inference still falls short of "
        "expectimax without inference",
        "[det. with correct inference] correctly identifies the actual state ... by the fourth "
        "turn in 48% of deals against an expectimax opponent; by the end of the game, ... 74%",
        "cheating minimax against itself: approximately 70.7% for player 1",
    ],
}


def run_matrix(eps: float, chunk: int, log, incorrect: str = "cheat") -> dict:
    """Player 1's exact win rate for every ordered pair (``None`` for det_cor vs det_cor)."""
    hands, _, _ = mx.deals()
    cells, seconds = {}, {}
    for a in ORDER:
        for b in ORDER:
            if a == b == "det_cor":
                continue
            t0 = time.perf_counter()
            winners = mx.play(mx.player(a, eps, incorrect), mx.player(b, eps, incorrect), hands,
                              chunk=chunk)
            rate = mx.win_rate(winners)
            seconds[f"{a}:{b}"] = round(time.perf_counter() - t0, 2)
            cells[f"{a}:{b}"] = rate
            log(f"  eps={eps:g}  {a:>10} vs {b:<10} {100 * float(rate):7.3f}%  "
                f"({seconds[f'{a}:{b}']:.1f} s)")
    return {"eps": eps, "cells": cells, "seconds": seconds}


def run_literal_expectimax(eps: float, chunk: int, log, incorrect: str = "cheat") -> dict:
    """The paper states equation (1) for minimax only: expectimax without its eps term (ties:
    lowest action id) against each equation-(1) player, both ways, and against itself."""
    hands, _, _ = mx.deals()
    lit = mx.Expectimax(0.0)
    cells = {}
    games = [("expectimax0", b) for b in ORDER] + [(a, "expectimax0") for a in ORDER]
    games.append(("expectimax0", "expectimax0"))
    for a, b in games:
        pa = lit if a == "expectimax0" else mx.player(a, eps, incorrect)
        pb = lit if b == "expectimax0" else mx.player(b, eps, incorrect)
        t0 = time.perf_counter()
        cells[f"{a}:{b}"] = rate = mx.win_rate(mx.play(pa, pb, hands, chunk=chunk))
        log(f"  eps={eps:g}  {a:>11} vs {b:<11} {100 * float(rate):7.3f}%  "
            f"({time.perf_counter() - t0:.1f} s)")
    return cells


def identification(eps: float, chunk: int) -> dict:
    """det. with correct inference (player 1) against expectimax (player 2): the probability
    that its posterior is all on the opponent's actual hand at its k-th decision (or at its
    last, when the game ended before); deals weighted
    (:func:`~cardjax.commands.whitehouse_inference.identification`)."""
    r = whitehouse_inference.identification(mx.Expectimax(eps), eps, chunk)
    return {"by_own_decision": [x["weighted"] for x in r["by_own_decision"]],
            "last_decision": r["last_decision"]["weighted"],
            "game_over": r["game_over"]["weighted"]}


def gaps(cells: dict) -> dict:
    """Per player-2 column, the paper's comparisons in percentage points."""
    out = {}
    for b in ORDER:
        r = {a: 100 * float(cells[f"{a}:{b}"]) for a in ORDER if f"{a}:{b}" in cells}
        g = {}
        for claim in PAPER["claims"]:
            x, y = claim.split(" - ")
            if x in r and y in r:
                g[claim] = round(r[x] - r[y], 2)
        if "cheat" in r and "det" in r and "expectimax" in r:
            g["share of cheating's gain kept by expectimax"] = round(
                (r["expectimax"] - r["det"]) / (r["cheat"] - r["det"]), 3)
        out[b] = g
    return out


def show_matrix(m: dict, title: str) -> str:
    lines = [title, "player 1 (rows) win rate in %, player 2 in the columns; exact (no sampling)",
             f"{'':>27}" + "".join(f"{SHORT[b]:>9}" for b in ORDER)]
    for a in ORDER:
        row = f"{LABEL[a]:>27}"
        for b in ORDER:
            c = m["cells"].get(f"{a}:{b}")
            row += f"{'--':>9}" if c is None else f"{100 * float(c):9.2f}"
        lines.append(row)
    return "\n".join(lines)


def show_gaps(main: dict, plain: dict | None) -> str:
    g1 = gaps(main["cells"])
    g0 = gaps(plain["cells"]) if plain else None
    lines = ["gaps in percentage points, per player 2 (eq. (1)" + (" / plain)" if plain else ")"),
             f"{'':>22}{'paper':>8}" + "".join(f"{SHORT[b]:>15}" for b in ORDER)]
    for claim, (ref, _) in PAPER["claims"].items():
        row = f"{claim:>22}{ref:>8}"
        for b in ORDER:
            v = g1[b].get(claim)
            if v is None:
                row += f"{'--':>15}"
            elif g0 is None:
                row += f"{v:+15.1f}"
            else:
                row += f"{f'{v:+.1f} / {g0[b][claim]:+.1f}':>15}"
        lines.append(row)
    return "\n".join(lines)


def heatmap(path: str, matrices: list[dict]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(matrices), figsize=(6.2 * len(matrices), 5.4))
    axes = np.atleast_1d(axes)
    for ax, m in zip(axes, matrices):
        z = np.full((len(ORDER), len(ORDER)), np.nan)
        for i, a in enumerate(ORDER):
            for j, b in enumerate(ORDER):
                c = m["cells"].get(f"{a}:{b}")
                if c is not None:
                    z[i, j] = 100 * float(c)
        im = ax.imshow(z, cmap="viridis", vmin=20, vmax=100)
        for i in range(len(ORDER)):
            for j in range(len(ORDER)):
                if np.isnan(z[i, j]):
                    ax.text(j, i, "not played", ha="center", va="center", color="0.4", fontsize=8)
                else:
                    ax.text(j, i, f"{z[i, j]:.1f}", ha="center", va="center",
                            color="white" if z[i, j] < 65 else "black", fontsize=9)
        ax.set_xticks(range(len(ORDER)), [SHORT[b] for b in ORDER])
        ax.set_yticks(range(len(ORDER)), [SHORT[a] for a in ORDER])
        ax.set_xlabel("player 2")
        ax.set_ylabel("player 1 (leads)")
        tie = "equation (1), eps = %g" % m["eps"] if m["eps"] else "plain tie-break (eps = 0)"
        ax.set_title(f"Mini Dou Di Zhu, player 1 win %\n{tie}")
        fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def mini_exact(args) -> dict:
    log = (lambda s: None) if args.quiet else (lambda s: print(s, flush=True))
    t0 = time.perf_counter()
    main = run_matrix(args.eps, args.chunk, log, args.incorrect_model)
    t_main = time.perf_counter() - t0
    plain = None
    if not args.no_plain:
        t1 = time.perf_counter()
        plain = run_matrix(0.0, args.chunk, log, args.incorrect_model)
        t_plain = time.perf_counter() - t1
    literal = (run_literal_expectimax(args.eps, args.chunk, log, args.incorrect_model)
               if args.eps else None)
    ident = identification(args.eps, args.chunk)
    total = time.perf_counter() - t0
    print()
    print(show_matrix(main, f"Mini Dou Di Zhu, exact: equation (1) tie-break, eps = {args.eps:g}"))
    if plain:
        print()
        print(show_matrix(plain, "the same with the plain tie-break (eps = 0: lowest action id "
                                 "among the moves of best value)"))
    print()
    print(show_gaps(main, plain))
    if literal:
        print()
        print("expectimax without equation (1)'s term (eps = 0; 'expmax0') against the "
              "equation-(1) players, player 1 win %:")
        print(f"{'':>27}{'P1 expmax0':>12}{'P2 expmax0':>12}{'(P1 expmax)':>13}{'(P2 expmax)':>13}")
        for x in ORDER:
            lit_p1, lit_p2 = literal[f"expectimax0:{x}"], literal[f"{x}:expectimax0"]
            ref_p1, ref_p2 = main["cells"][f"expectimax:{x}"], main["cells"][f"{x}:expectimax"]
            print(f"{'vs ' + LABEL[x]:>27}{100 * float(lit_p1):12.2f}{100 * float(lit_p2):12.2f}"
                  f"{100 * float(ref_p1):13.2f}{100 * float(ref_p2):13.2f}")
        print(f"{'expmax0 vs expmax0':>27}{100 * float(literal['expectimax0:expectimax0']):12.2f}")
    print()
    print("det. with correct inference vs expectimax: posterior all on the actual hand at its "
          "k-th decision: " + ", ".join(f"{k + 1}: {100 * v:.1f}%"
                                        for k, v in enumerate(ident["by_own_decision"]))
          + f"; at its last decision {100 * ident['last_decision']:.1f}%, after the last move "
            f"(counting player 2's empty hand when it wins) {100 * ident['game_over']:.1f}% "
            "(paper: 48% by the fourth turn, 74% by the end of the game)")
    print(f"wall time {total:.0f} s (eq. (1) matrix {t_main:.0f} s"
          + (f", plain {t_plain:.0f} s" if plain else "") + ", tables included)")
    out = {
        "experiment": "Whitehouse, Powley & Cowling (CIG 2011), figure 3: Mini Dou Di Zhu, exact",
        "deals": 8832, "weighting": "each deal by its number of dealings / C(18,7) C(11,7)",
        "exact": "deterministic players, one game per deal: exact fractions, no sampling error",
        "players": {k: LABEL[k] for k in ORDER},
        "incorrect_model": mx.player("det_inc", args.eps, args.incorrect_model).name
        + f" ({args.incorrect_model}; cheat: the opponent assumed to play perfect-information "
          "minimax as if it saw the player's cards)",
        "tie_breaks": "equation (1) with eps; values within 1e-12 are equal; then the lowest "
                      "action id (1 11 111 1111 2 ... 4444 B R pass); votes are exact integers",
        "paper": PAPER,
        "identification_det_cor_vs_expectimax": ident,
        "seconds_total": round(total, 1),
    }
    if literal:
        out["expectimax_without_eq1_term"] = {
            "note": "expectimax with eps = 0 ('expectimax0') against the equation-(1) players",
            "player1_win": {k: float(v) for k, v in literal.items()},
            "player1_win_exact": {k: f"{v.numerator}/{v.denominator}" for k, v in literal.items()},
        }
    for key, m in (("eq1", main), ("plain", plain)):
        if m is None:
            continue
        out[key] = {
            "eps": m["eps"],
            "player1_win": {k: float(v) for k, v in m["cells"].items()},
            "player1_win_exact": {k: f"{v.numerator}/{v.denominator}"
                                  for k, v in m["cells"].items()},
            "gaps_points": gaps(m["cells"]),
            "seconds": m["seconds"],
        }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    if args.png:
        heatmap(args.png, [m for m in (main, plain) if m])
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    q = sub.add_parser("mini-exact", help="figure 3: the exact Mini Dou Di Zhu matrix")
    q.add_argument("--eps", type=float, default=xt.EPS,
                   help=f"equation (1)'s constant (default {xt.EPS:g}; 0 = plain tie-break)")
    q.add_argument("--no-plain", action="store_true", help="skip the plain tie-break matrix")
    q.add_argument("--chunk", type=positive_int, default=1104, help="deals played at once")
    q.add_argument("--json", metavar="OUT", default=None)
    q.add_argument("--png", metavar="OUT", default=None, help="heat map of the matrices")
    q.add_argument("--quiet", action="store_true", help="no line per pairing")
    q.add_argument("--incorrect-model", choices=sorted(mx.INCORRECT_MODELS), default="cheat",
                   help="the incorrect inference's opponent model (default: cheating minimax)")
    whitehouse_uct.add_parsers(sub)
    whitehouse_inference.add_parser(sub)
    args = p.parse_args(argv)
    if args.command in whitehouse_uct.COMMANDS:
        return whitehouse_uct.run(args)
    if not 0 <= args.eps < xt.EPS_MAX:
        p.error(f"--eps must be in [0, {xt.EPS_MAX:.4f}) "
                "(equation (1) must keep the minimax order)")
    if args.command == "mini-inference":
        return whitehouse_inference.run(args)
    return mini_exact(args)
