"""Self-play, the actors of DMC: a batch of fresh deals played to the end in lockstep inside
one ``lax.while_loop``, epsilon-greedy (or Boltzmann, ``Config.temperature``) on the Q of each
game's legal candidates, every step stored for the learner."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from jax.sharding import Mesh

from cardjax.train import sharding
from cardjax.nets.dmc.acting import (advised_slots, boltzmann, compact, compact_words,
                                     feature_rows, known_rewards, legal_sets, observe,
                                     pool_sizes, role_params, score_by_role, score_slots)
from cardjax.train.dmc.state import ALTERNATIVES, IMITATION_SLOTS, Decisions, feature_spec
from cardjax.train.dmc.targets import episode_targets


def make_self_play(cfg, game, net, mesh: Mesh | None = None, prior=None):
    """``self_play(params, key, iteration=0) -> (Decisions [steps, num_envs], stats)``: play
    ``cfg.num_envs`` deals (split over ``mesh``'s devices) with the networks ``params`` and
    return their decisions with targets, and the batch's statistics.  ``prior``: an
    :class:`~cardjax.core.Agent` that makes a share of the decisions (:func:`prior_moves`)."""
    env = game.env
    R, T, B, K = game.num_roles, cfg.steps, cfg.num_envs, cfg.k
    table = jnp.asarray(game.action_features)
    n_actions = game.num_actions
    F, obs_dtype = feature_spec(game)
    lockstep = game.lockstep
    ticking = cfg.discount == "trick"  # discount per trick (game.tick), not per step
    bootstrapping = cfg.lam < 1.0  # lambda-returns: keep the actors' Q of the moves taken
    choosing = bootstrapping or not cfg.train_forced  # keep which decisions had a choice
    contrasting = cfg.counterfactual > 0  # keep each decision's exact alternatives
    exact = cfg.exact_rewards  # known step rewards added to Q, the network learns the rest
    imitating = cfg.imitation > 0  # keep the advised move and other candidates
    advising = imitating or cfg.advice_bonus > 0
    if (contrasting or exact) and game.counterfactual is None:
        raise ValueError(f"counterfactual targets and exact rewards need exact step rewards of "
                         f"alternatives, which the {cfg.game} adapter does not give")
    sizes = pool_sizes(K, cfg.k_fast)
    groups = 1 if mesh is None else mesh.devices.size  # one candidate pool per device

    def score(p, obs, idx, count):
        return score_slots(net, table, p, obs, idx, count, sizes, groups)

    def oracle_keep(iteration):
        """Oracle guiding: the probability of showing the hidden cards to a game at a step
        falls linearly from 1 to 0 over the first ``oracle_iterations`` iterations."""
        n = max(cfg.oracle_iterations, 1)
        return jnp.clip(1.0 - iteration.astype(jnp.float32) / n, 0.0, 1.0)

    if prior is not None and game.view:  # the prior plays the env: its moves as the view's
        prior = prior._replace(act=env.lift(prior.act))
    prior_moves = None if prior is None else make_prior_moves(cfg, prior, B)

    def act_scores(params, t, obs, idx, count, alive, roles):
        """Q of every game's candidates: lockstep, the one network of role ``t % R`` for the
        whole batch; otherwise each game's role's network (``score_by_role``)."""
        if lockstep:
            return score(role_params(params, t % R), obs, idx, jnp.where(alive, count, 0))
        return score_by_role(net, table, params, obs, idx, jnp.where(alive, count, 0),
                             jnp.where(alive, roles, -1), R, sizes, groups)

    def alternatives(states, idx, valid, slot, f_idx, alive):
        """The candidates other than the one taken whose step reward is known exactly (or, with
        ``Game.rollout``, estimated), when the taken one's is too: their feature rows, their
        step reward less the taken one's (times ``reward_scale``), which of the
        ``ALTERNATIVES`` slots hold one, and whether the taken one's reward was exact."""
        reward, exact = jax.vmap(game.counterfactual)(states)
        known = exact
        if game.rollout is not None:  # estimates where nothing is known exactly
            rolled, estimated = jax.vmap(game.rollout)(states)
            use = estimated & ~jnp.any(exact, axis=1, keepdims=True)
            reward, known = jnp.where(use, rolled, reward), exact | use
        def at(x, i):  # per game, x [B, N] at the slots i [B, n]
            return jnp.take_along_axis(x, i, axis=1)

        r = at(reward, idx)
        known = at(known, idx) & valid
        taken = at(known, slot[:, None])[:, 0] & alive
        others = known & (jnp.arange(idx.shape[1]) != slot[:, None]) & taken[:, None]
        pick, ok, _ = jax.vmap(compact, in_axes=(0, None))(others, ALTERNATIVES)
        return dict(alt_action=at(f_idx, pick),
                    alt_delta=(at(r, pick) - at(r, slot[:, None])) * cfg.reward_scale,
                    alt_valid=ok, alt_exact=at(exact, at(idx, slot[:, None]))[:, 0])

    def demonstration(key, advice, valid, f_idx, alive, count):
        """The imitation loss's candidates: the advised move's row first, then up to
        ``IMITATION_SLOTS - 1`` other legal candidates drawn at random, and which slots hold one
        (none where nothing is advised or nothing else is legal)."""
        u = jax.random.uniform(key, valid.shape)
        priority = jnp.where(valid, u, -1.0) + 2.0 * advice
        top, slots = jax.lax.top_k(priority, IMITATION_SLOTS)
        shown = jnp.any(advice, axis=1) & alive & (count > 1)
        return dict(im_action=jnp.take_along_axis(f_idx, slots, axis=1),
                    im_valid=(top >= 0) & shown[:, None])

    def self_play(params, key, iteration=jnp.int32(0)):
        k_deal, k_play = jax.random.split(key)
        states = sharding.constrain(jax.vmap(env.init)(jax.random.split(k_deal, B)), mesh, 0)
        P_ = env.num_players
        bufs = dict(obs=jnp.zeros((T, B, F), obs_dtype), action=jnp.zeros((T, B), jnp.int32),
                    seat=jnp.zeros((T, B), jnp.int32), alive=jnp.zeros((T, B), bool),
                    rewards=jnp.zeros((T, B, P_), jnp.float32))
        if not lockstep:
            bufs["role"] = jnp.zeros((T, B), jnp.int32)
        if ticking:
            bufs["tick"] = jnp.zeros((T, B), bool)
        if bootstrapping:
            bufs["q"] = jnp.zeros((T, B), jnp.float32)
        if choosing:
            bufs["scored"] = jnp.zeros((T, B), bool)
        if exact:
            bufs["known"] = jnp.zeros((T, B), jnp.float32)
        if contrasting:
            bufs.update(alt_action=jnp.zeros((T, B, ALTERNATIVES), jnp.int32),
                        alt_delta=jnp.zeros((T, B, ALTERNATIVES), jnp.float32),
                        alt_valid=jnp.zeros((T, B, ALTERNATIVES), bool),
                        alt_exact=jnp.zeros((T, B), bool))
        if imitating:
            bufs.update(im_action=jnp.zeros((T, B, IMITATION_SLOTS), jnp.int32),
                        im_valid=jnp.zeros((T, B, IMITATION_SLOTS), bool))
        delta = oracle_keep(iteration)
        stats0 = dict(overflow=jnp.int32(0), max_legal=jnp.int32(0),
                      role_mismatch=jnp.int32(0), explored=jnp.int32(0),
                      scored=jnp.float32(0))
        if prior_moves is not None:
            stats0["prior"] = jnp.int32(0)

        def cond(c):
            t, states = c[0], c[1]
            return (t < T) & ~jnp.all(states.terminated)

        def body(c):
            t, states, key, bufs, stats = c
            if game.oracle is None:
                key, k_eps, k_rand = jax.random.split(key, 3)
                keep = None
            else:
                key, k_eps, k_rand, k_oracle = jax.random.split(key, 4)
                keep = jax.random.uniform(k_oracle, (B,)) < delta
            # keys folded from k_eps: the games' other draws are those of a run without them
            k_temp, k_demo = jax.random.fold_in(k_eps, 1), jax.random.fold_in(k_eps, 2)
            alive = ~states.terminated
            words, count = legal_sets(game, states)
            idx, valid, overflow = jax.vmap(compact_words, in_axes=(0, None, None))(
                words, n_actions, K)
            obs = observe(game, states, keep)
            roles = jax.vmap(game.role)(states)
            f_idx = feature_rows(game, states, idx)
            # finished games (all-True masks) need no scoring: count 0 keeps them out of the pool
            q, rows = act_scores(params, t, obs, f_idx, count, alive, roles)
            if exact:  # the candidates' known step rewards, on the targets' scale
                known = known_rewards(game, states, idx, valid, cfg.reward_scale)
                q = q + known
            if advising:
                advice = advised_slots(game, states, idx, valid)
            if cfg.advice_bonus:  # the advised move's bonus; its target stays the return
                q = q + jnp.where(advice, cfg.advice_bonus, 0.0)
            greedy = jnp.argmax(jnp.where(valid, q, -jnp.inf), axis=1)
            rand = jax.random.randint(k_rand, (B,), 0, jnp.maximum(jnp.minimum(count, K), 1))
            explore = jax.random.uniform(k_eps, (B,)) < cfg.epsilon
            chosen = boltzmann(k_temp, q, valid, cfg.temperature) if cfg.temperature else greedy
            slot = jnp.where(explore, rand, chosen)
            off_greedy = alive & (slot != greedy)  # random or Boltzmann (the prior's not counted)
            if prior_moves is not None:
                key, k_prior = jax.random.split(key)
                slot, by_prior = prior_moves(k_prior, iteration, states, alive, idx, valid, slot)
                stats["prior"] = stats["prior"] + jnp.sum(by_prior, dtype=jnp.int32)
            action = jnp.take_along_axis(idx, slot[:, None], axis=1)[:, 0]
            seat = states.current_player
            mismatch = alive & (roles != t % R) if lockstep else jnp.zeros(B, bool)
            prev = states
            states = sharding.constrain(jax.vmap(env.step)(states, action), mesh, 0)
            rewards = (states.rewards if game.step_rewards is None
                       else jax.vmap(game.step_rewards)(prev, states))
            row = dict(obs=obs, action=jnp.take_along_axis(f_idx, slot[:, None], axis=1)[:, 0],
                       seat=seat, alive=alive, rewards=rewards,
                       role=roles)
            if ticking:
                row["tick"] = jax.vmap(game.tick)(prev, states)
            if bootstrapping:
                row["q"] = jnp.take_along_axis(q, slot[:, None], axis=1)[:, 0]
            if choosing:  # a forced move (one legal action) was not scored
                row["scored"] = alive & (count > 1)
            if exact:  # the taken move's known step reward, which the network does not learn
                row["known"] = jnp.take_along_axis(known, slot[:, None], axis=1)[:, 0]
            if contrasting:
                row.update(alternatives(prev, idx, valid, slot, f_idx, alive))
            if imitating:
                row.update(demonstration(k_demo, advice, valid, f_idx, alive, count))
            bufs = {n: jax.lax.dynamic_update_index_in_dim(bufs[n], row[n], t, 0) for n in bufs}
            stats = dict(
                overflow=stats["overflow"] + jnp.sum(alive & overflow, dtype=jnp.int32),
                max_legal=jnp.maximum(stats["max_legal"], jnp.max(jnp.where(alive, count, 0))),
                role_mismatch=stats["role_mismatch"] + jnp.sum(mismatch, dtype=jnp.int32),
                explored=stats["explored"] + jnp.sum(off_greedy, dtype=jnp.int32),
                scored=stats["scored"] + rows.astype(jnp.float32),
                **({"prior": stats["prior"]} if prior_moves is not None else {}),
            )
            return t + 1, states, key, bufs, stats

        t, final, _, bufs, stats = jax.lax.while_loop(
            cond, body, (jnp.int32(0), states, k_play, bufs, stats0))
        finished = final.terminated
        target, weight = episode_targets(cfg, game, bufs, final)
        if exact:  # the network learns the return less the known step reward ...
            target = jnp.where(weight > 0, target - bufs["known"], 0.0)
        extra = {}
        if contrasting:  # an alternative's target: the taken move's, with its own step reward
            # (... the same rest for every one where the taken move's reward was subtracted)
            delta = jnp.where(exact & bufs["alt_exact"][..., None], 0.0, bufs["alt_delta"])
            extra = dict(alt_action=bufs["alt_action"],
                         alt_target=target[..., None] + delta,
                         alt_weight=weight[..., None] * bufs["alt_valid"])
        if imitating:
            extra.update(im_action=bufs["im_action"],
                         im_weight=weight[..., None] * bufs["im_valid"])
        decisions = sharding.constrain(
            Decisions(bufs["obs"], bufs["action"], target, weight, bufs.get("role"), **extra),
            mesh, 1)
        lengths = jnp.sum(bufs["alive"], axis=0)
        totals = jnp.sum(bufs["rewards"], axis=0)  # [B, P]: each game's rewards in all
        scored = stats.pop("scored")
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
        if game.oracle is not None:
            stats["oracle_shown"] = delta
        if prior_moves is not None:
            stats["prior_rate"] = stats.pop("prior") / jnp.maximum(jnp.sum(lengths), 1)
        if contrasting:  # alternatives trained, in all
            stats["alternatives"] = jnp.sum(extra["alt_weight"])
        if imitating:  # decisions with a demonstration
            stats["demonstrations"] = jnp.sum(extra["im_weight"][..., 0] > 0, dtype=jnp.int32)
        return decisions, stats

    return self_play


def make_prior_moves(cfg, prior, B: int):
    """``prior_moves(key, iteration, states, alive, idx, valid, slot) -> (slot, by_prior)``:
    each live game's decision is the prior's with probability ``prior_share x (1 - iteration /
    prior_iterations)`` (at most ``ceil(prior_share x B)`` games a step, the only ones the prior
    player is run for: it may cost far more than the Q networks); the chosen slot becomes the
    candidate slot of the prior's move (kept when that move is not among the candidates)."""
    cap = max(1, math.ceil(cfg.prior_share * B))
    n = max(cfg.prior_iterations, 1)

    def prior_moves(key, iteration, states, alive, idx, valid, slot):
        k_use, k_act = jax.random.split(key)
        share = cfg.prior_share * jnp.clip(1.0 - iteration.astype(jnp.float32) / n, 0.0, 1.0)
        use = alive & (jax.random.uniform(k_use, (B,)) < share)
        rows = jnp.nonzero(use, size=cap, fill_value=B)[0]
        picked = jnp.zeros(B, bool).at[rows].set(True, mode="drop")
        sub = jax.tree_util.tree_map(lambda x: x[jnp.minimum(rows, B - 1)], states)

        def run():
            return jax.vmap(prior.act, in_axes=(None, 0, 0))(
                prior.params, jax.random.split(k_act, cap), sub).astype(jnp.int32)

        acts = jax.lax.cond(jnp.any(picked), run, lambda: jnp.full(cap, -1, jnp.int32))
        move = jnp.full(B, -1, jnp.int32).at[rows].set(acts, mode="drop")
        match = valid & (idx == move[:, None])
        by_prior = picked & jnp.any(match, axis=1)
        return jnp.where(by_prior, jnp.argmax(match, axis=1), slot), by_prior

    return prior_moves
