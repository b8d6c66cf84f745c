"""Follows of multi-card leads in 32 hands of the rule player in all seats: how many cards, and how many with a choice
(single-lead follows; the first and the later cards of the follows of pair, tractor and throw leads)."""
import jax, jax.numpy as jnp, numpy as np, cardjax, cardjax.agents
from cardjax.games.tractor import env as tractor
env = cardjax.make("tractor")
rule = cardjax.agents.get(env, "rule")
B = 32
@jax.jit
def run(keys):
    s = jax.vmap(env.init)(keys)
    act = jax.vmap(rule.act, in_axes=(None, 0, 0))
    def body(c):
        s, stats = c
        a = act(None, keys, s)
        seat = s.current_player
        play = (s.phase == tractor.PLAY) & (s.num_in_trick > 0) & ~s.terminated
        built = jnp.sum(s.trick[jnp.arange(B), seat], axis=1)
        multi = s.lead_n > 1
        n_legal = jnp.sum(s.legal_action_mask, axis=1)
        first = play & multi & (built == 0)
        later = play & multi & (built > 0)
        stats = stats + jnp.stack([jnp.sum(play & ~multi), jnp.sum(first), jnp.sum(first & (n_legal > 1)),
                                   jnp.sum(later), jnp.sum(later & (n_legal > 1))])
        return jax.vmap(env.step)(s, a), stats
    s, stats = jax.lax.while_loop(lambda c: ~jnp.all(c[0].terminated), body, (s, jnp.zeros(5, jnp.int32)))
    return stats
st = np.asarray(run(jax.random.split(jax.random.PRNGKey(0), B)))
print(dict(zip(["single-lead follows", "multi first cards", "  with choice", "multi later cards", "later with choice"], st.tolist())))
