"""The ScrofaZero training loss (paper eq. 3, 8.8) and its optimizer.

    loss = mean_batch[ KL(p_search || p_net) + value_weight * |v_search - v_net| ]

``p_net = masked_policy(logits, legal_mask, mask_how)`` (``"paper"``: softmax of the logits with
illegal ones zeroed, the paper's choice; ``"exclude"``: softmax over legal actions).  Values are
in game points on both sides (the net's ``value_scale`` handles the units).  The paper does not
give lambda; it only says values reach several hundred points while the KL is at most 2-3, so
the default ``value_weight = 0.01`` makes a 100-point value error weigh like 1 nat of KL.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
import optax

from cardjax.nets.policy_value import masked_log_policy

Array = jax.Array


def kl_divergence(target: Array, log_q: Array) -> Array:
    """``sum_a t_a (log t_a - log q_a)`` over the last axis; entries with ``t_a == 0`` give 0.

    Safe under ``grad`` even where ``log_q`` is -inf (illegal actions in ``"exclude"`` mode)
    as long as the target puts no mass there.
    """
    pos = target > 0
    log_t = jnp.log(jnp.where(pos, target, 1.0))
    log_q = jnp.where(pos, log_q, 0.0)
    return jnp.sum(jnp.where(pos, target * (log_t - log_q), 0.0), axis=-1)


def alphazero_loss(params, apply_fn: Callable, obs: Array, legal_mask: Array,
                   target_policy: Array, target_value: Array, value_weight: float = 0.01,
                   mask_how: str = "paper", weights: Array | None = None) -> tuple[Array, dict]:
    """``(loss, metrics)`` of paper eq. (3) averaged over the batch.

    ``apply_fn(params, obs) -> (logits [B, A], value [B])`` (e.g. ``PolicyValueNet().apply``);
    ``legal_mask`` bool ``[B, A]``; ``target_policy`` ``[B, A]`` (search visit distribution,
    rows summing to 1); ``target_value`` ``[B]`` in game points.  ``metrics``: ``loss``,
    ``policy_kl``, ``value_l1`` (mean |error| in points), ``entropy`` of the net's policy and
    ``illegal_mass`` (its probability on illegal actions; > 0 in ``"paper"`` mode).
    ``weights`` (float ``[B]``, optional) makes every mean a weighted one: rows of weight 0
    (e.g. empty slots of a replay buffer) do not count.
    Use with ``jax.value_and_grad(alphazero_loss, has_aux=True)``.
    """
    logits, value = apply_fn(params, obs)
    log_p = masked_log_policy(logits, legal_mask, mask_how)
    target_policy = jnp.asarray(target_policy, log_p.dtype)
    kl = kl_divergence(target_policy, log_p)
    v_err = jnp.abs(jnp.asarray(target_value, value.dtype) - value)
    if weights is None:
        weights = jnp.ones_like(kl)
    weights = jnp.asarray(weights, kl.dtype)
    total = jnp.maximum(jnp.sum(weights), 1e-12)

    def mean(x):
        return jnp.sum(weights * x) / total

    loss = mean(kl + value_weight * v_err)
    p = jnp.exp(log_p)
    safe_log_p = jnp.where(p > 0, log_p, 0.0)
    metrics = {
        "loss": loss,
        "policy_kl": mean(kl),
        "value_l1": mean(v_err),
        "entropy": mean(-jnp.sum(p * safe_log_p, axis=-1)),
        "illegal_mass": mean(jnp.sum(jnp.where(jnp.asarray(legal_mask, bool), 0.0, p), -1)),
    }
    return loss, metrics


def make_optimizer(lr: float = 1e-3, b1: float = 0.3,
                   b2: float = 0.999) -> optax.GradientTransformation:
    """Adam with the paper's settings (8.8: lr 1e-3, betas (0.3, 0.999))."""
    return optax.adam(learning_rate=lr, b1=b1, b2=b2)
