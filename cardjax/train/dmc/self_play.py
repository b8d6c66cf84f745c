"""Self-play, the actors of DMC: a batch of fresh deals played to the end in lockstep inside
one ``lax.while_loop``, epsilon-greedy (or Boltzmann, ``Config.temperature``) on the Q of each
game's legal candidates, every step stored for the learner.  The extensions' hooks
(:mod:`cardjax.train.dmc.extension`) add what they need at each phase of a step."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.sharding import Mesh

from cardjax.train import sharding
from cardjax.nets.dmc.acting import (boltzmann, compact_words, feature_rows, legal_sets, observe,
                                     pool_sizes, role_params, score_by_role, score_slots)
from cardjax.nets.dmc.action_table import device_table
from cardjax.train.dmc.extension import merged
from cardjax.train.dmc.state import Decisions, feature_spec
from cardjax.train.dmc.targets import episode_targets


def make_self_play(cfg, game, net, mesh: Mesh | None = None, hooks: tuple = ()):
    """``self_play(params, key, iteration=0) -> (Decisions [steps, num_envs], stats)``: play
    ``cfg.num_envs`` deals (split over ``mesh``'s devices) with the networks ``params`` and
    return their decisions with targets, and the batch's statistics.  ``hooks``: the active
    extensions' ``(name, Hooks)`` (:func:`cardjax.train.dmc.extension.build`)."""
    env = game.env
    R, T, B, K = game.num_roles, cfg.steps, cfg.num_envs, cfg.k
    table = device_table(game.action_features)
    n_actions = game.num_actions
    F, obs_dtype = feature_spec(game)
    lockstep = game.lockstep
    sizes = pool_sizes(K, cfg.k_fast)
    groups = 1 if mesh is None else mesh.devices.size  # one candidate pool per device
    buffers = merged(hooks, "buffers")
    step_stats = merged(hooks, "step_stats")
    n_keys = sum(h.keys for _, h in hooks)

    def each(phase):
        return [(name, getattr(h, phase)) for name, h in hooks if getattr(h, phase) is not None]

    def act_scores(params, t, obs, idx, count, alive, roles):
        """Q of every game's candidates: lockstep, the one network of role ``t % R`` for the
        whole batch; otherwise each game's role's network (``score_by_role``)."""
        if lockstep:
            return score_slots(net, table, role_params(params, t % R), obs, idx,
                               jnp.where(alive, count, 0), sizes, groups)
        return score_by_role(net, table, params, obs, idx, jnp.where(alive, count, 0),
                             jnp.where(alive, roles, -1), R, sizes, groups)

    def self_play(params, key, iteration=jnp.int32(0)):
        k_deal, k_play = jax.random.split(key)
        states = sharding.constrain(jax.vmap(env.init)(jax.random.split(k_deal, B)), mesh, 0)
        run = dict(iteration=iteration, B=B, T=T)
        for _, begin in each("begin"):
            begin(run)
        shapes = dict(obs=((F,), obs_dtype), action=((), jnp.int32), seat=((), jnp.int32),
                      alive=((), bool), rewards=((env.num_players,), jnp.float32),
                      scored=((), bool), **({} if lockstep else {"role": ((), jnp.int32)}),
                      **buffers)
        bufs = {n: jnp.zeros((T, B) + tail, dtype) for n, (tail, dtype) in shapes.items()}
        stats0 = dict(overflow=jnp.int32(0), max_legal=jnp.int32(0),
                      role_mismatch=jnp.int32(0), explored=jnp.int32(0),
                      scored=jnp.float32(0), **step_stats)

        def cond(c):
            t, states = c[0], c[1]
            return (t < T) & ~jnp.all(states.terminated)

        def body(c):
            t, states, key, bufs, stats = c
            keys = jax.random.split(key, 3 + n_keys)
            key, k_eps, k_rand = keys[0], keys[1], keys[2]
            s = dict(states=states, params=params, k_eps=k_eps, stats={}, keys={})
            i = 3
            for name, h in hooks:
                s["keys"][name], i = keys[i:i + h.keys], i + h.keys
            # keys folded from k_eps: the games' other draws are those of a run without them
            k_temp = jax.random.fold_in(k_eps, 1)
            alive = ~states.terminated
            words, count = legal_sets(game, states)
            idx, valid, overflow = jax.vmap(compact_words, in_axes=(0, None, None))(
                words, n_actions, K)
            s.update(alive=alive, count=count, idx=idx, valid=valid)
            for _, observe_hook in each("observe"):
                observe_hook(run, s)
            obs = observe(game, states, s.get("keep"))
            roles = jax.vmap(game.role)(states)
            f_idx = feature_rows(game, states, idx)
            s["f_idx"] = f_idx
            # finished games (all-True masks) need no scoring: count 0 keeps them out of the pool
            q, rows = act_scores(params, t, obs, f_idx, count, alive, roles)
            s["q_net"] = q  # the network's own values, before the hooks steer the choice
            for _, choose in each("choose"):
                q = choose(run, s, q)
            greedy = jnp.argmax(jnp.where(valid, q, -jnp.inf), axis=1)
            rand = jax.random.randint(k_rand, (B,), 0, jnp.maximum(jnp.minimum(count, K), 1))
            explore = jax.random.uniform(k_eps, (B,)) < cfg.epsilon
            chosen = boltzmann(k_temp, q, valid, cfg.temperature) if cfg.temperature else greedy
            slot = jnp.where(explore, rand, chosen)
            off_greedy = alive & (slot != greedy)  # random or Boltzmann (a prior's not counted)
            s.update(q=q, slot=slot, key=key)
            for _, act in each("act"):
                act(run, s)
            slot, key = s["slot"], s["key"]
            action = jnp.take_along_axis(idx, slot[:, None], axis=1)[:, 0]
            mismatch = alive & (roles != t % R) if lockstep else jnp.zeros(B, bool)
            nxt = sharding.constrain(jax.vmap(env.step)(states, action), mesh, 0)
            s["next"] = nxt
            rewards = (nxt.rewards if game.step_rewards is None
                       else jax.vmap(game.step_rewards)(states, nxt))
            row = dict(obs=obs, action=jnp.take_along_axis(f_idx, slot[:, None], axis=1)[:, 0],
                       seat=states.current_player, alive=alive, rewards=rewards, role=roles,
                       scored=alive & (count > 1))  # a forced move (one legal action): unscored
            for _, record in each("record"):
                row.update(record(run, s))
            bufs = {n: jax.lax.dynamic_update_index_in_dim(bufs[n], row[n], t, 0) for n in bufs}
            stats = dict(
                overflow=stats["overflow"] + jnp.sum(alive & overflow, dtype=jnp.int32),
                max_legal=jnp.maximum(stats["max_legal"], jnp.max(jnp.where(alive, count, 0))),
                role_mismatch=stats["role_mismatch"] + jnp.sum(mismatch, dtype=jnp.int32),
                explored=stats["explored"] + jnp.sum(off_greedy, dtype=jnp.int32),
                scored=stats["scored"] + rows.astype(jnp.float32),
                **{n: stats[n] + s["stats"][n] for n in step_stats},
            )
            return t + 1, nxt, key, bufs, stats

        t, final, _, bufs, stats = jax.lax.while_loop(
            cond, body, (jnp.int32(0), states, k_play, bufs, stats0))
        target, weight = episode_targets(cfg, bufs, final, run, hooks)
        extra = {}
        for _, decisions in each("decisions"):
            extra.update(decisions(run, bufs, target, weight))
        decisions = sharding.constrain(
            Decisions(bufs["obs"], bufs["action"], target, weight, bufs.get("role"), extra),
            mesh, 1)
        lengths = jnp.sum(bufs["alive"], axis=0)
        totals = jnp.sum(bufs["rewards"], axis=0)  # [B, P]: each game's rewards in all
        scored = stats.pop("scored")
        finished = final.terminated
        stats = dict(stats, **game.outcome(final, totals),
                     decisions=jnp.sum(lengths),
                     scored_per_decision=scored / jnp.maximum(jnp.sum(lengths), 1),
                     truncated=jnp.sum(~finished, dtype=jnp.int32),
                     steps_run=t,
                     game_length=jnp.mean(lengths.astype(jnp.float32)),
                     max_game_length=jnp.max(lengths))
        if not lockstep:
            w = bufs["alive"]
            stats.update({f"decisions_{name}": jnp.sum(w & (bufs["role"] == r), dtype=jnp.int32)
                          for r, name in enumerate(game.role_names)})
        for _, stats_hook in each("stats"):
            stats = stats_hook(run, bufs, final, extra, stats)
        return decisions, stats

    return self_play
