"""A ScrofaZero candidate: the shipped network, unchanged, with other play settings (its worlds'
network and their number).  The candidate the ladder played on 2026-12-06:

    python benchmarks/scrofazero_worlds2_cpu2_2026-12-06/make_candidate.py DIR \
        --inference runs/inference_gz_self25k --worlds 18
"""
import argparse

from cardjax import artifact

p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
p.add_argument("out")
p.add_argument("--inference", required=True, help="a card-location network: a run or a shipped name")
p.add_argument("--worlds", type=int, required=True)
p.add_argument("--player", default="scrofazero-pretrained")
args = p.parse_args()

sz = artifact.read(artifact.shipped(args.player))
play = dict(sz.meta.get("play") or {}, inference=args.inference, worlds=args.worlds)
meta = dict(sz.meta, play=play)
meta["lineage"] = dict(meta["lineage"], parent=args.player, device="2-core CPU, 2026-12-06",
                       date="2026-12-06",
                       command=f"{args.player} (the 2026-12-04 network, unchanged) playing "
                               f"{args.worlds} worlds drawn from {args.inference}")
artifact.write(args.out, meta, sz.params)
print(args.out, play)
