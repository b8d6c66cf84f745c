"""The ShengJi+ training step's compile at the command's defaults (level 1, as `cardjax bench
compile` measures it), and its parts compiled alone the same way: the self-play, the learner's
`learn` on one batch of decisions, the env's step and legal sets over the batch.

    python parts.py [PART ...]
"""
import sys
import jax
import jax.numpy as jnp
from cardjax import programs
from cardjax.commands.train import shengji
from cardjax.train import dmc
from cardjax.nets.dmc.acting import legal_sets

cfg = dmc.Config.from_dict(shengji.TRAIN_DEFAULTS)
train = dmc.make_train(cfg)
state = train.init(jax.random.PRNGKey(0))
opts = programs.waiting_options()
env, game = train.env, train.game
B = cfg.num_envs
states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(1), B))
decisions, _ = train.self_play(state.params, jax.random.PRNGKey(2))
data = jax.tree_util.tree_map(lambda x: x[None], decisions)
parts = {
    "step": (train.step.__wrapped__, (state,)),
    "self_play": (lambda p, k: train.self_play.__wrapped__(p, k) if hasattr(train.self_play, "__wrapped__") else train.self_play(p, k), (state.params, jax.random.PRNGKey(2))),
    "learn": (lambda p, o, d, k: train.learn(p, o, d, k), (state.params, state.opt_state, data, jax.random.PRNGKey(3))),
    "env.step": (lambda s, a: jax.vmap(env.step)(s, a), (states, jnp.zeros(B, jnp.int32))),
    "env.init": (lambda k: jax.vmap(env.init)(jax.random.split(k, B)), (jax.random.PRNGKey(4),)),
    "legal_sets": (lambda s: legal_sets(game, s), (states,)),
}
for name in sys.argv[1:] or parts:
    fn, args = parts[name]
    print(f"{name:12s}", programs.compile_cost(fn, *args, compiler_options=opts), flush=True)
