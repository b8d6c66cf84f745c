rm -rf /tmp/st; python experiments/shengji.py --iterations 12 --eval_deals 0 --no-progress --train_forced false --consequences true --counterfactual 1.0 --exact_rewards true --leads units --out /tmp/st >/dev/null 2>&1
python -c "
import json,statistics as S;m=[json.loads(l) for l in open('/tmp/st/metrics.jsonl')];x=[r['seconds'] for r in m[2:]];print('median s/it',round(S.median(x),3),'frames/s',round(S.median([r['frames_per_s'] for r in m[2:]])))"
