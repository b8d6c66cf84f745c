"""N positions of Mr Greed games (all four seats), each ``depth`` cards in."""
import jax
import jax.numpy as jnp


def greed_positions(env, greed, n: int):
    """``play_to(key, depth)``: ``n`` Mr Greed games played ``depth`` cards in (jitted)."""

    @jax.jit
    def play_to(key, depth):
        k0, k1 = jax.random.split(key)
        s = jax.vmap(env.init)(jax.random.split(k0, n))

        def body(i, carry):
            s, k = carry
            k, ka = jax.random.split(k)
            a = jax.vmap(greed.act, (None, 0, 0))(greed.params, jax.random.split(ka, n), s)
            s2 = jax.vmap(env.step)(s, a)
            go = s.num_played < depth
            s = jax.tree_util.tree_map(
                lambda x, y: jnp.where(go.reshape((-1,) + (1,) * (x.ndim - 1)), x, y), s2, s)
            return s, k

        s, _ = jax.lax.fori_loop(0, 60, body, (s, k1))
        return s

    return play_to
