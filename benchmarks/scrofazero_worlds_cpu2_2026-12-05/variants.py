"""The shipped ScrofaZero network under several world sources, against two Mr Greeds on the same
duplicate deals (paired: each variant minus the first), or two variants head to head.

    python variants.py --net runs/inference_gz_mixed --variants base,net,net_noiec --deals 1024 --seed 3339 --out F
    python variants.py --net runs/inference_gz_self --h2h net:base --deals 1024 --seed 3340 --out F

base: 9 stratified worlds with IEC (the shipped default); oracle: the true state 9 times (a
ceiling, not a player); net: 9 worlds drawn from the card-location network --net, IEC on top;
net_noiec: the same without IEC; netstrat*: the strata of base with the network's conditional
draws and strata prior (network_strata.py; too slow to measure, see LOG); wN_bB: N stratified
worlds and b = B.
"""
import argparse, json, os, sys, time
import numpy as np, jax, jax.numpy as jnp
import cardjax
from cardjax import agents
from cardjax.agents import pretrained, scrofazero as szag
from cardjax.games.gongzhu import worlds as szw
from cardjax.search import hidden_info
from cardjax.search.hidden_info import Worlds
from cardjax.eval.arena import duplicate_match
from cardjax.nets.policy_value import oracle_value_fn

p = argparse.ArgumentParser()
p.add_argument("--variants", default="base,oracle")
p.add_argument("--deals", type=int, default=128)
p.add_argument("--seed", type=int, required=True)
p.add_argument("--player", default="scrofazero-pretrained")
p.add_argument("--out")
p.add_argument("--net")
p.add_argument("--h2h")
args = p.parse_args()

env = cardjax.make("gongzhu")
greed = agents.load(env, "greed")
src = pretrained.path(args.player) if not args.player.startswith("/") else args.player
params, cfg = szag.load_params(src)
apply = szag._net(cfg).apply
tb = cfg["target_beta"]

def value_fn(params, state):
    return oracle_value_fn(env, apply, params)(state)

def iec(beta=szw.DEFAULT_BETA):
    def log_weight(params, ws, seat):
        q_fn = lambda obs: apply(params, obs)[0] / tb
        return szw.iec_log_weight_fn(env, q_fn, beta)(ws, seat)
    return log_weight

def oracle_sampler(env, key, state, seat, num_worlds=9):
    w = int(num_worlds)
    st = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (w,) + x.shape), state)
    return Worlds(st, jnp.ones(w, bool), jnp.full(w, 1.0 / w, jnp.float32), jnp.zeros(w, jnp.int32))

def make(name, **kw):
    a = hidden_info.make_agent(env, value_fn, params, name=name, **kw)
    return agents.compiled(a)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from network_strata import net_strat_sampler
if args.net:
    from cardjax.agents.world_sources import load_log_q
    LQ, NP = load_log_q(env, args.net)

def variant(v):
    if v == "net":
        return make(v, worlds=9, sample_worlds=szw.network_sampler(LQ, NP), log_weight=iec())
    if v == "net_noiec":
        return make(v, worlds=9, sample_worlds=szw.network_sampler(LQ, NP))
    if v == "netstrat":
        return make(v, worlds=9, sample_worlds=net_strat_sampler(LQ, NP), log_weight=iec())
    if v == "netstrat_noiec":
        return make(v, worlds=9, sample_worlds=net_strat_sampler(LQ, NP))
    if v == "netstrat_eq":
        return make(v, worlds=9, sample_worlds=net_strat_sampler(LQ, NP, equal_prior=True), log_weight=iec())
    if v.startswith("netstrat_w"):
        n, b = v[len("netstrat_w"):].split("_b")
        return make(v, worlds=int(n), b=int(b), sample_worlds=net_strat_sampler(LQ, NP), log_weight=iec())
    if v == "base":
        return make(v, worlds=9, sample_worlds=szw.world_sampler("stratified"), log_weight=iec())
    if v == "oracle":
        return make(v, worlds=9, sample_worlds=oracle_sampler)
    if v == "oracle1":
        return make(v, worlds=1, sample_worlds=oracle_sampler)
    if v.startswith("w"):  # wN_bB: N stratified worlds, IEC, b
        n, b = v[1:].split("_b")
        return make(v, worlds=int(n), b=int(b), sample_worlds=szw.world_sampler("stratified"), log_weight=iec())
    raise SystemExit(v)

res = {}
if args.h2h:
    a, b = args.h2h.split(":")
    t = time.time()
    r = duplicate_match(env, variant(a), variant(b), deals=args.deals, seed=args.seed, per_deal=True)
    print(f"{a} vs {b}: {r['mean']:+.1f} ± {r['stderr']:.1f}  ({time.time()-t:.0f}s)", flush=True)
    if args.out:
        json.dump(dict(seed=args.seed, deals=args.deals, a=a, b=b, mean=r["mean"], stderr=r["stderr"],
                       per_deal=[float(x) for x in r["per_deal"]]), open(args.out, "w"))
    raise SystemExit
for v in args.variants.split(","):
    t = time.time()
    r = duplicate_match(env, variant(v), greed, deals=args.deals, seed=args.seed, per_deal=True)
    res[v] = dict(mean=r["mean"], stderr=r["stderr"], per_deal=[float(x) for x in r["per_deal"]],
                  seconds=time.time() - t)
    print(f"{v}: {r['mean']:+.1f} ± {r['stderr']:.1f}  ({time.time()-t:.0f}s)", flush=True)
names = list(res)
for v in names[1:]:
    d = np.asarray(res[v]["per_deal"]) - np.asarray(res[names[0]]["per_deal"])
    print(f"{v} - {names[0]}: {d.mean():+.1f} ± {d.std(ddof=1)/np.sqrt(d.size):.1f}")
if args.out:
    json.dump(dict(seed=args.seed, deals=args.deals, player=args.player, results=res), open(args.out, "w"))
