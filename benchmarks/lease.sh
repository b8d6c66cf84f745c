#!/usr/bin/env bash
# One GPU lease, one call: continue each shipped player (--from) for its share of MINUTES of
# training steps at GPU sizes, evaluate it against the shipped version (cardjax ladder, without
# --ship: the decision to ship is made at home) and against its baselines (cardjax arena), and
# bring back the exported players, their evaluations and the logs (docs/pretrained.md, "The
# lease script").
#
#   LEASE_PLAYERS="scrofazero-pretrained tractor-pretrained" bash benchmarks/lease.sh 3.3
#                                # GPU: 3.3 minutes of training, 578 s in all (one 10-minute call)
#   LEASE_TINY=1 LEASE_PLAYERS=doudizhu-pretrained OUT=/tmp/l bash benchmarks/lease.sh 0.2
#
# The players go in the order of what they have to gain (issue 40's targets): scrofazero-pretrained
# (WPG +46 against Mr Greed, target +60), tractor-pretrained (+0.21 levels a hand, target +0.40),
# doudizhu-pretrained (ADP +1.14 against the rule player, target +1.0, met; with its bids +2.08,
# target +2.0); their shares of MINUTES are 2 : 2 : 1.  Each player gets a time slot (its share
# of MINUTES and its slack, what an earlier one leaves unused carried over); in it, training runs
# under `timeout` with LEASE_EVAL_RESERVE seconds kept for the ladder and the arena, each also
# under `timeout`.  One player failing or running out of time leaves the others alone; a
# training cut before its export comes back as its newest checkpoint (`cardjax export`, which
# writes the lineage the trainer would have: parent, minutes and frames).
#
# $OUT (default ./lease_out) gets summary.txt and, per player, $OUT/<name>/: player/ (the
# exported artifact: player.json, params.msgpack), eval.json, metrics.jsonl, parent.json,
# commands.jsonl, ladder.txt, ladder.json, arena_<baseline>.json and train.log.  The device tool brings back at
# most 8 files 2 folders down: with more than that, each <name>/ is packed as <name>.tgz
# (LEASE_PACK=1 always packs, LEASE_PACK=0 never).
#
# Environment: OUT, PYTHON, LEASE_PLAYERS (names, in order), LEASE_SECONDS (the whole budget;
# default MINUTES x 60 + each player's slack: 140 s, Tractor 240 s; tiny 210 s),
# LEASE_EVAL_RESERVE (seconds per player kept for evaluation; GPU 100, tiny 150), LEASE_DEALS
# (ladder deals; GPU 1024), LEASE_BASELINE_DEALS (GPU 512),
# LEASE_SEED (seed of the evaluation deals; default the date, e.g. 20261128: not a training seed),
# LEASE_TINY=1 (CPU check of the script: tiny batches, a handful of deals), LEASE_FROM
# ("NAME=DIR ...": continue the player artifact DIR, e.g. an earlier lease's unshipped one, in
# place of the shipped NAME; the ladder still plays the shipped one), LEASE_GROW (Gongzhu trains
# the paper's 512 x 6 network, as the 128 x 2 one stops gaining, issue 40: by default a smaller
# player is grown into it, --from NAME --grow, keeping what it learned; LEASE_GROW=fresh trains
# a fresh 512 x 6 network instead; LEASE_GROW=0 continues whatever network the player has).
set -u
cd "$(dirname "$0")/.."
MINUTES=${1:-${MINUTES:-5}}
OUT=${OUT:-./lease_out}
PY=${PYTHON:-python3}
TINY=${LEASE_TINY:-0}
PLAYERS=${LEASE_PLAYERS:-"scrofazero-pretrained tractor-pretrained doudizhu-pretrained"}
SEED=${LEASE_SEED:-$(date -u +%Y%m%d)}
TRAIN_EVAL_SEED=$((SEED + 1))  # the runs' own evaluations: recorded in lineage, not the ladder's
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
if [ "$TINY" = 1 ]; then
    DEALS=${LEASE_DEALS:-4}; BDEALS=${LEASE_BASELINE_DEALS:-4}; RESERVE=${LEASE_EVAL_RESERVE:-150}
    EVAL_DEALS=2
else
    DEALS=${LEASE_DEALS:-1024}; BDEALS=${LEASE_BASELINE_DEALS:-512}
    RESERVE=${LEASE_EVAL_RESERVE:-100}; EVAL_DEALS=64  # the run's own last evaluation: short
fi
# per player: game, recipe, weight (its share of MINUTES), slack (seconds of its slot beyond
# them: its trainer's compile and its evaluation reserve; Tractor's trainer compiles in about
# two minutes on a GPU), GPU sizes, baselines
spec() {
    GROW=""  # the network a lease trains: a shipped player of another shape is grown into it
    case $1 in
        scrofazero-pretrained) GAME=gongzhu; RECIPE=scrofazero; WEIGHT=2; SLACK_P=140
            BASE="greed random"; SIZE="--num_envs 4096 --minibatch 8192"
            GROW="width=512 depth=6" ;;
        doudizhu-pretrained) GAME=doudizhu; RECIPE=douzero; WEIGHT=1; SLACK_P=140
            BASE="rule random"; SIZE="--num_envs 4096 --minibatch 8192" ;;
        tractor-pretrained) GAME=tractor; RECIPE=shengji; WEIGHT=2; SLACK_P=240
            BASE="rule random"
            # the shipped lineage's training flags (--from keeps the network's, not these),
            # and every alternative valued by the state it (or its played-out trick) leaves
            SIZE="--num_envs 2048 --minibatch 8192 --train_forced false --consequences true
                  --counterfactual 1.0 --after_states 16 --rollouts true --after_rollouts true
                  --lam 0.5 --lam_kinds follow --epsilon 0.015 --gamma 0.95"
            # the wider network the shipped player has had since 2026-12-05 (the 128 x 64 one
            # had stopped gaining); an older player of the smaller shape is grown into it
            GROW="width=256 head_width=256" ;;
        *) return 1 ;;
    esac
    if [ "$TINY" = 1 ]; then  # cold CPU compiles
        SIZE="--num_envs 4 --minibatch 64"; BASE=${BASE%% *}; SLACK_P=210; GROW=""
        [ "$RECIPE" = scrofazero ] && SIZE="--num_envs 4 --minibatch 64 --b 2 --k 1"
    fi
    return 0
}

WSUM=0; SLACK=0
for p in $PLAYERS; do spec "$p" && WSUM=$((WSUM + WEIGHT)) && SLACK=$((SLACK + SLACK_P)); done
((WSUM > 0)) || { echo "lease.sh: no known player in LEASE_PLAYERS=$PLAYERS" >&2; exit 1; }
TOTAL=${LEASE_SECONDS:-$($PY -c "print(int(float('$MINUTES') * 60 + $SLACK))")}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d)
SUMMARY=$OUT/summary.txt
T0=$(date +%s)
now() { echo $(($(date +%s) - T0)); }
say() { echo "$*" | tee -a "$SUMMARY"; }

# JAX's version and devices from one process (its error's last line if it fails)
JAX_INFO=$($PY -c "import jax; d = jax.devices(); print('jax', jax.__version__, d)
print(f'{len(d)} x {d[0].device_kind}')" 2>&1) && DEVICE=$(echo "$JAX_INFO" | tail -n 1)
: >"$SUMMARY"
{ date -u; echo "lease.sh $MINUTES min, budget $TOTAL s, players: $PLAYERS, seed $SEED"
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null || echo "no GPU"
  git log -1 --format='commit %h %s' 2>/dev/null
  echo "$JAX_INFO" | grep -m 1 '^jax ' || echo "$JAX_INFO" | tail -n 1
} | tee -a "$SUMMARY"

timed() {  # timed LIMIT LOG COMMAND...: run under LIMIT seconds; prints rc and seconds
    local limit=$1 log=$2; shift 2
    if ((limit < 15)); then say "   skipped (${limit} s left): $*"; return 99; fi
    local t; t=$(date +%s)
    say "   [+$(now) s, limit $limit s] $*"
    timeout --signal=INT --kill-after=10 "$limit" "$@" >"$log" 2>&1
    local rc=$?
    say "   rc=$rc in $(($(date +%s) - t)) s"
    return $rc
}

DONE_W=0; DONE_S=0
for p in $PLAYERS; do
    spec "$p" || { say "== $p: unknown player, skipped"; continue; }
    DONE_W=$((DONE_W + WEIGHT)); DONE_S=$((DONE_S + SLACK_P))
    # this player's slot ends here (seconds from T0): the minutes by weight, then its slack
    deadline=$($PY -c "t, m = $TOTAL, min($TOTAL, float('$MINUTES') * 60)
print(int((t - m) * $DONE_S / $SLACK + m * $DONE_W / $WSUM))")
    share=$($PY -c "print(round(float('$MINUTES') * $WEIGHT / $WSUM, 3))")
    run=$WORK/$p; dest=$OUT/$p; mkdir -p "$dest"
    say "== $p ($GAME, $RECIPE): $share min of training, slot ends at +$deadline s"
    train_limit=$((deadline - $(now) - RESERVE))
    # continue the shipped player (or LEASE_FROM's artifact for it); where that one has another
    # network than the lease's shape (GROW, its player.json's "network"), grow it into that
    # shape (LEASE_GROW=fresh: train a fresh network of that shape; 0: keep the player's)
    from=$p; src=cardjax/agents/pretrained/$p
    for kv in ${LEASE_FROM:-}; do [ "${kv%%=*}" = "$p" ] && from=${kv#*=} && src=${kv#*=}; done
    [ -f "$src/player.json" ] || { say "   $p: no player.json in $src, skipped"; continue; }
    INIT="--from $from"
    growing=${LEASE_GROW:-grow}
    if [ -n "$GROW" ] && [ "$growing" != 0 ]; then
        shape=$($PY -c "import json, sys
net = json.load(open(sys.argv[1]))['network']
want = dict(kv.split('=') for kv in sys.argv[2].split())
print(' '.join(f'--{k} {v}' for k, v in want.items()) if any(str(net.get(k)) != v
      for k, v in want.items()) else '')" "$src/player.json" "$GROW")
        if [ -n "$shape" ] && [ "$growing" = fresh ]; then
            INIT=$shape && say "   $from has another network than the lease's ($GROW):" \
                "a fresh network, not a continuation"
        elif [ -n "$shape" ]; then
            INIT="--from $from --grow $shape" && say "   $from grown into the lease's" \
                "network ($GROW), computing what it computed"
        fi
    fi
    # shellcheck disable=SC2206
    TRAIN=(train "$RECIPE" $INIT --minutes "$share" --iterations 1000000 --checkpoint_every 25
           --eval_every 0 --eval_deals "$EVAL_DEALS" --eval_seed "$TRAIN_EVAL_SEED" --no-progress
           --out "$run" $SIZE)
    timed "$train_limit" "$dest/train.log" $PY -m cardjax "${TRAIN[@]}"
    if [ ! -f "$run/player/player.json" ] && [ -d "$run/checkpoints" ]; then
        # a run cut before its export: its newest checkpoint becomes the player (the whole run,
        # with its checkpoints and replay buffers, is over what a device call brings back); its
        # lineage keeps the command, so the ladder knows the seeds it used
        $PY -m cardjax export --run "$run" --name player --directory "$run" \
            --command "cardjax ${TRAIN[*]} (cut by its limit)" --device "${DEVICE:-?}" \
            >>"$dest/train.log" 2>&1 && say "   the run was cut: its newest checkpoint exported"
    fi
    for f in eval.json metrics.jsonl parent.json commands.jsonl eval_settings.json; do
        [ -f "$run/$f" ] && cp "$run/$f" "$dest/"
    done
    if [ ! -f "$run/player/player.json" ]; then
        # no checkpoint could be read: the run as it is (a small one comes back whole)
        [ -d "$run/checkpoints" ] && cp -r "$run" "$dest/run" && say "   kept the run: $p/run"
        say "   $p: no exported player (training failed or was cut); see $p/train.log"
        tail -n 5 "$dest/train.log" 2>/dev/null | sed 's/^/   | /' | tee -a "$SUMMARY"
        continue
    fi
    cp -r "$run/player" "$dest/player"
    say "   player: $(du -sh "$dest/player" | cut -f1) ($(du -b "$dest/player/params.msgpack" \
        | cut -f1) bytes of parameters)"
    # the deciding match first, then the baselines, each under what is left of the slot
    left=$((deadline - $(now) - 5)); ((left < RESERVE / 2)) && left=$((TOTAL - $(now) - 5))
    timed $((left * 2 / 3)) "$dest/ladder.txt" $PY -m cardjax ladder --game "$GAME" \
        --candidate "$dest/player" --shipped "$p" --deals "$DEALS" --seed "$SEED" \
        --no-progress --save "$dest/ladder.json"
    grep -h "vs $p\|ladder\|seed" "$dest/ladder.txt" | tail -n 3 | sed 's/^/   /' \
        | tee -a "$SUMMARY"
    for b in $BASE; do
        left=$((deadline - $(now) - 5)); ((left < 15)) && left=$((TOTAL - $(now) - 5))
        timed "$left" "$dest/arena_$b.log" $PY -m cardjax arena --game "$GAME" \
            --a "$dest/player" --b "$b" --deals "$BDEALS" --seed "$SEED" --json --no-progress
        grep '^{' "$dest/arena_$b.log" | tail -n 1 >"$dest/arena_$b.json"
        [ -s "$dest/arena_$b.json" ] || rm -f "$dest/arena_$b.json"
        $PY -c "import json,sys; r=json.load(open(sys.argv[1])); print(f'   vs $b: {r[\"mean\"]:+.3f} +- {r[\"stderr\"]:.3f} over {r[\"deals\"]} deals')" \
            "$dest/arena_$b.json" 2>/dev/null | tee -a "$SUMMARY"
    done
done

say "== done at +$(now) s (budget $TOTAL s); device: ${DEVICE:-?}"
files=$(find "$OUT" -type f | wc -l)
if [ "${LEASE_PACK:-auto}" = 1 ] || { [ "${LEASE_PACK:-auto}" = auto ] && ((files > 8)); }; then
    for p in $PLAYERS; do
        [ -d "$OUT/$p" ] || continue
        tar czf "$OUT/$p.tgz" -C "$OUT" "$p" && rm -rf "${OUT:?}/$p"
        say "packed $p.tgz: $(du -h "$OUT/$p.tgz" | cut -f1) (tar xzf $p.tgz)"
    done
fi
rm -rf "$WORK"
exit 0
