"""Compile the ShengJi+ training step whole, its self-play and learner apart, and the two parts
concurrently in two threads (does XLA's compile release the GIL?)."""
import sys, time, threading, json
import jax, jax.numpy as jnp
jax.config.update("jax_enable_compilation_cache", False)
from cardjax import programs
import importlib, os
shengji = importlib.import_module("cardjax.commands.train." + os.environ.get("RECIPE", "shengji"))
from cardjax.train import dmc

cfg = dmc.Config.from_dict(shengji.TRAIN_DEFAULTS)
train = dmc.make_train(cfg)
state = train.init(jax.random.PRNGKey(0))
opts = programs.waiting_options()
sp = train.self_play.__wrapped__ if hasattr(train.self_play, "__wrapped__") else train.self_play
key = jax.random.PRNGKey(1)
dec_shape = jax.eval_shape(lambda p, k, i: sp(p, k, i)[0], state.params, key, state.iteration)
print("buffer", jax.tree_util.tree_map(lambda x: x.shape, state.buffer) is not None)

def play(params, k, it):
    return sp(params, k, it)

learn_fn = train.learn.__wrapped__
def learn(params, opt_state, decisions, buffer, k):
    if buffer is None:
        data = jax.tree_util.tree_map(lambda x: x[None], decisions)
    else:
        data = jax.tree_util.tree_map(lambda n, o: jnp.concatenate([n[None], o]), decisions, buffer)
    return learn_fn(params, opt_state, data, k)

dec = jax.tree_util.tree_map(lambda s: jnp.zeros(s.shape, s.dtype), dec_shape)
which = sys.argv[1]
def lower_compile(fn, *a):
    t = time.perf_counter(); low = jax.jit(fn, compiler_options=opts).lower(*a)
    t1 = time.perf_counter(); c = low.compile(); t2 = time.perf_counter()
    return t1 - t, t2 - t1, len(c.as_text()) // 1024
out = {}
t0 = time.perf_counter()
if which == "whole":
    out["whole"] = lower_compile(train.step.__wrapped__, state)
elif which == "parts":
    out["play"] = lower_compile(play, state.params, key, state.iteration)
    out["learn"] = lower_compile(learn, state.params, state.opt_state, dec, state.buffer, key)
elif which == "threads":
    lp = jax.jit(play, compiler_options=opts).lower(state.params, key, state.iteration)
    ll = jax.jit(learn, compiler_options=opts).lower(state.params, state.opt_state, dec, state.buffer, key)
    t1 = time.perf_counter()
    res = {}
    th = [threading.Thread(target=lambda n, l: res.__setitem__(n, l.compile()), args=(n, l)) for n, l in (("p", lp), ("l", ll))]
    [x.start() for x in th]; [x.join() for x in th]
    out["lower"] = t1 - t0; out["compile_both"] = time.perf_counter() - t1
out["total"] = time.perf_counter() - t0
print(which, json.dumps(out))
