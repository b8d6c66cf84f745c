"""Merge corpora of one game and env into one directory (shards renamed, manifest joined), so a
card-location network can be trained on the games of several tables at once.

    python merge_corpora.py OUT CORPUS [CORPUS ...]
"""
import hashlib
import json
import os
import shutil
import sys

out, sources = sys.argv[1], sys.argv[2:]
if os.path.exists(out):
    raise SystemExit(f"error: {out} exists")
manifests = [json.load(open(os.path.join(s, "manifest.json"))) for s in sources]
keys = ("format", "version", "game", "rules", "env", "options", "state_fields")
for s, m in zip(sources[1:], manifests[1:]):
    for k in keys:
        if m[k] != manifests[0][k]:
            raise SystemExit(f"error: {s}: {k} differs from {sources[0]}'s")
os.makedirs(out)
merged = dict(manifests[0], settings={"merged": [dict(corpus=s, **m["settings"])
                                                 for s, m in zip(sources, manifests)]},
              next_deal=sum(m["next_deal"] for m in manifests), shards=[])
chunk = 0
for s, m in zip(sources, manifests):
    chunks = sorted({sh["chunk"] for sh in m["shards"]})
    for c in chunks:
        for sh in (x for x in m["shards"] if x["chunk"] == c):
            name = f"{sh['split']}-{chunk:05d}.npz"
            shutil.copyfile(os.path.join(s, sh["file"]), os.path.join(out, name))
            digest = hashlib.sha256(open(os.path.join(out, name), "rb").read()).hexdigest()
            assert digest == sh["sha256"], (s, sh["file"])
            merged["shards"].append(dict(sh, file=name, chunk=chunk))
        chunk += 1
json.dump(merged, open(os.path.join(out, "manifest.json"), "w"), indent=1)
print(f"{out}: {len(merged['shards'])} shards from {len(sources)} corpora")
