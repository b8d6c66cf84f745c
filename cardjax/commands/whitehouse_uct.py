"""The UCT experiments of Whitehouse, Powley and Cowling (CIG 2011): ``cardjax whitehouse``'s
subcommands ``mini-uct``, ``dd-table1``, ``dd-table2`` and ``dd-grouping``.

    cardjax whitehouse mini-uct --deals 256 --repeats 1
    cardjax whitehouse dd-table1 --deals 8 --trees 10 --iterations 50
    cardjax whitehouse dd-table2 --deals 8 --repeats 2 --trees 10 --iterations 50
    cardjax whitehouse dd-grouping --deals 8 --ismcts-iterations 300

``mini-uct``: Mini Dou Di Zhu, player 1 (the leader) information-set UCT (4,000 iterations) or
determinized UCT (20 trees x 200) against player 2 determinized UCT (20 x 200); the paper: 67.2%
and 62.7% for player 1.  ``dd-table1``: Dou Dizhu, the win rate of player 1 (the landlord),
player 2, player 3 and players 2 and 3 when they use cheating UCT instead of determinized UCT,
everyone else determinized UCT (the paper's table 1).  ``dd-table2``: Dou Dizhu, the landlord's
win rate as information-set, determinized and cheating UCT against determinized peasants, overall
and on the deals where cheating beats determinized UCT by at least a threshold (table 2).
``dd-grouping``: the paper's move grouping (section III.A) on and off: the branching factor of
the landlord's first decision, and the landlord's win rate as information-set UCT with and
without it against determinized peasants on the same deals.  The defaults are the paper's
settings (40 x 250; 10,000 iterations; k = 1; wins as the reward; moves with kickers grouped:
``--group-moves false`` turns it off); every figure comes with its standard error over deals.

The matches of an experiment play the same deals, ``--batch`` games at a time, and the results so
far are written to ``--json`` after each part, so a stopped run keeps what it played;
``--minutes`` stops after the part that passes a time limit ("as many deals as the machine
allows": ``deals_played`` in the JSON says how many).
"""

from __future__ import annotations

import json
import os
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from tqdm import tqdm

import cardjax
from cardjax import agents
from cardjax.cli import boolean, positive_float, positive_int
from cardjax.eval import arena

PAPER = {  # win rates: mini-uct table in the text (section VII.E), tables 1 and 2
    "mini-uct": {"ismcts": 0.672, "det_uct": 0.627},
    "dd-table1": {"player 1": {"cheating": 0.499, "determinized": 0.430},
                  "player 2": {"cheating": 0.656, "determinized": 0.570},
                  "player 3": {"cheating": 0.689, "determinized": 0.570},
                  "players 2 and 3": {"cheating": 0.780, "determinized": 0.570}},
    "dd-table2": {"all deals": {"det_uct": 0.424, "ismcts": 0.420, "cheat_uct": 0.540,
                                "deals": 1000},
                  "< 0": {"det_uct": 0.530, "ismcts": 0.452, "deals": 133},
                  "= 0": {"det_uct": 0.449, "ismcts": 0.433, "deals": 138},
                  "> 0": {"det_uct": 0.400, "ismcts": 0.411, "deals": 729},
                  "> 0.25": {"det_uct": 0.316, "ismcts": 0.384, "deals": 166},
                  "> 0.5": {"det_uct": 0.204, "ismcts": 0.350, "deals": 12},
                  "> 0.75": {"det_uct": 0.150, "ismcts": 0.950, "deals": 1}},
    "dd-grouping": {"first decision branching": {"grouped": "typically 20 to 70",
                                                 "ungrouped": "often above 300"}},
}
# table 2's rows: deals by cheating UCT's landlord win rate minus determinized UCT's
THRESHOLDS = {"< 0": lambda g: g < 0, "= 0": lambda g: g == 0, "> 0": lambda g: g > 0,
              "> 0.25": lambda g: g > 0.25, "> 0.5": lambda g: g > 0.5,
              "> 0.75": lambda g: g > 0.75}


def _rate(wins: np.ndarray) -> dict:
    """Mean and standard error over deals of per-(deal, repeat) wins [deals, repeats]."""
    per_deal = wins.mean(axis=1)
    n = per_deal.shape[0]
    se = float(per_deal.std(ddof=1) / np.sqrt(n)) if n > 1 else None
    return {"win_rate": float(per_deal.mean()), "stderr": se}


def _first_mover(states):
    return jnp.arange(2)[None, :] == states.current_player[:, None]


def _dd_roles(states, roles):
    """bool[n, 3]: the seats of ``roles`` (0 the landlord, 1 the next seat, 2 the last)."""
    role = (jnp.arange(3)[None, :] - states.landlord[:, None]) % 3
    return jnp.isin(role, jnp.asarray(roles))


def _deals(env, seed, deals):
    """The initial states of the deals :func:`arena.seat_match` plays with ``seed``."""
    return jax.vmap(env.init)(arena.deal_keys(seed, deals))


def _landlord_wins(r, landlord):
    """bool[deals, repeats]: the landlord's wins from seat_match rows float[deals, repeats, 3]."""
    return np.take_along_axis(r, landlord[:, None, None], axis=2)[..., 0] > 0


# Each experiment: ``setup(args) -> (env, matches, summarize)``.  ``matches`` maps a name to
# (A, B, seats) for :func:`arena.seat_match`, all played on the same deals; ``summarize(rewards,
# states)`` turns the rows of the deals played so far ({name: float[n, repeats, P]}, the n
# initial states) into the results.


def mini_uct(args):
    env = cardjax.make("mini_doudizhu")
    det = agents.get(env, "det_uct", trees=args.trees, iterations=args.iterations)
    ism = agents.get(env, "ismcts", iterations=args.ismcts_iterations, k=args.k)
    matches = {"ismcts": (ism, det, _first_mover), "det_uct": (det, det, _first_mover)}

    def summarize(rewards, states):
        wins = {name: r[:, :, 0] > 0 for name, r in rewards.items()}  # seat 0 leads every deal
        out = {name: _rate(w) for name, w in wins.items()}
        # the same deals in both rows: their difference deal by deal has the smaller error
        diff = _rate(wins["ismcts"].astype(float) - wins["det_uct"])
        out["ismcts - det_uct"] = {"difference": diff["win_rate"], "stderr": diff["stderr"]}
        out["per_deal"] = {name: w.mean(axis=1).tolist() for name, w in wins.items()}
        return out

    return env, matches, summarize


TABLE1_ROWS = {"player 1": (0,), "player 2": (1,), "player 3": (2,), "players 2 and 3": (1, 2)}


def dd_table1(args):
    env = cardjax.make("doudizhu")
    search = {"trees": args.trees, "iterations": args.iterations, "group_moves": args.group_moves}
    cheat = agents.get(env, "cheat_uct", **search)
    det = agents.get(env, "det_uct", **search)
    matches = {"determinized": (det, det, lambda s: _dd_roles(s, (0,)))}
    for row, roles in TABLE1_ROWS.items():
        matches[row] = (cheat, det, lambda s, roles=roles: _dd_roles(s, roles))

    def summarize(rewards, states):
        landlord = np.asarray(states.landlord)
        out = {}
        for row, roles in TABLE1_ROWS.items():
            seat = (landlord + roles[0]) % 3
            pick = lambda x: np.take_along_axis(x, seat[:, None, None], axis=2)[..., 0] > 0
            out[row] = {"determinized": _rate(pick(rewards["determinized"])),
                        "cheating": _rate(pick(rewards[row]))}
        return out

    return env, matches, summarize


def dd_table2(args):
    env = cardjax.make("doudizhu")
    g = args.group_moves
    det = agents.get(env, "det_uct", trees=args.trees, iterations=args.iterations, group_moves=g)
    players = {"ismcts": agents.get(env, "ismcts", iterations=args.ismcts_iterations, k=args.k,
                                    group_moves=g),
               "det_uct": det,
               "cheat_uct": agents.get(env, "cheat_uct", trees=args.trees,
                                       iterations=args.iterations, group_moves=g)}
    landlord = lambda s: _dd_roles(s, (0,))
    matches = {name: (p, det, landlord) for name, p in players.items()}

    def summarize(rewards, states):
        landlord = np.asarray(states.landlord)
        wins = {name: _landlord_wins(r, landlord) for name, r in rewards.items()}
        gap = wins["cheat_uct"].mean(1) - wins["det_uct"].mean(1)
        out = {"all deals": {n: _rate(w) for n, w in wins.items()}}
        for row, keep in THRESHOLDS.items():
            sel = keep(gap)
            out[row] = {n: _rate(w[sel]) for n, w in wins.items()} if sel.sum() > 1 else {}
            out[row]["deals"] = int(sel.sum())
        return out

    return env, matches, summarize


def dd_grouping(args):
    from cardjax import legal_words
    from cardjax.search import move_groups

    env = cardjax.make("doudizhu")
    grouped = move_groups.Grouped(env)
    states = _deals(env, args.seed, args.deals)  # the landlord leads: its first decision
    flat = jax.vmap(lambda s: legal_words.count(env.legal_words(s)))(states)
    two = jax.vmap(lambda s: legal_words.count(grouped.legal_words(grouped.wrap(s))))(states)
    branching = {"first decision branching": {
        name: {"mean": float(np.mean(b)), "median": float(np.median(b)), "max": int(np.max(b)),
               "share > 300": float(np.mean(np.asarray(b) > 300))}
        for name, b in (("ungrouped", flat), ("grouped", two))}}
    det = agents.get(env, "det_uct", trees=args.trees, iterations=args.iterations,
                     group_moves=args.group_moves)
    matches = {}
    for name, g in (("ismcts grouped", True), ("ismcts ungrouped", False)):
        p = agents.get(env, "ismcts", iterations=args.ismcts_iterations, k=args.k, group_moves=g)
        matches[name] = (p, det, lambda s: _dd_roles(s, (0,)))

    def summarize(rewards, states):
        landlord = np.asarray(states.landlord)
        wins = {name: _landlord_wins(r, landlord) for name, r in rewards.items()}
        out = dict(branching)  # over all the deals asked for
        out["landlord win rate"] = {n: _rate(w) for n, w in wins.items()}
        diff = _rate(wins["ismcts grouped"].astype(float) - wins["ismcts ungrouped"])
        out["grouped - ungrouped"] = {"difference": diff["win_rate"], "stderr": diff["stderr"]}
        return out

    return env, matches, summarize


COMMANDS = ("mini-uct", "dd-table1", "dd-table2", "dd-grouping")


def add_parsers(sub) -> None:
    """The UCT experiments' subcommands, for ``cardjax whitehouse``."""
    for name, deals, repeats in (("mini-uct", 8832, 10), ("dd-table1", 1000, 1),
                                 ("dd-table2", 1000, 40), ("dd-grouping", 1000, 1)):
        e = sub.add_parser(name, help=HELP[name])
        e.add_argument("--deals", type=positive_int, default=deals)
        e.add_argument("--repeats", type=positive_int, default=repeats,
                       help="plays of every deal")
        mini = name == "mini-uct"
        e.add_argument("--trees", type=positive_int, default=20 if mini else 40)
        e.add_argument("--iterations", type=positive_int, default=200 if mini else 250,
                       help="iterations per tree of cheating / determinized UCT")
        e.add_argument("--ismcts-iterations", type=positive_int, default=4000 if mini else 10000)
        e.add_argument("--k", type=float, default=1.0, help="ISMCTS exploration constant")
        if not mini:
            e.add_argument("--group-moves", type=boolean, default=True, metavar="BOOL",
                           help="choose moves with kickers in two tree levels (the paper's; "
                                "dd-grouping: for the peasants)")
        e.add_argument("--seed", type=int, default=0)
        e.add_argument("--batch", type=positive_int, default=64,
                       help="games played at once; the results are written after each part of "
                            "batch / repeats deals")
        e.add_argument("--minutes", type=positive_float, default=None,
                       help="stop after the part that passes this many minutes (the results "
                            "cover the deals played: deals_played in the JSON)")
        e.add_argument("--json", default=None, help="also write the results to this file")
        e.add_argument("--no-progress", action="store_true")


HELP = {"mini-uct": "Mini Dou Di Zhu: ISMCTS or determinized UCT as player 1",
        "dd-table1": "Dou Dizhu table 1: cheating against determinized UCT by seat",
        "dd-table2": "Dou Dizhu table 2: ISMCTS, determinized, cheating UCT landlords",
        "dd-grouping": "Dou Dizhu: move grouping on and off (branching factor, strength)"}


def _write(report: dict, path: str | None) -> None:
    if path:
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(report, f, indent=1)
        os.replace(tmp, path)  # a half-written file never reads as valid


def run(args) -> dict:
    """Play the experiment's matches on the same deals, one part of ``--batch`` games at a time
    (every match on a part before the next part), writing the results so far to ``--json`` after
    each part; with ``--minutes``, stop after the part that passes the time limit."""
    experiment = {"mini-uct": mini_uct, "dd-table1": dd_table1, "dd-table2": dd_table2,
                  "dd-grouping": dd_grouping}
    env, matches, summarize = experiment[args.command](args)
    states = _deals(env, args.seed, args.deals)
    settings = {k: v for k, v in vars(args).items() if k not in ("json", "no_progress")}
    part = max(1, args.batch // args.repeats)
    rows = {name: [] for name in matches}
    t0 = time.monotonic()
    bar = tqdm(total=args.deals, desc=args.command, unit="deal", file=sys.stderr,
               disable=args.no_progress)
    for start in range(0, args.deals, part):
        stop = min(args.deals, start + part)
        for name, (a, b, seats) in matches.items():
            rows[name].append(arena.seat_match(env, a, b, seats, args.deals, args.seed,
                                               args.batch, args.repeats, progress=False,
                                               start=start, stop=stop))
        bar.update(stop - start)
        played = jax.tree_util.tree_map(lambda x: x[:stop], states)
        report = {"experiment": args.command, "settings": settings,
                  "deals_played": stop, "seconds": round(time.monotonic() - t0, 1),
                  "results": summarize({n: np.concatenate(r) for n, r in rows.items()}, played),
                  "paper": PAPER[args.command]}
        _write(report, args.json)
        if args.minutes is not None and time.monotonic() - t0 > 60 * args.minutes:
            break
    bar.close()
    if report["deals_played"] < args.deals:
        print(f"stopped by --minutes {args.minutes:g} after {report['deals_played']} of "
              f"{args.deals} deals", file=sys.stderr)
    print(json.dumps(report, indent=1))
    sys.stdout.flush()
    return report
