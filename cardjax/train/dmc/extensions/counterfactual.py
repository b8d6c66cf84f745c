"""Counterfactual targets: where the step reward of every candidate is known exactly (Tractor: a
card that ends a trick), each candidate other than the one taken is trained too, toward the
taken move's target with its own step reward instead of the taken one's, weighted by
``counterfactual`` in the loss.  With the adapter's rollouts (``Game.rollout``), estimates
stand in where nothing is known exactly (they may read hidden cards: used to train, never to
choose).

The taken move's rest of the return serves every alternative, so the network learns that two
cards of the same step reward are worth the same, whichever is spent.  With ``after_states N``
the first N exact alternatives get a rest of their own: the taken move's, moved by gamma times
the networks' value of the state after that alternative less the value of the state after the
taken move (each the best Q of the seat that acts there, for the side of the seat that chose:
two sides in alternate seats, whose rewards are zero-sum).  With ``after_rollouts`` the first N
rolled-out alternatives get one too, from the states their rollouts leave at the trick's end
(``Game.rollout_ends``), against the state the taken move's rollout leaves."""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp

from cardjax.cli import boolean, non_negative_float, non_negative_int, option
from cardjax.nets.dmc.acting import compact, values_after
from cardjax.train.dmc.extension import Extension, Hooks

ALTERNATIVES = 16  # alternatives kept per decision


@dataclasses.dataclass(frozen=True)
class Options:
    counterfactual: float = option(0.0, "weight of the counterfactual targets: where the step "
                                   "reward of every candidate is known exactly (a card that "
                                   "ends a trick), each is trained toward the taken move's "
                                   "target with its own step reward (0: off)",
                                   non_negative_float)
    after_states: int = option(0, "with --counterfactual: how many exact alternatives of a "
                               "decision take a rest of their own, from the networks' value of "
                               f"the state after them (at most {ALTERNATIVES}; 0: the taken "
                               "move's rest serves all)", non_negative_int)
    after_rollouts: bool = option(False, "with --after_states and the adapter's rollouts: the "
                                  "rolled-out alternatives take a rest of their own too, from "
                                  "the state each rollout leaves when its trick is over "
                                  "(needs --discount trick)", boolean)

    def __post_init__(self):
        if not (self.counterfactual >= 0.0 and math.isfinite(self.counterfactual)):
            raise ValueError(f"counterfactual must be a weight >= 0, got {self.counterfactual}")
        if not 0 <= self.after_states <= ALTERNATIVES:
            raise ValueError(f"after_states must be in [0, {ALTERNATIVES}], got "
                             f"{self.after_states}")


def check(opts: Options, cfg) -> None:
    if opts.after_states and cfg.extension("target", "return") != "return":
        raise ValueError("after_states moves a return's rest; the per-trick target "
                         "(--target trick) has none")
    if opts.after_rollouts and not opts.after_states:
        raise ValueError("after_rollouts gives the rolled-out alternatives the after_states "
                         "values: set after_states N (--after_states 16)")
    if opts.after_rollouts and cfg.extension("discount", "step") != "trick":
        raise ValueError("after_rollouts values the state at a trick's end, one discount "
                         "away: it needs --discount trick")


def build(opts: Options, cfg, game, resources) -> Hooks:
    if game.counterfactual is None:
        raise ValueError(f"counterfactual targets need exact step rewards of alternatives, which "
                         f"this {cfg.game} game does not give")
    A, N = ALTERNATIVES, opts.after_states
    env = game.env
    if N and env.num_players not in (2, 4):
        raise ValueError("after_states reads values for two sides in alternate seats; "
                         f"{cfg.game} has {env.num_players} seats")
    net = resources.get("net")

    if opts.after_rollouts and game.rollout_ends is None:
        raise ValueError(f"after_rollouts needs the states the rollouts leave, which this "
                         f"{cfg.game} game does not give (Tractor: --rollouts true)")

    def deltas(s, slots, pick, need, share, states_after):
        """float32[B, A]: gamma x (V(after pick) - V(after the taken slot)) for the side of the
        seat that chose, at the first N alternatives of the games that ``need`` them (at most
        ``share`` of the batch's games: the rest keep 0), and bool[B]: the games valued.
        ``states_after(games, sub, acts)``: the states [G, N + 1] the actions ``acts`` leave in
        the games ``games`` (their states ``sub``; the taken action first)."""
        idx, B = s["idx"], s["idx"].shape[0]
        G = B if game.lockstep else min(B, share)
        games, ok, _ = compact(need, G)
        acts = jnp.concatenate([jnp.take_along_axis(idx, slots[:, None], axis=1),
                                jnp.take_along_axis(idx, pick[:, :N], axis=1)], axis=1)[games]
        sub = jax.tree_util.tree_map(lambda x: x[games], s["states"])
        v = values_after(net, game, s["params"], sub, states_after(games, sub, acts), cfg.k,
                         cfg.k_fast, cfg.exact_scale)
        d = cfg.gamma * (v[:, 1:] - v[:, :1])
        at_game = jnp.where(ok, games, B)  # out of range: dropped
        out = jnp.zeros((B, A), jnp.float32).at[at_game, :N].set(d, mode="drop")
        return out, jnp.zeros(B, bool).at[at_game].set(True, mode="drop")

    def stepped(games, sub, acts):  # the states each action leaves, stepped
        return jax.vmap(lambda st, a: jax.vmap(lambda x: env.step(st, x))(a))(sub, acts)

    def rolled_out(cards, ends):
        def states_after(games, sub, acts):  # the states each action's rollout leaves
            where = jnp.argmax(cards[games][:, None, :] == acts[:, :, None], axis=-1)
            return jax.vmap(lambda e, w: jax.tree_util.tree_map(lambda x: x[w], e))(
                jax.tree_util.tree_map(lambda x: x[games], ends), where)
        return states_after

    def record(run, s):
        """The candidates other than the one taken whose step reward is known (exactly, or by
        the rollouts), when the taken one's is too: their feature rows, their step reward less
        the taken one's (on the targets' scale), which slots hold one, and whether the taken
        one's reward was exact."""
        states, idx, valid, slot = s["states"], s["idx"], s["valid"], s["slot"]
        reward, exact = jax.vmap(game.counterfactual)(states)
        known = exact
        if game.rollout is not None:  # estimates where nothing is known exactly
            if opts.after_rollouts:
                rolled, estimated, cards, ends = jax.vmap(game.rollout_ends)(states)
            else:
                rolled, estimated = jax.vmap(game.rollout)(states)
            use = estimated & ~jnp.any(exact, axis=1, keepdims=True)
            reward, known = jnp.where(use, rolled, reward), exact | use

        def at(x, i):  # per game, x [B, N] at the slots i [B, n]
            return jnp.take_along_axis(x, i, axis=1)

        r = at(reward, idx)
        known = at(known, idx) & valid
        taken = at(known, slot[:, None])[:, 0] & s["alive"]
        others = known & (jnp.arange(idx.shape[1]) != slot[:, None]) & taken[:, None]
        pick, ok, _ = jax.vmap(compact, in_axes=(0, None))(others, A)
        alt_exact = at(exact, at(idx, slot[:, None]))[:, 0]
        row = dict(alt_action=at(s["f_idx"], pick),
                   alt_delta=(at(r, pick) - at(r, slot[:, None])) * cfg.reward_scale,
                   alt_valid=ok, alt_exact=alt_exact)
        if N:  # a rest of their own for the exact alternatives (and the rolled-out ones)
            B = idx.shape[0]
            zeros = (jnp.zeros(ok.shape, jnp.float32), jnp.zeros(B, bool))
            need = alt_exact & ok[:, 0]
            # as many games as a step's trick ends may hold
            after, got = jax.lax.cond(jnp.any(need), lambda: deltas(
                s, slot, pick, need, B // env.num_players + 2, stepped), lambda: zeros)
            needed = need
            if opts.after_rollouts:  # the second and third seats: half the games at most
                need_r = ~alt_exact & ok[:, 0]
                after_r, got_r = jax.lax.cond(jnp.any(need_r), lambda: deltas(
                    s, slot, pick, need_r, B // 2 + 2, rolled_out(cards, ends)), lambda: zeros)
                after, got = after + after_r, got | got_r
                needed = need | need_r
            row["alt_after"] = jnp.where(ok, after, 0.0)
            s["stats"].update(
                after_valued=jnp.sum(ok & got[:, None] & (jnp.arange(A) < N), dtype=jnp.int32),
                after_missed=jnp.sum(needed & ~got, dtype=jnp.int32))
        return row

    def decisions(run, bufs, target, weight):
        # an alternative's target: the taken move's, with its own step reward; where the exact
        # rewards extension took the taken move's known reward out of the target, the same rest
        # serves every exact alternative
        delta = bufs["alt_delta"]
        if "known" in bufs:
            delta = jnp.where(bufs["alt_exact"][..., None], 0.0, delta)
        if N:
            delta = delta + bufs["alt_after"]
        return dict(alt_action=bufs["alt_action"], alt_target=target[..., None] + delta,
                    alt_weight=weight[..., None] * bufs["alt_valid"])

    def stats(run, bufs, final, extra, stats):  # alternatives trained, in all
        return dict(stats, alternatives=jnp.sum(extra["alt_weight"]))

    def loss(q, extra, w):
        return opts.counterfactual * jnp.sum(
            w[:, None] * extra["alt_weight"] * (q - extra["alt_target"]) ** 2)

    buffers = {"alt_action": ((A,), jnp.int32), "alt_delta": ((A,), jnp.float32),
               "alt_valid": ((A,), jnp.bool_), "alt_exact": ((), jnp.bool_)}
    if N:
        buffers["alt_after"] = ((A,), jnp.float32)
    return Hooks(
        fields={"alt_action": ((A,), jnp.int32), "alt_target": ((A,), jnp.float32),
                "alt_weight": ((A,), jnp.float32)},
        buffers=buffers,
        step_stats=({"after_valued": jnp.int32(0), "after_missed": jnp.int32(0)} if N else {}),
        record=record, decisions=decisions, stats=stats,
        rows=lambda extra: extra["alt_action"], loss=loss)


EXTENSION = Extension("counterfactual", Options, on=lambda o: o.counterfactual > 0,
                      build=build, requires=("counterfactuals",), check=check)
