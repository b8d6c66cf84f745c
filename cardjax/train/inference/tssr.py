"""The true-state sampling ratio (TSSR, Solinas et al. 2019, section 5) of the positions of
recorded games: how many times more likely a sampler draws the true world than a uniform draw
from the information set, ``P(true world) x |I|``.  Computed exactly, by the dynamic programme of
:mod:`cardjax.inference.worlds`, for three samplers:

* ``network``: worlds in proportion to a trained network's per-card predictions (equation 1);
* ``baseline``: the same with the simple baseline's predictions (what is ruled out is respected,
  the rest spread by the places' unseen cards: :func:`train.uniform_log_probs`);
* ``oracle``: the true world with probability 1, so its TSSR is the information-set size ``|I|``.

A uniform draw has TSSR 1 by definition.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from cardjax import programs
from cardjax.inference import worlds
from cardjax.nets.card_locations.network import log_probs
from cardjax.train.inference import train


CHUNK = 32  # positions whose tables are computed at once


# id(trainer) -> (trainer, its tssr): one jitted function a trainer (``train.cached_trainer``
# gives one trainer a config), so a second call neither traces nor lowers it again
_TSSRS = programs.keep({})


def make_tssr(trainer: train.Trainer):
    """Jitted ``tssr(params, states, actions) -> dict`` of per-position arrays [T * B]:
    ``log_network``, ``log_baseline``, ``log_size`` (natural logs of the TSSRs and of |I|; NaN
    at the positions ``hidden_cards`` does not describe), ``valid``, ``stage``, ``role``."""
    programs.guard()
    kept = _TSSRS.get(id(trainer))
    if kept is None or kept[0] is not trainer:
        kept = _TSSRS[id(trainer)] = (trainer, _make_tssr(trainer))
    return kept[1]


def _make_tssr(trainer: train.Trainer):
    env, sp = trainer.env, worlds.space(*trainer.env.hidden_space)

    def one(logq, pos):
        size = worlds.log_size(sp, pos.copies, pos.allowed, pos.capacity, pos.least, pos.group)

        def log_tssr(lq):
            t = worlds.tables(sp, lq, pos.copies, pos.allowed, least=pos.least, group=pos.group)
            return worlds.log_prob(sp, t, pos.truth, pos.capacity) + size

        base = train.uniform_log_probs(pos)
        return log_tssr(logq), log_tssr(base), size

    @programs.jit_playing
    def tssr(params, states, actions):
        pos = train.positions(env, trainer.adapter, states, actions)
        logq = log_probs(trainer.net.apply(params, pos.features), pos.allowed, pos.capacity)
        # The tables (|capacities| x kinds each) only for the positions described: most of a
        # batch's are not (the steps after a game's end, up to env.max_steps; Tractor's deal).
        # The described ones are gathered first, CHUNK at a time; the chunks after them skipped.
        n = pos.valid.shape[0]
        chunks = -(-n // CHUNK)
        order = jnp.argsort((~pos.valid).astype(jnp.int32), stable=True)  # the described first
        rows = jnp.concatenate([order, jnp.zeros(chunks * CHUNK - n, order.dtype)])
        todo = jnp.sum(pos.valid)

        def chunk(x):
            i, idx = x
            skipped = (jnp.full(CHUNK, jnp.nan, jnp.float32),) * 3
            return jax.lax.cond(i * CHUNK < todo,
                                lambda: jax.vmap(one)(logq[idx], _take(pos, idx)),
                                lambda: skipped)

        outs = jax.lax.map(chunk, (jnp.arange(chunks), rows.reshape(chunks, CHUNK)))
        net, base, size = (jnp.where(pos.valid, jnp.zeros(n, x.dtype).at[order].set(
            x.reshape(-1)[:n]), jnp.nan) for x in outs)
        ok = pos.valid & jnp.isfinite(size)
        return {"log_network": net, "log_baseline": base, "log_size": size, "valid": ok,
                "stage": pos.stage, "role": pos.role}

    return tssr


def _take(tree, idx):
    return jax.tree_util.tree_map(lambda x: x[idx], tree)
