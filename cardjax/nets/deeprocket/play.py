"""DeepRocket's two networks for a game, rebuilt from a run's config (a dict: a checkpoint's or an
artifact's ``network``), what they read of one decision, and the move they choose: all a player
needs, so that a trained player loads without its trainer."""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple

import jax
import jax.numpy as jnp

from cardjax.nets.deeprocket import adapter as adapters
from cardjax.nets.deeprocket.network import ConvNet

NEG = -1e9  # the logit of an illegal choice


class Nets(NamedTuple):
    env: Any
    adapter: Any
    policy: ConvNet
    kicker: ConvNet


def make_nets(config: Mapping, env) -> Nets:
    """The networks of ``config`` (its ``game`` and sizes: ``width depth fc kicker_width
    kicker_depth kicker_fc``) for ``env``."""
    adapter = adapters.get(config["game"])
    return Nets(env, adapter,
                ConvNet(adapter.num_categories, config["width"], config["depth"], config["fc"]),
                ConvNet(adapter.num_kicker_outputs, config["kicker_width"],
                        config["kicker_depth"], config["kicker_fc"]))


def init_params(nets: Nets, key):
    ad = nets.adapter
    k1, k2 = jax.random.split(key)
    return {"policy": nets.policy.init(k1, jnp.zeros((1,) + ad.plane_shape, jnp.uint8),
                                       jnp.zeros((1, ad.num_extras), jnp.uint8)),
            "kicker": nets.kicker.init(k2, jnp.zeros((1,) + ad.kicker_shape, jnp.uint8))}


def policy_inputs(nets: Nets, s, a):
    """One decision: ``(planes, extras, legal categories, the category played, role)``."""
    env, ad = nets.env, nets.adapter
    seat = s.current_player
    return (ad.planes(env, s, seat), ad.extras(env, s, seat), ad.category_mask(env, s),
            ad.category(a), ad.role(env, s, seat))


def kicker_inputs(nets: Nets, s, a, j):
    """The ``j``-th kicker choice of one decision: ``(planes, legal outputs, target, valid)``."""
    env, ad = nets.env, nets.adapter
    c = ad.category(a)
    targets, chosen, valid = ad.kicker_targets(a)
    return (ad.kicker_planes(env, s, s.current_player, c, chosen[j]),
            ad.kicker_mask(env, s, c, chosen[j]), targets[j], valid[j])


def choose(nets: Nets, params, s):
    """The combined player's move in ONE state: the most likely legal category, then its kickers,
    the most likely legal one at a time."""
    env, ad = nets.env, nets.adapter
    seat = s.current_player
    logits = nets.policy.apply(params["policy"], ad.planes(env, s, seat)[None],
                               ad.extras(env, s, seat)[None])[0]
    c = jnp.argmax(jnp.where(ad.category_mask(env, s), logits, NEG)).astype(jnp.int32)
    n = ad.num_kickers(c)

    def body(j, chosen):
        kp = ad.kicker_planes(env, s, seat, c, chosen)
        kl = nets.kicker.apply(params["kicker"], kp[None])[0]
        k = jnp.argmax(jnp.where(ad.kicker_mask(env, s, c, chosen), kl, NEG)).astype(jnp.int32)
        return jnp.where(j < n, ad.add_kicker(c, chosen, k), chosen)

    chosen = jax.lax.fori_loop(0, ad.max_kickers, body, jnp.zeros(ad.kicker_choice_shape,
                                                                  jnp.int32))
    return ad.action_of(env, s, c, chosen)
