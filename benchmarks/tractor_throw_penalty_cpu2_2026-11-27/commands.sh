# 2-core CPU, 2026-11-27: the tractor-pretrained command plus --throw_penalty 10, 24 minutes of steps
python experiments/shengji.py --iterations 7500 --train_forced false --consequences true --counterfactual 1.0 --init_from rule --prior_iterations 2000 --prior_share 1.0 --leads units --throws true --exact_rewards true --advice true --advice_bonus 0.5 --eval_every 1000 --eval_deals 128 --throw_penalty 10 --minutes 24 --out /tmp/runs/tp10
python scripts/arena.py --game tractor --a /tmp/runs/tp10 --b rule --deals 256 --seed 7 --json > tp10_vs_rule_256.json
python scripts/arena.py --game tractor --a /tmp/runs/tp10 --b tractor-pretrained --deals 256 --seed 7 --json > tp10_vs_tractor-pretrained_256.json
python scripts/tractor_diagnostics.py /tmp/runs/tp10 --no-mix --deals 64 --seed 7 --json tp10_diagnostics.json --no-progress > tp10_diagnostics.txt
