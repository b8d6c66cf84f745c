cd /work/main
D=benchmarks/tractor_throws_cpu2_2026-11-27
R=/tmp/runs/throws
for b in rule random tractor-pretrained; do
  python scripts/arena.py --game tractor --a $R --b $b --deals 256 --seed 7 --json --no-progress > $D/throws_vs_${b}_256.json 2>/dev/null
done
python scripts/tractor_diagnostics.py $R --no-mix --deals 64 --seed 7 --json $D/throws_diagnostics.json --no-progress > $D/throws_diagnostics.txt 2>&1
cp $R/eval.json $D/throws_eval.json; cp $R/curves.png $D/throws_curves.png
echo done > /tmp/eval_throws.done
