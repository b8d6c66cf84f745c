"""Tractor for DMC, after the ShengJi+ report (chapters 3.4-4).

One network per phase, ``declare``, ``bury``, ``chaodi``, ``play`` (``min(phase, 3)``), shared by
the four seats, each seeing the game from its own seat (``env.observe``, quantized to uint8
multiples of 1/200).  A decision is one sub-action (a card added to a lead, follow or the kitty,
"done", a pass or a declaration), so roles are not lockstep.  Rewards: the points the seat's
team took at each step (tricks, a failed throw's penalty, the kitty bonus) minus the other
team's, times ``point_reward``, plus the final level reward; tricks end discount periods
(``discount="trick"``), and the phases before the tricks learn the final reward alone.  The
options: the report's dynamic card encoding (``encoding``), the trick facts appended to the
features (``trick_facts``), who would hold the trick after each card that completes a follow
(``consequences``: the env's own trick-winner code, in the candidates' features; ``security``:
and whether the next seat may still take it), whole-unit leads (``leads="units"``: the trainer
plays :class:`~cardjax.games.tractor.leads.UnitLeads`, a lead is one decision; ``throws``: two
throws per suit among them), the env's
failed-throw penalty (``throw_penalty``), the rule player's follow as a flag on its card
(``advice``), the second and third seats' trick points per card by playing the trick out
(``rollouts``).

The pieces: the action table's rows (:mod:`.actions`), the candidates' and states' extra
features (:mod:`.features`), the trick-ending and rolled-out rewards (:mod:`.rewards`); this
module puts them together as the adapter's :class:`~cardjax.nets.dmc.adapter.Game`.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp

from cardjax import registry
from cardjax.cli import boolean, non_negative_float
from cardjax.games.tractor import env as tractor
from cardjax.games.tractor import leads as tl
from cardjax.games.tractor import observe as tractor_observe
from cardjax.games.tractor import state_facts
from cardjax.nets.dmc.action_table import with_flags
from cardjax.nets.dmc.adapter import Adapter, Game
from cardjax.nets.dmc.adapters.tractor.actions import (action_table, dynamic_action_table,
                                                        pad_actions, unit_row_count, unit_rows,
                                                        with_units)
from cardjax.nets.dmc.adapters.tractor.features import (CONSEQUENCES, SECURE_CONSEQUENCES,
                                                         consequence_codes, lead_boss,
                                                         rule_advice, throw_boss, trick_facts)
from cardjax.nets.dmc.adapters.tractor.rewards import (rollout_ends, rollout_rewards,
                                                        trick_ending_rewards)

ROLE_NAMES = ("declare", "bury", "chaodi", "play")  # one network per phase
DECISION_KINDS = ("pre_round", "lead", "follow")
SCALE = 200  # observe's values are multiples of 1/200 (counts /2, points /200, tricks /25)


@dataclasses.dataclass(frozen=True)
class Options:
    """The Tractor adapter's options; the defaults are what a run saved before each option
    existed meant (a new run takes :data:`ADAPTER`'s defaults)."""

    point_reward: float = dataclasses.field(default=0.0, metadata=dict(
        type=non_negative_float, help="reward per trick point (the final level reward stays 1 "
        "per level; 0: levels only)"))
    throw_penalty: int = dataclasses.field(default=0, metadata=dict(
        type=int, choices=(0, 10), help="points a failed throw costs the thrower's team"))
    encoding: str = dataclasses.field(default="static", metadata=dict(
        choices=("dynamic", "static"), help="the cards' places in the features: by level and "
        "trump (dynamic, the report's) or fixed (static)"))
    trick_facts: bool = dataclasses.field(default=False, metadata=dict(
        type=boolean, help="features end with the unseen cards, the seat holding the trick and "
        "its points (true / false)"))
    consequences: bool = dataclasses.field(default=False, metadata=dict(
        type=boolean, help="each card that completes a follow says who would then hold the "
        "trick: the seat itself, its partner or an opponent; with whole-unit leads, each lead "
        "says whether no unseen card can beat it (true / false)"))
    security: bool = dataclasses.field(default=False, metadata=dict(
        type=boolean, help="with consequences: a card after which the seat or its partner holds "
        "the trick also says whether the next seat may still take it (an unseen higher card, "
        "or a shown void that can ruff; true / false)"))
    leads: str = dataclasses.field(default="cards", metadata=dict(
        choices=("cards", "units"), help="a lead is built card by card and then done, throws "
        "included (cards), or chosen whole among the seat's singles, pairs and tractors "
        "(units: no throws but those of --throws)"))
    throws: bool = dataclasses.field(default=False, metadata=dict(
        type=boolean, help="with whole-unit leads: two throws per suit are leads too, the "
        "seat's boss cards of the suit (which cannot fail) and the whole suit, which says, "
        "with consequences, whether no unseen cards could make it fail (true / false)"))
    advice: bool = dataclasses.field(default=False, metadata=dict(
        type=boolean, help="in a follow, the card the rule player would play next carries a "
        "flag: the network learns when its advice pays (true / false)"))

    rollouts: bool = dataclasses.field(default=False, metadata=dict(
        type=boolean, help="with --counterfactual: the second and third seats' follows also "
        "train each other legal card, on the trick points it takes when the later seats play "
        "the trick out as the rule player (with their own cards; true / false)"))

    def __post_init__(self):
        if self.point_reward < 0:
            raise ValueError(f"point_reward must be >= 0, got {self.point_reward}")
        if self.throw_penalty not in (0, 10):
            raise ValueError(f"throw_penalty must be 0 or 10, got {self.throw_penalty}")
        if self.encoding not in ("static", "dynamic"):
            raise ValueError(f"encoding must be 'static' or 'dynamic', got {self.encoding!r}")
        if self.security and not self.consequences:
            raise ValueError("security needs consequences (it refines their codes)")
        if self.leads not in ("cards", "units"):
            raise ValueError(f"leads must be 'cards' or 'units', got {self.leads!r}")
        if self.throws and self.leads != "units":
            raise ValueError("throws are whole-unit leads' (--leads units): card-by-card leads "
                             "throw as they like")


def make_game(cfg, env=None) -> Game:
    """The game of ``cfg`` (its options; the oracle view when it was trained with oracle
    guiding, ``cfg.oracle``)."""
    opts = cfg.options
    env = env or registry.make("tractor", throw_penalty=opts.throw_penalty)
    if env.name != "tractor":
        raise ValueError(f"the Tractor adapter needs the tractor env, got {env.name!r}")
    dynamic = opts.encoding == "dynamic"
    units = opts.leads == "units"
    table = dynamic_action_table() if dynamic else action_table()
    per_context = tractor.NUM_ACTIONS
    if units:
        per_context = unit_row_count(opts.throws)
        table = with_units(table, 65 if dynamic else 1, opts.throws)
    base_rows = table.shape[0]
    codes = SECURE_CONSEQUENCES if opts.security else CONSEQUENCES
    if opts.consequences:
        table = with_flags(table, codes)  # a copy of every row per code (consequence_codes)
    unadvised_rows = table.shape[0]
    if opts.advice:  # a copy of every row with the advice flag
        table = with_flags(table, 2)
    moves = tl.UnitLeads(env, opts.throws) if units else env
    n_moves = moves.num_actions
    if opts.rollouts and not cfg.extension("counterfactual", 0.0):
        raise ValueError("rollouts feed the counterfactual targets: set counterfactual > 0 "
                         "(--counterfactual 1)")

    def quantize(x):
        return jnp.round(x * SCALE).astype(jnp.uint8)

    def encode(x, state):
        return tractor_observe.to_dynamic(x, state.level, state.trump) if dynamic else x

    def features(state):
        x = encode(env.observe(state, state.current_player), state)
        if opts.trick_facts:
            x = jnp.concatenate([x, trick_facts(state, dynamic)])
        return quantize(x)

    def hidden(state):  # every hand relative to the acting seat, and the kitty
        full = env.observe_oracle(state, state.current_player)
        return quantize(encode(full, state)[tractor_observe.OBS_SIZE:])

    def action_rows(state):
        rows = unit_rows(state, opts.throws, dynamic) if units else jnp.arange(
            tractor.NUM_ACTIONS)
        if dynamic:
            rows = rows + per_context * (5 * state.level + state.trump)
        if opts.consequences:
            code = pad_actions(consequence_codes(state, opts.security), n_moves)
            if units:  # a lead no unseen card beats: "I hold the trick"
                boss = lead_boss(state)
                if opts.throws:  # a throw no unseen cards could make fail
                    boss = jnp.concatenate([boss, throw_boss(state)])
                code = jnp.where(boss, 1, code)
            rows = rows + base_rows * code
        if opts.advice:
            rows = rows + unadvised_rows * advice(state)
        return rows

    def counterfactual(state):
        reward, exact = trick_ending_rewards(state, opts.point_reward)
        return pad_actions(reward, n_moves), pad_actions(exact, n_moves)

    def advice(state):
        return pad_actions(rule_advice(env, state), n_moves)

    def rollout(state):
        reward, valid = rollout_rewards(env, state, opts.point_reward)
        return pad_actions(reward, n_moves), pad_actions(valid, n_moves)

    def rollout_after(state):
        reward, valid, cards, ends = rollout_ends(env, state, opts.point_reward)
        return pad_actions(reward, n_moves), pad_actions(valid, n_moves), cards, ends

    def role(state):
        return jnp.minimum(state.phase, tractor.PLAY).astype(jnp.int32)

    def kind(state):  # DECISION_KINDS: before the tricks, a lead's card, a follow's
        return jnp.where(state.phase < tractor.PLAY, 0,
                         jnp.where(state.num_in_trick == 0, 1, 2)).astype(jnp.int32)

    def step_rewards(prev, nxt):  # the levels, and the points each seat's team took
        swing = state_facts.point_swing(prev, nxt).astype(jnp.float32)
        return nxt.rewards + opts.point_reward * swing

    def tick(prev, nxt):  # a trick ended (the last one ends the hand)
        return nxt.trick_no > prev.trick_no

    def final_reward(final):  # the levels each seat's team gained, or minus the other's
        team = jnp.arange(4) % 2
        return (final.level_gain[team] - final.level_gain[1 - team]).astype(jnp.float32)

    def outcome(final, totals):  # the attackers' wins and score over the finished hands
        del totals
        score = jnp.maximum(final.attacker_points + final.kitty_bonus + final.penalty, 0)
        done = final.terminated.astype(jnp.float32)
        n = jnp.maximum(jnp.sum(done), 1.0)
        return {"attacker_wins": jnp.sum(done * (score >= 80)) / n,
                "attacker_score": jnp.sum(done * score) / n}

    return Game(moves, ROLE_NAMES, features, role, table, (0, 0), outcome, lockstep=False,
                feature_scale=float(SCALE), step_rewards=step_rewards,
                oracle=hidden if cfg.oracle else None, tick=tick,
                final_reward=final_reward, pre_round=(0, 1, 2),  # declare, bury, chaodi
                action_rows=action_rows if dynamic or opts.consequences or units or opts.advice
                else None,
                counterfactual=counterfactual, view=units,
                advice=advice if opts.advice else None,
                advised_from=unadvised_rows if opts.advice else None,
                rollout=rollout if opts.rollouts else None,
                rollout_ends=rollout_after if opts.rollouts else None, kind=kind)


# ShengJi+: gamma 0.95, epsilon 0.015; at most 66 actions (k = 66 never overflows)
ADAPTER = Adapter(
    game="tractor", player="shengji", role_names=ROLE_NAMES, rewards=("levels",), make_game=make_game,
    options=Options, ticks=True, oracle=True, counterfactuals=True,
    advises=lambda options: options.advice, unused=("lstm",), decision_kinds=DECISION_KINDS,
    defaults={"reward": "levels", "k": 66, "k_fast": 4, "epsilon": 0.015, "gamma": 0.95,
              "discount": "trick", "max_steps": tractor.Tractor.max_steps,
              "point_reward": 0.01, "encoding": "dynamic", "trick_facts": True})
