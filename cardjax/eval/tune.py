"""Tune a player's settings by duplicate matches: every point of a grid against one opponent.

``tune(env, "bidder:value=RUN,play=rule", {"threshold": [0.4, 0.5], "high": [0.5, 1.0]}, b)``
plays each combination (``bidder:value=RUN,play=rule,threshold=0.4,high=0.5``, ...) against
``b`` on the same deals (:func:`cardjax.eval.arena.duplicate_match`) and returns the rows and
the best.  The best row's score is biased upwards (it was chosen for it on these deals), so
``check_deals`` plays the chosen setting once more on fresh deals and reports that score too.
"""

from __future__ import annotations

import itertools
from typing import Callable

from cardjax.core import Agent
from cardjax.eval import arena


def grid_specs(base: str, axes: dict[str, list]) -> list[tuple[str, dict]]:
    """``(spec, settings)`` for every combination of ``axes`` added to the player word ``base``
    (axes in the order given, the last varying fastest)."""
    if not axes:
        raise ValueError("tune needs at least one setting to vary")
    for key, values in axes.items():
        if not values:
            raise ValueError(f"setting {key!r} has no values to try")
    name, _, rest = base.partition(":")
    fixed = [item for item in rest.split(",") if item]
    taken = {item.partition("=")[0] for item in fixed}
    clash = sorted(taken & set(axes))
    if clash:
        raise ValueError(f"{', '.join(clash)} is set in {base!r} and varied too")
    out = []
    for combo in itertools.product(*axes.values()):
        settings = dict(zip(axes, combo))
        items = fixed + [f"{k}={v}" for k, v in settings.items()]
        out.append((f"{name}:{','.join(items)}", settings))
    return out


def tune(env, base: str, axes: dict[str, list], b: Agent, load: Callable[[str], Agent],
         deals: int = 256, seed: int = 0, check_deals: int = 0, check_seed: int | None = None,
         batch: int = 128, progress: bool = False) -> dict:
    """Play every grid point against ``b``; returns ``rows`` (spec, settings, mean, stderr and
    the match's other figures), ``best`` (the row with the highest mean) and, with
    ``check_deals``, ``check``: the best spec's match on ``check_deals`` fresh deals (seed
    ``check_seed``, default ``seed + 1``).  ``load(spec) -> Agent`` makes the players."""
    rows = []
    for spec, settings in grid_specs(base, axes):
        r = arena.duplicate_match(env, load(spec), b, deals=deals, seed=seed, batch=batch,
                                  progress=progress)
        rows.append({"spec": spec, "settings": settings, **r})
    best = max(rows, key=lambda r: r["mean"])
    result = {"base": base, "axes": axes, "b": b.name, "deals": deals, "seed": seed,
              "rows": rows, "best": best}
    if check_deals:
        check_seed = seed + 1 if check_seed is None else check_seed
        result["check"] = arena.duplicate_match(env, load(best["spec"]), b, deals=check_deals,
                                                seed=check_seed, batch=batch, progress=progress)
    return result
