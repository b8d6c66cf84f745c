"""Round robin: every pair of several players in duplicate matches, and how transitive the
scores are.

:func:`round_robin` plays one :func:`~cardjax.eval.arena.duplicate_match` for every unordered
pair ``i < j`` of the players, all on the same deals (one seed), and fills the score matrix

    ``scores[i, j]`` = ξ_ij, player i's mean score per game against player j,

the ScrofaZero paper's ξ (appendix 8.10: "the average winning score of playing strategy π_i
against strategy π_j").  Every game's duplicate scheme gives each side each hand and role, and
the rewards are zero-sum between the two sides (the env contract, :mod:`cardjax.core`), so j's
score in the match of i against j is exactly minus i's: ``scores[j, i] = -scores[i, j]`` without
a second match, and the diagonal is 0 by definition (not played).  (With deterministic players
the match of j against i gives exactly the negated deal scores too; tests check it.)

:func:`intransitivity` is the paper's statistic ε (its equation 17) of such a matrix: 0 when the
scores are transitive (ξ_ij + ξ_jk = ξ_ik, its equation 16, e.g. differences of ratings), 1 for
rock-paper-scissors.  :func:`to_table`, :func:`to_json` and :func:`heatmap` report a
:class:`RoundRobin`; ``cardjax arena --round-robin`` runs one.
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np

from cardjax.core import Agent
from cardjax.eval.arena import duplicate_match


class RoundRobin(NamedTuple):
    """The result of :func:`round_robin`, players in the order given."""

    game: str
    names: tuple[str, ...]
    scores: np.ndarray  # float[n, n]: ξ_ij, row i's mean score per game against column j
    stderr: np.ndarray  # float[n, n]: standard error of ξ_ij over deals (symmetric; diagonal 0)
    deals: int
    seed: int
    epsilon: float  # intransitivity(scores); nan with fewer than 3 players
    epsilon_stderr: float  # its bootstrap standard error over deals (nan if not computable)
    per_deal: np.ndarray  # float[n, n, deals]: row i's score on each deal against j
    matches: tuple[dict, ...]  # duplicate_match results of the pairs i < j (no per-deal lists)


def _check_scores(scores) -> np.ndarray:
    s = np.asarray(scores, np.float64)
    if s.ndim != 2 or s.shape[0] != s.shape[1]:
        raise ValueError(f"scores must be a square matrix, got shape {s.shape}")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores must be finite")
    scale = max(1.0, float(np.abs(s).max(initial=0.0)))
    if not np.allclose(s, -s.T, rtol=0.0, atol=1e-9 * scale):
        raise ValueError("scores must be antisymmetric (scores[j, i] == -scores[i, j], zero "
                         "diagonal); average both orders first: (s - s.T) / 2")
    return s


def _epsilon(s: np.ndarray) -> np.ndarray:
    """Equation 17 for matrices ``s`` [..., n, n] (n >= 3, antisymmetric): ε per leading index."""
    i, j, k = np.array(list(itertools.combinations(range(s.shape[-1]), 3))).T
    xij, xjk, xik = s[..., i, j], s[..., j, k], s[..., i, k]
    defect = np.abs(xij + xjk - xik)
    num = np.sum(defect ** 2, axis=-1)
    den = np.sum(defect * (np.abs(xij) + np.abs(xjk) + np.abs(xik)), axis=-1)
    # den == 0 only where every triple's defect is 0: transitive on every triple, ε = 0
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def intransitivity(scores) -> float:
    """The ScrofaZero paper's intransitivity ε of a score matrix (appendix 8.10, equation 17):

                      Σ_{i<j<k} |ξ_ij + ξ_jk − ξ_ik|²
        ε_Π = ───────────────────────────────────────────────────────────
              Σ_{i<j<k} |ξ_ij + ξ_jk − ξ_ik| (|ξ_ij| + |ξ_jk| + |ξ_ik|)

    i.e. the mean over triples of ε_ijk = |ξ_ij + ξ_jk − ξ_ik| / (|ξ_ij| + |ξ_jk| + |ξ_ik|)
    (equation 18) weighted by |ξ_ij + ξ_jk − ξ_ik| (|ξ_ij| + |ξ_jk| + |ξ_ik|).  It lies in
    [0, 1]: 0 when ξ_ij + ξ_jk = ξ_ik for every triple (equation 16: transitive, e.g. ξ_ij =
    r_i − r_j), 1 for rock-paper-scissors; it does not change when the scores are scaled or the
    players reordered.

    ``scores``: float[n, n] with ``scores[i, j]`` = ξ_ij, antisymmetric (ξ_ji = −ξ_ij, zero
    diagonal; the paper's sums read only i < j and assume it); anything else is a ValueError.
    Returns nan for fewer than 3 players (no triple), and 0 when every triple is transitive
    (the 0 / 0 of an all-transitive matrix).
    """
    s = _check_scores(scores)
    if s.shape[0] < 3:
        return float("nan")
    return float(_epsilon(s))


def bootstrap_epsilon_stderr(per_deal, samples: int = 1000, seed: int = 0) -> float:
    """Standard error of ε over deals: ε of ``samples`` matrices of the per-deal scores
    ``per_deal`` (float[n, n, deals], antisymmetric in its first two axes), each averaged over
    deals drawn with replacement, the same draw for every pair (the pairs played the same
    deals).  nan for fewer than 3 players or 2 deals."""
    d = np.asarray(per_deal, np.float64)
    n, deals = d.shape[0], d.shape[-1]
    if n < 3 or deals < 2:
        return float("nan")
    rng = np.random.default_rng(seed)
    eps = []
    for start in range(0, samples, 100):  # in chunks: [100, n, n, deals] at most
        idx = rng.integers(0, deals, size=(min(100, samples - start), deals))
        eps.append(_epsilon(np.moveaxis(d[:, :, idx].mean(axis=-1), -1, 0)))
    return float(np.std(np.concatenate(eps), ddof=1))


def round_robin(env, players: dict[str, Agent], deals: int, seed: int = 0, batch: int = 128,
                progress: bool = True, bootstrap: int = 1000) -> RoundRobin:
    """Play a duplicate match (:func:`~cardjax.eval.arena.duplicate_match`, ``deals`` deals,
    ``seed``) for every pair of ``players`` (name -> agent, in the order of the table), all on
    the same deals, and return ξ, its standard errors and ε (with a ``bootstrap``-sample
    standard error over deals; 0 skips it).

    Each unordered pair is played once, the player listed first as A: the other's scores are
    the negated ones (the rewards are zero-sum between the sides).  The same agent may appear
    under two names (a deterministic one then scores exactly 0 against itself).
    """
    names = tuple(players)
    n = len(names)
    if n < 2:
        raise ValueError(f"a round robin needs at least 2 players, got {n}")
    scores = np.zeros((n, n))
    stderr = np.zeros((n, n))
    per_deal = np.zeros((n, n, deals))
    matches = []
    for i, j in itertools.combinations(range(n), 2):
        r = duplicate_match(env, players[names[i]], players[names[j]], deals=deals, seed=seed,
                            batch=batch, progress=progress, per_deal=True)
        d = np.asarray(r.pop("per_deal"), np.float64)
        r.pop("per_game", None)
        r.pop("per_game_outcome", None)
        r["a"], r["b"] = names[i], names[j]
        matches.append(r)
        scores[i, j], scores[j, i] = r["mean"], 0.0 - r["mean"]  # 0.0 - : no -0.0
        stderr[i, j] = stderr[j, i] = r["stderr"]
        per_deal[i, j], per_deal[j, i] = d, 0.0 - d
    return RoundRobin(
        game=env.name, names=names, scores=scores, stderr=stderr, deals=deals, seed=seed,
        epsilon=intransitivity(scores),
        epsilon_stderr=(bootstrap_epsilon_stderr(per_deal, bootstrap, seed) if bootstrap > 1
                        else float("nan")),
        per_deal=per_deal, matches=tuple(matches),
    )


# ------------------------------------------------------------------------------------ reports
def _decimals(rr: RoundRobin) -> int:
    scale = float(np.abs(rr.scores).max(initial=0.0))
    return 1 if scale >= 10 else 2 if scale >= 1 else 3


def _fmt(x: float, digits: int, sign: bool = False) -> str:
    if not math.isfinite(x):
        return "nan"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def _cell(rr: RoundRobin, i: int, j: int, digits: int, sep: str) -> str:
    return f"{_fmt(rr.scores[i, j], digits, True)}{sep}± {_fmt(rr.stderr[i, j], digits)}"


def epsilon_text(rr: RoundRobin) -> str:
    """``ε = 0.031 ± 0.020``, or why there is none."""
    if len(rr.names) < 3:
        return "ε: none (it needs 3 players)"
    text = f"ε = {rr.epsilon:.3f}"
    if math.isfinite(rr.epsilon_stderr):
        text += f" ± {rr.epsilon_stderr:.3f}"
    return text


LABEL = 24  # the longest player word the heat map writes on its axes whole


def axis_labels(names) -> tuple[list, str]:
    """The heat map's tick labels and its key: the names themselves when each fits in
    :data:`LABEL` characters, else numbered short labels (``"1. pimc:worlds=8,value=scr…"``) and a
    key of the whole words, one a line (``""`` when not needed)."""
    names = list(names)
    if all(len(x) <= LABEL for x in names):
        return names, ""
    short = [x if len(x) <= LABEL else x[:LABEL - 1] + "…" for x in names]
    return ([f"{i + 1}. {x}" for i, x in enumerate(short)],
            "\n".join(f"{i + 1}. {x}" for i, x in enumerate(names)))


def to_table(rr: RoundRobin) -> str:
    """The matrix as aligned text: row i, column j holds ξ_ij ± its standard error; a last
    column the row's mean over its opponents; then ε (and, where player words are long, the
    key of their numbered labels, :func:`axis_labels`)."""
    digits = _decimals(rr)
    n = len(rr.names)
    games = rr.matches[0]["games"] if rr.matches else 0
    labels, key = axis_labels(rr.names)
    header = ["", *labels, "mean"]
    rows = [header]
    for i, name in enumerate(labels):
        cells = [name]
        for j in range(n):
            cells.append("·" if i == j else _cell(rr, i, j, digits, " "))
        cells.append(_fmt(float(np.sum(rr.scores[i]) / (n - 1)), digits, True))
        rows.append(cells)
    widths = [max(len(r[c]) for r in rows) for c in range(len(header))]
    lines = [f"{rr.game}: round robin over {rr.deals} deals ({games} games a pair), "
             f"seed {rr.seed}; row's mean score per game against the column ± standard error"]
    for r in rows:
        lines.append("  ".join([r[0].ljust(widths[0])]
                               + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]).rstrip())
    lines.append(f"intransitivity (ScrofaZero eq. 17; 0 transitive, 1 rock-paper-scissors): "
                 f"{epsilon_text(rr)}")
    return "\n".join(lines + ([key] if key else []))


def _num(x: float):
    return float(x) if math.isfinite(x) else None


def to_json(rr: RoundRobin) -> dict:
    """A JSON-ready dict: ``game``, ``names``, ``scores`` and ``stderr`` (lists of rows),
    ``deals``, ``seed``, ``epsilon``, ``epsilon_stderr`` (null where nan) and ``matches`` (each
    pair's duplicate_match result, names as given)."""
    return {
        "game": rr.game,
        "names": list(rr.names),
        "scores": [[float(x) for x in row] for row in rr.scores],
        "stderr": [[_num(x) for x in row] for row in rr.stderr],
        "deals": rr.deals,
        "seed": rr.seed,
        "epsilon": _num(rr.epsilon),
        "epsilon_stderr": _num(rr.epsilon_stderr),
        "matches": [{k: (_num(v) if isinstance(v, float) else v) for k, v in m.items()}
                    for m in rr.matches],
    }


def heatmap(rr: RoundRobin, path: str) -> None:
    """Write the matrix as a PNG heat map: ξ_ij coloured (blue: the row wins, red: it loses)
    and written in each cell with its standard error; the title names the game, deals and ε;
    long player words are numbered on the axes and written whole under the figure
    (:func:`axis_labels`)."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    n = len(rr.names)
    digits = _decimals(rr)
    vmax = float(np.abs(rr.scores).max(initial=0.0)) or 1.0
    fig = Figure(figsize=(1.5 * n + 2.5, 1.1 * n + 1.8))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    shown = np.ma.masked_where(np.eye(n, dtype=bool), rr.scores)
    cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="0.85")
    image = ax.imshow(shown, cmap=cmap, vmin=-vmax, vmax=vmax)
    for i in range(n):
        for j in range(n):
            if i == j:
                ax.text(j, i, "—", ha="center", va="center", color="0.4")
                continue
            strong = abs(rr.scores[i, j]) > 0.6 * vmax
            ax.text(j, i, _cell(rr, i, j, digits, "\n"), ha="center", va="center", fontsize=9,
                    color="white" if strong else "black")
    labels, key = axis_labels(rr.names)
    ax.set_xticks(range(n), labels=labels, rotation=30, ha="right")
    ax.set_yticks(range(n), labels=labels)
    ax.set_xlabel("opponent (column)")
    ax.set_ylabel("player (row)")
    fig.colorbar(image, ax=ax, label="ξ: row's mean score per game")
    ax.set_title(f"{rr.game}: round robin, {rr.deals} deals, seed {rr.seed}\n{epsilon_text(rr)}")
    fig.tight_layout()
    if key:  # the whole words under the figure (the saved box grows to hold them)
        fig.text(0.02, 0.0, key, fontsize=8, va="top", ha="left", family="monospace")
    fig.savefig(path, dpi=100, bbox_inches="tight")
