cd /work/main
D=benchmarks/tractor_throws_cpu2_2026-11-27
R=/tmp/runs/throws1
for b in rule /tmp/former tractor-pretrained; do
  n=$(basename $b)
  python scripts/arena.py --game tractor --a $R --b $b --deals 256 --seed 7 --json --no-progress > $D/throws_seed1_vs_${n}_256.json 2>/dev/null
done
python scripts/arena.py --game tractor --a tractor-pretrained --b /tmp/former --deals 256 --seed 7 --json --no-progress > /tmp/check_former.json 2>/dev/null
cp $R/eval.json $D/throws_seed1_eval.json
echo done > /tmp/eval_throws1.done
