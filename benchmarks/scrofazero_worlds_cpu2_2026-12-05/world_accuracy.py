"""How often the worlds put a hidden card where it is: the weighted share of the unseen cards
in their true hand (and of the spade queen alone), for stratified worlds, a card-location
network's worlds and the network's strata, each with and without IEC, at positions of Mr Greed
games 8-40 cards in (64 positions each).  ``python world_accuracy.py NET``."""
import sys, numpy as np, jax, jax.numpy as jnp
import cardjax
import os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from greed_positions import greed_positions
from cardjax import agents
from cardjax.agents import pretrained, scrofazero as szag
from cardjax.agents.world_sources import load_log_q
from cardjax.games.gongzhu import worlds as szw
from cardjax.search import hidden_info
import os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from network_strata import net_strat_sampler
env = cardjax.make("gongzhu")
greed = agents.get(env, "greed")
params, cfg = szag.load_params(pretrained.path("scrofazero-pretrained"))
apply = szag._net(cfg).apply; tb = cfg["target_beta"]
LQ, NP = load_log_q(env, sys.argv[1])
N = 64
from cardjax.cards import card_index
SQ = card_index("SQ")

play_to = greed_positions(env, greed, N)

q_fn = lambda obs: apply(params, obs)[0] / tb
samplers = dict(strat=szw.world_sampler("stratified"), net=szw.network_sampler(LQ, NP),
                netstrat=net_strat_sampler(LQ, NP))

def one(key, state):
    seat = state.current_player
    hid = szw.hidden_cards(state, seat)
    true = state._owner
    out = {}
    for name, smp in samplers.items():
        ws = smp(env, key, state, seat, 9)
        for iec in (False, True):
            lw = szw.iec_log_weights(env, q_fn, ws.states, seat) if iec else None
            w = hidden_info.world_weights(ws.prior, ws.valid, lw)
            hit = (ws.states._owner == true[None]).astype(jnp.float32)
            pc = jnp.sum(w[:, None] * hit, 0)
            tag = name + ("+iec" if iec else "")
            out[tag] = jnp.sum(jnp.where(hid, pc, 0)) / jnp.maximum(jnp.sum(hid), 1)
            out[tag + "_SQ"] = jnp.where(hid[SQ], pc[SQ], jnp.nan)
    return out

f = jax.jit(jax.vmap(one))
for depth in (8, 16, 24, 32, 40):
    s = play_to(jax.random.PRNGKey(depth), depth)
    out = f(jax.random.split(jax.random.PRNGKey(100 + depth), N), s)
    print(depth, {k: round(float(np.nanmean(np.asarray(v))), 3) for k, v in out.items()}, flush=True)
