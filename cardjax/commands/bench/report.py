"""What ``cardjax bench envs`` prints: the device, the table of rows, and each peer's lines."""

from __future__ import annotations

import os
import platform

import jax


def describe_device() -> dict:
    dev = jax.devices()[0]
    return {
        "platform": dev.platform,
        "device_kind": dev.device_kind,
        "device_count": jax.device_count(),
        "local_device_count": jax.local_device_count(),
        "cpu_count": os.cpu_count(),
        "processor": platform.processor() or platform.machine(),
    }


def fmt_rate(x: float) -> str:
    if x >= 1e9:
        return f"{x / 1e9:.2f} G"
    if x >= 1e6:
        return f"{x / 1e6:.2f} M"
    if x >= 1e3:
        return f"{x / 1e3:.1f} k"
    return f"{x:.0f} "


def print_peer(peer: str, res: dict, game_unit: str = "game") -> None:
    """Lines of one peer in the per-game summary: its rates (summed over its processes, and per
    process), how its decisions were counted, and cardjax's best over it."""
    if "skipped" in res:
        print(f"  peer {peer}: skipped, {res['skipped']}")
        return
    if not res.get("measured", True):
        rate = (f"{fmt_rate(res['decisions_per_s'])}decisions/s, " if res.get("decisions_per_s")
                else "")
        print(f"  peer {peer}: {rate}{fmt_rate(res['games_per_s'])}{game_unit}s/s on "
              f"{res['processes']} core{'s' if res['processes'] > 1 else ''}, cited, NOT "
              f"measured ({res['note']})")
    else:
        n = res["processes"]
        print(f"  peer {peer}: {fmt_rate(res['decisions_per_s'])}decisions/s, "
              f"{fmt_rate(res['games_per_s'])}{game_unit}s/s in {n} process{'es' if n > 1 else ''}"
              f" ({fmt_rate(res['decisions_per_s_per_process'])}decisions/s, "
              f"{fmt_rate(res['games_per_s_per_process'])}{game_unit}s/s per process); "
              f"{res['mean_decisions_per_game']:.1f} decisions/{game_unit}")
        print(f"    {res['note']}")
    if res.get("ratio") is not None:
        basis = res["ratio_basis"].replace("games/s", f"{game_unit}s/s")
        ratio = f"{res['ratio']:,.0f}" if res["ratio"] >= 100 else f"{res['ratio']:.3g}"
        print(f"    cardjax best / {peer} = {ratio}x ({basis})")


def print_report(report: dict, args) -> None:
    header = (f"{'game':<10} {'batch':>7} {'steps/call':>10} {'steps/s':>11} {'games/s':>10} "
              f"{'compile s':>9} {'1st call s':>10}")
    print(header)
    print("-" * len(header))
    for r in report["rows"]:
        games = fmt_rate(r["games_per_s"]) if r["games_per_s"] is not None else "n/a"
        if r["games_per_s_source"] != "this row":
            games = games.rstrip() + "*"
        print(f"{r['game']:<10} {r['batch']:>7} {r['steps_per_call']:>10} "
              f"{fmt_rate(r['steps_per_s']):>11} {games:>10} "
              f"{r['lower_s'] + r['compile_s']:>9.2f} {r['first_call_s']:>10.2f}")
    print("steps/s: random-playout steps of running games per second, best call; games/s: "
          "steps/s / mean game length\n(* length from the other rows: no game ended in this "
          "row's calls); compile s: lowering + XLA compile\n")
    for name, game in report["games"].items():
        best = game["best"]
        print(f"{name}: best {fmt_rate(best['steps_per_s'])}steps/s at batch {best['batch']}"
              + (f", mean game length {game['mean_game_length']:.1f} steps"
                 if game["mean_game_length"] else ""))
        if "units" in game:
            print(f"  a step is one {game['units']['step']}; a game is one {game['units']['game']}"
                  f" (games/s = {game['units']['game']}s/s)")
        if "state_bytes" in game:
            print(f"  state: {game['state_bytes']:,} bytes per game")
        if not args.peers:
            print("  peers: skipped (--no-peers)")
        elif not game["peers"]:
            print("  peers: none registered")
        if game.get("skipped_batch_sizes"):
            print(f"  batch sizes {', '.join(map(str, game['skipped_batch_sizes']))} skipped "
                  f"(memory cap: largest batch {game['max_batch']})")
        for peer, res in game["peers"].items():
            print_peer(peer, res, game.get("units", {}).get("game", "game"))
    print()
