#!/usr/bin/env bash
# Tractor DMC on one GPU, in one short lease: the two GPU commands of docs/dmc.md trained side by
# side on the same GPU for MINUTES minutes of training steps each (--minutes), evaluated against
# random and the rule player (256 duplicate deals, seed 7, as scripts/arena.py --seed 7) every
# EVAL_EVERY iterations and at the end, then exported as players.
#
#   OUT=gpu_results MINUTES=5 TRAIN_LIMIT=500 bash benchmarks/tractor_gpu_session.sh
#   # CPU check of the script itself: SMALL=1 MINUTES=0.3 OUT=/tmp/g bash benchmarks/...
#
# (the run of 2026-11-27 in RESULTS.md was made before --throws true was added here)
# A: the advised run (the rule player's follows as advice, bonus 0.5);
# B: its follows learned (imitation of the advice, earlier seats' follows played out, Boltzmann
#    exploration, no bonus): its evaluations are its network's own follows.
# $OUT gets summary.txt and players.tgz (split into parts under 15 MB: cat players.tgz.* | tar xz):
# each run's metrics, evaluations, config and curves, and its networks exported
# (scripts/export_player.py --directory: scripts/arena.py --a DIR plays them).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu_results}
MINUTES=${MINUTES:-5}
EVAL_EVERY=${EVAL_EVERY:-150}
PY=${PYTHON:-python3}
RES=$(mktemp -d)
RUNS=$RES/runs
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
export XLA_PYTHON_CLIENT_PREALLOCATE=false  # two trainers share the GPU's memory
mkdir -p "$OUT" "$RUNS"
T0=$(date +%s)

if [ "${SMALL:-0}" = 1 ]; then
    SIZE="--num_envs 4 --width 32 --depth 1 --head_width 16 --head_depth 1 --minibatch 256"
    DEALS=4; PRIOR=2
else
    SIZE="--num_envs 2048 --width 512 --depth 3 --head_width 256 --head_depth 3 --minibatch 8192"
    DEALS=256; PRIOR=150
fi
COMMON="$SIZE --iterations 100000 --minutes $MINUTES --eval_every $EVAL_EVERY
    --eval_deals $DEALS --eval_seed 7 --checkpoint_every 50 --no-progress
    --train_forced false --consequences true --counterfactual 1.0 --leads units --throws true
    --exact_rewards true --advice true
    --init_from rule --prior_iterations $PRIOR --prior_share 0.25"
A="--advice_bonus 0.5"
B="--rollouts true --imitation 1.0 --temperature 0.05"

{ date -u; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  git log -1 --format='commit %h %s' 2>/dev/null
  $PY -c "import jax; print('jax', jax.__version__, jax.devices())"; } >"$RES/summary.txt" 2>&1
cat "$RES/summary.txt"

# each trainer is stopped (SIGINT) well before the lease ends, keeping its newest checkpoint
LIMIT=${TRAIN_LIMIT:-$(python3 -c "print(int($MINUTES * 60 * 1.5 + 150))")}
for run in A B; do
    flags=${!run}
    echo "== $run: experiments/shengji.py $(echo $COMMON) $flags" | tee -a "$RES/summary.txt"
    timeout --signal=INT --kill-after=10 "$LIMIT" \
        $PY experiments/shengji.py $COMMON $flags --out "$RUNS/$run" >"$RES/$run.log" 2>&1 &
done
wait
echo "== trained at +$(($(date +%s) - T0)) s" | tee -a "$RES/summary.txt"

for run in A B; do
    $PY scripts/export_player.py --run "$RUNS/$run" --name tractor-pretrained \
        --command "benchmarks/tractor_gpu_session.sh, run $run" --device "$(nvidia-smi \
        --query-gpu=name --format=csv,noheader 2>/dev/null || echo cpu)" \
        --directory "$RES/players/$run" >/dev/null 2>>"$RES/$run.log" \
        || echo "$run: export failed" >>"$RES/summary.txt" &
done
wait
rm -rf "$RUNS"/*/checkpoints
$PY - "$RUNS" >>"$RES/summary.txt" 2>&1 <<'EOF'
import json, os, sys
for run in ("A", "B"):
    d = os.path.join(sys.argv[1], run)
    try:
        with open(os.path.join(d, "metrics.jsonl")) as f:
            m = [json.loads(line) for line in f]
        with open(os.path.join(d, "eval.json")) as f:
            evals = json.load(f)["evaluations"]
    except (OSError, ValueError, KeyError) as e:
        print(f"{run}: no results ({e})")
        continue
    last = m[-1] if m else {}
    print(f"{run}: {len(m)} iterations, {last.get('elapsed_s', 0):.0f} s of steps, "
          f"{sum(r['frames'] for r in m) / max(last.get('elapsed_s', 1), 1e-9):,.0f} frames/s")
    for e in evals:
        r, q = e["vs_random"], e["vs_rule"]
        print(f"  it {e['iteration']:5d} ({e['elapsed_s'] / 60:4.1f} min): vs random leveling "
              f"{r['leveling_rate']:.3f}; vs rule {q['mean']:+.3f} +- {q['stderr']:.3f} levels/hand,"
              f" leveling {q['leveling_rate']:.3f}, AAPD {q['aapd']:+.1f}")
EOF
tail -n 4 "$RES/A.log" "$RES/B.log" >>"$RES/summary.txt"
tar czf "$RES/players.tgz" -C "$RES" runs players A.log B.log summary.txt
split -b 15M -d "$RES/players.tgz" "$OUT/players.tgz."
cp "$RES/summary.txt" "$OUT/summary.txt"
echo "== done at +$(($(date +%s) - T0)) s" | tee -a "$OUT/summary.txt"
cat "$OUT/summary.txt"
