#!/usr/bin/env bash
# Every GPU measurement the open issues ask for, in one script that fits a short GPU lease:
# environment throughput (Dou Dizhu with its gate both ways first: issue 43), DouZero DMC
# frames/s, search speed and the Whitehouse et al. experiments for as long as the time left
# allows.
#
#   OUT=gpu_results SECONDS_TOTAL=560 bash benchmarks/gpu_session.sh
#
# Each step runs under its own time limit, taken from what is left of SECONDS_TOTAL; a step that
# fails or runs out of time leaves the others alone. The experiments save their results after
# every part they play (--minutes stops them early), so a cut step still reports what it played.
# Everything lands in $OUT/results.tgz (refreshed after each step) and $OUT/summary.txt.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu_results}
TOTAL=${SECONDS_TOTAL:-560}
RES=$(mktemp -d)
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
PY=${PYTHON:-python3}
mkdir -p "$OUT"
T0=$(date +%s)

left() { echo $((TOTAL - ($(date +%s) - T0))); }

step() {  # step NAME MAX_SECONDS COMMAND...: run under min(MAX, time left - 5) seconds
    local name=$1 max=$2; shift 2
    local budget; budget=$(left); budget=$((budget - 5))
    ((budget > max)) && budget=$max
    if ((budget < 20)); then
        echo "== $name: skipped, $((budget + 5)) s left" | tee -a "$RES/summary.txt"
        return
    fi
    echo "== $name (limit ${budget} s) at +$(($(date +%s) - T0)) s: $*" | tee -a "$RES/summary.txt"
    local t=$(date +%s)
    timeout --signal=INT --kill-after=5 "$budget" "$@" >"$RES/$name.log" 2>&1
    local rc=$?
    echo "   rc=$rc in $(($(date +%s) - t)) s" | tee -a "$RES/summary.txt"
    tail -n 25 "$RES/$name.log" | grep -v '^\s*$' | tail -n 12 >>"$RES/summary.txt"
    tar czf "$OUT/results.tgz" -C "$RES" . && cp "$RES/summary.txt" "$OUT/summary.txt"
}

{ date -u; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  $PY -c "import jax; print('jax', jax.__version__, jax.devices())"; } >"$RES/summary.txt" 2>&1
cat "$RES/summary.txt"

# Dou Dizhu first, its gated lead picker both ways (issue 43: both branches for every game, the
# default on a GPU, against the states that build every word gathered, CARDJAX_GATE=sparse)
step env_doudizhu 60 $PY scripts/benchmark.py --games doudizhu --batch-sizes 65536,262144 \
    --seconds 0.5 --repeats 2 --no-peers --json "$RES/env_doudizhu.json"
step env_doudizhu_sparse 60 env CARDJAX_GATE=sparse $PY scripts/benchmark.py --games doudizhu \
    --batch-sizes 65536,262144 --seconds 0.5 --repeats 2 --no-peers \
    --json "$RES/env_doudizhu_sparse.json"
step env 110 $PY scripts/benchmark.py --games tractor,gongzhu \
    --batch-sizes 16384,65536,262144 --seconds 0.5 --repeats 2 --no-peers --json "$RES/env.json"
step douzero 80 $PY scripts/benchmark_training.py --trainer douzero --num-envs 4096,16384 \
    --lstm 128 --width 512 --depth 3 --head-width 512 --head-depth 3 --minibatch 8192 \
    --repeats 2 --json "$RES/douzero.json"
step search 90 $PY scripts/benchmark_search.py --games mini_doudizhu,doudizhu --roots 64,1024 \
    --iterations 250 --trees 8 --repeats 1 --out "$RES/search.json"
step mini_uct 110 $PY scripts/whitehouse.py mini-uct --deals 8832 --repeats 10 --batch 4416 \
    --minutes 1.0 --no-progress --json "$RES/mini_uct.json"
step dd_table1 120 $PY scripts/whitehouse.py dd-table1 --deals 1000 --batch 200 --minutes 1.2 \
    --no-progress --json "$RES/dd_table1.json"
step dd_table2 100 $PY scripts/whitehouse.py dd-table2 --deals 1000 --repeats 1 --batch 200 \
    --minutes 0.8 --no-progress --json "$RES/dd_table2.json"
echo "== done at +$(($(date +%s) - T0)) s" | tee -a "$RES/summary.txt"
tar czf "$OUT/results.tgz" -C "$RES" . && cp "$RES/summary.txt" "$OUT/summary.txt"
cat "$OUT/summary.txt"
