"""The learner of DMC: each role's network regresses Q(s, a_taken) on the decisions' targets in
shuffled minibatches (MSE), the valid decisions first so that padding costs no update; the
extensions add their losses on more candidates' Q (``Hooks.rows`` and ``Hooks.loss``: the
counterfactual targets, the imitation margin), computed with the state's trunk once."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from cardjax.nets.dmc.action_table import device_table
from cardjax.train.dmc.state import Decisions


class Batch(NamedTuple):
    """A minibatch of one role's decisions (:class:`~cardjax.train.dmc.state.Decisions`' fields;
    ``extra``: the extensions' fields, None or empty where the run has none)."""

    obs: Any
    action: Any
    target: Any
    extra: Any = None


def make_optimizer(cfg) -> optax.GradientTransformation:
    """Clip at global norm ``clip``, then RMSProp (PyTorch's eps placement, as DouZero)."""
    return optax.chain(optax.clip_by_global_norm(cfg.clip),
                       optax.rmsprop(cfg.lr, decay=cfg.alpha, eps=cfg.rms_eps,
                                     eps_in_sqrt=False))


class Learner(NamedTuple):
    """``loss(params, batch, weights)`` and ``update(params, opt_state, batch, weights) ->
    (params, opt_state, loss)`` of one role on a batch ``(obs, action, target)``;
    ``learn(params, opt_state, Decisions [slots, steps, num_envs], key) -> (params, opt_state,
    metrics)`` for all roles."""

    loss: Any
    update: Any
    learn: Any


def make_learner(cfg, game, net, tx, hooks: tuple = ()) -> Learner:
    """The learner of ``cfg``'s networks, with the losses of the active extensions ``hooks``
    (``(name, Hooks)`` pairs)."""
    R, T = game.num_roles, cfg.steps
    table = device_table(game.action_features)
    lossy = [h for _, h in hooks if h.rows is not None]
    lockstep = game.lockstep

    def loss_fn(p, batch, weights):
        """``batch``: a :class:`Batch`, or the tuple ``(obs, action, target)``."""
        b = Batch(*batch)
        w = weights.astype(jnp.float32)
        extra = b.extra or {}
        rows = [b.action[:, None]] + [h.rows(extra) for h in lossy]
        q = net.apply(p, b.obs, table[jnp.concatenate(rows, axis=1)])  # the trunk once
        total = jnp.sum(w * (q[:, 0] - b.target) ** 2)
        start = 1
        for h, r in zip(lossy, rows[1:]):
            total += h.loss(q[:, start:start + r.shape[1]], extra, w)
            start += r.shape[1]
        return total / jnp.maximum(jnp.sum(w), 1.0)

    def update(p, opt_state, batch, weights):
        loss, grads = jax.value_and_grad(loss_fn)(p, batch, weights)
        updates, opt_state = tx.update(grads, opt_state, p)
        return optax.apply_updates(p, updates), opt_state, loss

    def learn_role(p, opt_state, data: Decisions, key):
        """Epochs of minibatch updates of one role on ``data`` (flat [N, ...]); vmapped over
        the roles.  Each epoch runs ``ceil(valid / minibatch)`` updates (a ``while_loop``: under
        ``vmap`` it runs for the role with the most decisions and leaves the others unchanged)."""
        n = data.weight.shape[0]
        mb = min(cfg.minibatch, n)
        per_epoch = math.ceil(n / mb)
        n_valid = jnp.sum(data.weight > 0).astype(jnp.int32)
        todo = (n_valid + mb - 1) // mb

        def epoch(carry, k):
            # valid decisions first, in random order; then padding
            u = jax.random.uniform(k, (n,))
            order = jnp.argsort(jnp.where(data.weight > 0, u, 2.0 + u))
            order = jnp.resize(order, (per_epoch * mb,)).reshape(per_epoch, mb)

            def sgd(c):
                j, p, o, lsum, wsum = c
                idx = order[j]
                batch = jax.tree_util.tree_map(lambda x: x[idx], Batch(
                    data.obs, data.action, data.target, data.extra))
                w = data.weight[idx] * (j * mb + jnp.arange(mb) < n_valid)
                p, o, loss = update(p, o, batch, w)
                return j + 1, p, o, lsum + loss * jnp.sum(w), wsum + jnp.sum(w)

            p, o, lsum, wsum = carry
            _, p, o, lsum, wsum = jax.lax.while_loop(
                lambda c: c[0] < todo, sgd, (jnp.int32(0), p, o, lsum, wsum))
            return (p, o, lsum, wsum), None

        zero = jnp.float32(0.0)
        (p, opt_state, lsum, wsum), _ = jax.lax.scan(
            epoch, (p, opt_state, zero, zero), jax.random.split(key, cfg.epochs))
        return p, opt_state, lsum, wsum

    def learn(params, opt_state, data: Decisions, key):
        """``data``: Decisions [slots, T, B]; role r's decisions are the steps t = r mod R
        (lockstep) or those with ``role == r``."""
        if not lockstep:
            return learn_by_role(params, opt_state, data, key)
        s = data.weight.shape[0]
        # [slots, T/R, R, B, ...] -> [R, slots * T/R * B, ...]
        by_role = jax.tree_util.tree_map(
            lambda x: jnp.moveaxis(x.reshape((s, T // R, R) + x.shape[2:]), 2, 0)
            .reshape((R, -1) + x.shape[3:]), data)
        params, opt_state, lsum, wsum = jax.vmap(learn_role)(
            params, opt_state, by_role, jax.random.split(key, R))
        metrics = {f"loss_{name}": lsum[r] / jnp.maximum(wsum[r], 1.0)
                   for r, name in enumerate(game.role_names)}
        metrics["loss"] = jnp.sum(lsum) / jnp.maximum(jnp.sum(wsum), 1.0)
        return params, opt_state, metrics

    def learn_by_role(params, opt_state, data: Decisions, key):
        """Non-lockstep: role r learns on all decisions (flattened, not copied) with the weights
        of the others zeroed; the roles take turns in a ``scan`` (one copy of the learner in
        the program, not one per role), so each role's loop runs as many updates as it has
        decisions (under ``vmap`` every role would run the largest count)."""
        flat = jax.tree_util.tree_map(lambda x: x.reshape((-1,) + x.shape[3:]), data)

        def one_role(_, xs):
            p, o, k, r = xs
            mine = flat.replace(weight=flat.weight * (flat.role == r))
            return None, learn_role(p, o, mine, k)

        _, (new_p, new_o, lsum, wsum) = jax.lax.scan(
            one_role, None, (params, opt_state, jax.random.split(key, R), jnp.arange(R)))
        metrics = {f"loss_{name}": lsum[r] / jnp.maximum(wsum[r], 1.0)
                   for r, name in enumerate(game.role_names)}
        metrics["loss"] = jnp.sum(lsum) / jnp.maximum(jnp.sum(wsum), 1.0)
        return new_p, new_o, metrics

    return Learner(loss_fn, update, learn)
