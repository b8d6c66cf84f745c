"""The candidate the ladder played on 2026-12-05: the shipped ScrofaZero network of 2026-12-04,
unchanged, with the play setting ``inference=gongzhu-inference`` (its worlds drawn from the
card-location network of 5,000 of its own games).  Run it at the commit before the ship
(005480b's player) to rebuild what was laddered:

    python benchmarks/scrofazero_worlds_cpu2_2026-12-05/make_candidate.py DIR
    cardjax ladder --game gongzhu --candidate DIR --shipped scrofazero-pretrained --deals 1024 \
        --seed 20261245 --baselines greed random --ship
"""
import sys

from cardjax import artifact

out = sys.argv[1]
sz = artifact.read(artifact.shipped("scrofazero-pretrained"))
meta = dict(sz.meta, play=dict(sz.meta.get("play") or {}, inference="gongzhu-inference"))
meta["lineage"] = dict(meta["lineage"], parent="scrofazero-pretrained", device="2-core CPU, 2026-12-05",
                       command="scrofazero-pretrained (the 2026-12-04 network, unchanged) playing its "
                               "worlds drawn from gongzhu-inference")
artifact.write(out, meta, sz.params)
print(out)
