# network-stratified worlds: the key-card strata weighted by a card-location network
import jax, jax.numpy as jnp
from cardjax.inference import worlds as iw
from cardjax.games.gongzhu import worlds as szw
from cardjax.search.hidden_info import Worlds

def net_strat_sampler(log_q, params, key_cards=szw.KEY_CARDS, equal_prior=False):
    def sample(env, key, state, seat, num_worlds=9):
        w = int(num_worlds)
        sp = iw.space(*env.hidden_space)
        seat = jnp.asarray(seat, jnp.int32)
        h = env.hidden_cards(state, seat)
        lq = log_q(params, state, seat)
        cards2, present = szw.key_cards_hidden(state, seat, key_cards)
        n_keys = jnp.sum(present.astype(jnp.int32))
        t = jnp.where(n_keys == 2, 9, jnp.where(n_keys == 1, 3, 1))
        idx = jnp.arange(w)
        stratum = idx % t
        pa = jnp.where(present[0], stratum % 3, -1)
        pb = jnp.where(present[1], stratum // 3, -1)
        card = jnp.arange(52)
        place = jnp.arange(3)

        def one(k, a, b):
            al = h.allowed
            al = jnp.where(((card == cards2[0]) & (a >= 0))[:, None], al & (place[None] == a), al)
            al = jnp.where(((card == cards2[1]) & (b >= 0))[:, None], al & (place[None] == b), al)
            tb = iw.tables(sp, lq, h.copies, al)
            logz = iw.log_partition(sp, tb, h.capacity)
            counts = iw.sample(sp, tb, k, h.capacity)
            return counts, logz

        counts, logz = jax.vmap(one)(jax.random.split(key, w), pa, pb)
        valid = jnp.isfinite(logz)
        states = jax.vmap(lambda c: env.with_hidden(state, seat, c))(counts)
        same = stratum[:, None] == stratum[None, :]
        count = jnp.sum(same, axis=1).astype(jnp.float32)
        if equal_prior:
            logp = jnp.where(valid, -jnp.log(count), -jnp.inf)
        else:
            logp = jnp.where(valid, logz - jnp.log(count), -jnp.inf)
        m = jnp.max(logp)
        e = jnp.where(valid, jnp.exp(logp - m), 0.0)
        prior = e / jnp.maximum(jnp.sum(e), 1e-30)
        return Worlds(states, valid, prior.astype(jnp.float32), stratum, None)
    return sample
