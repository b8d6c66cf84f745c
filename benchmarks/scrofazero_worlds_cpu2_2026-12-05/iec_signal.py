"""How much IEC's weights tell: the effective sample size of its weights over 9 stratified and 128
uniform worlds, the weighted share of unseen cards placed right, and the rank of the true world's
IEC score among 128 uniform ones, at positions of Mr Greed games, for three values of beta.
``python iec_signal.py 32``."""
import sys, time, numpy as np, jax, jax.numpy as jnp
import cardjax
import os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from greed_positions import greed_positions
from cardjax import agents
from cardjax.agents import pretrained, scrofazero as szag
from cardjax.games.gongzhu import worlds as szw
from cardjax.search import hidden_info

env = cardjax.make("gongzhu")
greed = agents.get(env, "greed")
params, cfg = szag.load_params(pretrained.path("scrofazero-pretrained"))
apply = szag._net(cfg).apply
tb = cfg["target_beta"]
N = int(sys.argv[1]) if len(sys.argv) > 1 else 64
POOL = 128

play_to = greed_positions(env, greed, N)

def q_fn(obs):
    return apply(params, obs)[0] / tb

def one(key, state, beta):
    seat = state.current_player
    ku, ks = jax.random.split(key)
    pool = hidden_info.sample_uniform(env, ku, state, seat, POOL)
    lw = szw.iec_log_weights(env, q_fn, pool.states, seat, beta)
    strat = szw.sample_stratified(env, ks, state, seat, 9)
    lws = szw.iec_log_weights(env, q_fn, strat.states, seat, beta)
    hid = szw.hidden_cards(state, seat)
    true = state._owner
    def acc(owners, w):  # owners [W,52]
        hit = (owners == true[None]).astype(jnp.float32)
        pc = jnp.sum(w[:, None] * hit, 0)
        return jnp.sum(jnp.where(hid, pc, 0)) / jnp.maximum(jnp.sum(hid), 1)
    w_pool = hidden_info.world_weights(pool.prior, pool.valid, lw)
    w_pool_u = hidden_info.world_weights(pool.prior, pool.valid)
    w9 = hidden_info.world_weights(strat.prior, strat.valid, lws)
    w9u = hidden_info.world_weights(strat.prior, strat.valid)
    ess = lambda w: 1.0 / jnp.sum(w ** 2)
    # true world's IEC rank within pool
    lw_true = szw.iec_log_weight(env, q_fn, state, seat, beta)
    rank = jnp.mean((lw < lw_true).astype(jnp.float32))
    return dict(acc_u=acc(pool.states._owner, w_pool_u), acc_pool=acc(pool.states._owner, w_pool),
                acc9u=acc(strat.states._owner, w9u), acc9=acc(strat.states._owner, w9),
                ess9=ess(w9), ess_pool=ess(w_pool), true_rank=rank, nhid=jnp.sum(hid))

f = jax.jit(jax.vmap(one, (0, 0, None)))
for depth in (8, 16, 24, 32, 40):
    s = play_to(jax.random.PRNGKey(depth), depth)
    for beta in (0.015, 0.03, 0.06):
        t = time.time()
        out = f(jax.random.split(jax.random.PRNGKey(100 + depth), N), s, beta)
        out = {k: float(np.mean(np.asarray(v))) for k, v in out.items()}
        print(depth, beta, {k: round(v, 3) for k, v in out.items()}, f"{time.time()-t:.1f}s", flush=True)
