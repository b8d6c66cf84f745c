"""Ship a ladder-passed ScrofaZero candidate whose worlds come from a card-location network run:
export the run as the shipped network NAME (float16), the candidate as the shipped player with
``inference=NAME``, and append the ladder's row (``cardjax ladder ... --save LADDER.json``, run
without ``--ship``, which refuses a play setting naming a directory on this machine).

    python benchmarks/scrofazero_worlds2_cpu2_2026-12-06/ship.py CANDIDATE LADDER.json \
        --network gongzhu-inference --command "..."
"""
import argparse
import datetime
import json

from cardjax import artifact
from cardjax.agents import pretrained
from cardjax.commands import ladder

p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
p.add_argument("candidate")
p.add_argument("ladder_json")
p.add_argument("--network", default="gongzhu-inference")
p.add_argument("--command", required=True, help="what made the network (corpus and training)")
p.add_argument("--device", default="2-core CPU")
args = p.parse_args()

result = json.load(open(args.ladder_json))
if not result["ok"]:
    raise SystemExit(f"error: {args.ladder_json}: the ladder refused it ({result['reason']})")
cand = artifact.read(args.candidate)
run = cand.meta["play"]["inference"]
pretrained.export(run, args.network, command=args.command, device=args.device, half=True)
old = cand.meta["lineage"]
lineage = dict(old, command=old["command"].replace(run, args.network))
meta = dict(cand.meta, play=dict(cand.meta["play"], inference=args.network), lineage=lineage)
written = pretrained.export(cand._replace(meta=meta), result["shipped"])
row = ladder.ladder_row(datetime.date.today().isoformat(), result["shipped"],
                        result["head_to_head"], result["baselines"],
                        dict(written.get("lineage") or {}))
ladder.append_row(ladder.DOC, row)
print(row)
