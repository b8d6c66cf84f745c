"""Follow agreement: at the player's follows (seats 0, 2 vs the rule player), how often its card is the rule player's."""
import sys, json
import jax, jax.numpy as jnp, numpy as np, cardjax, cardjax.agents
from cardjax.games.tractor import env as tractor
env = cardjax.make("tractor")
me = cardjax.agents.load(env, sys.argv[1])
rule = cardjax.agents.get(env, "rule")
B = int(sys.argv[2]) if len(sys.argv) > 2 else 64
keys = jax.random.split(jax.random.PRNGKey(7), B)
@jax.jit
def run(keys):
    s = jax.vmap(env.init)(keys)
    a_me = jax.vmap(me.act, in_axes=(None, 0, 0)); a_rule = jax.vmap(rule.act, in_axes=(None, 0, 0))
    def body(c):
        s, st = c
        x, y = a_me(me.params, keys, s), a_rule(rule.params, keys, s)
        mine = (s.current_player % 2 == 0)
        follow = (s.phase == tractor.PLAY) & (s.num_in_trick > 0) & ~s.terminated & mine
        choice = jnp.sum(s.legal_action_mask, axis=1) > 1
        pos = s.num_in_trick
        st = st + jnp.stack([jnp.sum(follow & choice & (pos == p)) for p in (1, 2, 3)] +
                            [jnp.sum(follow & choice & (pos == p) & (x == y)) for p in (1, 2, 3)])
        return jax.vmap(env.step)(s, jnp.where(mine, x, y)), st
    return jax.lax.while_loop(lambda c: ~jnp.all(c[0].terminated), body, (s, jnp.zeros(6, jnp.int32)))[1]
st = np.asarray(run(keys))
print(json.dumps({f"seat{p+2}": {"follows": int(st[p]), "same_as_rule": round(float(st[p+3] / max(st[p], 1)), 3)} for p in range(3)}))
