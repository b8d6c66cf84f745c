"""Deep Monte Carlo (DMC) self-play training -- DouZero for Dou Dizhu, and a Gongzhu baseline --
as one jitted step.

:func:`make_train` returns ``init(key) -> TrainState`` and ``step(TrainState) -> (TrainState,
metrics)``; ``step`` is compiled once and does a whole iteration on device (actors and learner in
one program, no queues):

1. **Self-play** (the actors): ``num_envs`` fresh deals are played to the end in lockstep inside a
   ``lax.while_loop`` that stops when every game is over or after ``max_steps`` steps (a static
   bound, rounded up to a multiple of the number of roles).  At every step the legal actions of
   each game are compacted into ``k`` slots (:func:`compact`), the Q network of the acting role
   scores them and the game plays the best one, or with probability ``epsilon`` a uniformly random
   one of them (epsilon-greedy).  A game that did not finish within ``max_steps`` is counted in
   the ``truncated`` metric and its decisions get weight 0; a decision with more than ``k`` legal
   actions acts on the first ``k`` (increasing action id) and is counted in ``overflow``.  Nothing
   is dropped silently.
2. **Targets**: Monte-Carlo returns per seat with a backward ``lax.scan`` (:func:`returns`):
   ``G_t = r_t + gamma * G_{t+1}`` over the per-seat reward vectors of the steps times
   ``reward_scale`` (Dou Dizhu and Gongzhu: the env's, all zero except at the last step, where the
   env puts each seat's final reward with its own sign: Dou Dizhu landlord ``+-2m``, each peasant
   ``-+m`` under ADP; Gongzhu each seat its team's point margin; Tractor: trick points too, see
   below); the target of a decision is ``G_t`` of the seat that made it.  ``gamma`` discounts per
   env step (every seat's move counts); 1 for Dou Dizhu, where the target is the final reward
   itself, as in DouZero.  Steps after the end of a game (padding) and the decisions of truncated
   games weigh 0; so do the decisions with one legal action under ``train_forced=False`` (their
   Q chooses nothing; Tractor: 43% of the decisions, most declaration passes).
   ``lam < 1`` (not in the papers; default 1) makes them lambda-returns: each actor keeps the Q
   of the move it took, and a seat's return looks back through its own later decisions as
   ``lam * G + (1 - lam) * Q`` (a forced move, which is not scored, passes ``G`` on whole).  The
   target then carries less of the noise of the rest of the game: in Tractor the final level
   reward (+-1 to 3 levels) drowns the points of one trick (0.05-0.4) in Monte-Carlo targets.
   Tractor's ``target="trick"`` is the ShengJi+ report's instead (see below).
3. **Learning** (the learner): one network per role (a params pytree with a leading axis of
   ``num_roles``, the roles' updates vmapped -- run one after the other for non-lockstep games,
   see below); each role is trained on its own decisions,
   ``epochs`` passes of shuffled minibatches of ``minibatch`` decisions: the valid decisions are
   put first and a ``while_loop`` runs ``ceil(valid / minibatch)`` updates, so padding costs
   nothing (the last minibatch's padding weighs 0).  Loss: mean squared error between
   Q(s, a_taken) and the target; optimizer RMSProp (DouZero: lr 1e-4, alpha 0.99, eps 1e-5 added
   outside the square root as in PyTorch, ``optax.rmsprop(eps_in_sqrt=False)``) after clipping each
   role's gradient to global norm 40.  With ``replay > 0`` the decisions of the previous ``replay``
   iterations are trained on again (the buffer is then part of the train state and of every
   checkpoint).

Roles and lockstep.  A game that declares ``lockstep`` (Dou Dizhu) guarantees "the role acting
at step ``t`` is ``t % num_roles``" for every game still running: all games start together with
role 0 to act and roles rotate every step (true for Dou Dizhu without bidding: ``env.init`` makes
seat 0 the landlord, the seats play in turn and a pass is a step).  So at each self-play step one
network acts for the whole batch (the params are indexed, not gathered per game) and the
buffer's step axis splits into the roles' decisions by a reshape.  The ``role_mismatch`` metric
counts decisions where the game's own ``role(state)`` disagrees (it must stay 0).  With
one role (Gongzhu) it holds trivially.

Non-lockstep games (Tractor: the phase, hence the network, differs between games at one step,
and one seat makes several sub-actions in a row) store each decision's role (``Decisions.role``,
``role(state)`` before the step).  Acting (:func:`score_by_role`): each role's network scores the
batch only when some running game needs it (a ``lax.cond`` on ``any(role == r)``; other games
count 0 legal moves for its candidate pool) and every game takes its own role's Q values.  Learning
(``learn_by_role``): the roles are trained one after the other on the whole flattened buffer
with the other roles' decisions weighted 0 -- the same valid-first shuffled minibatches and
``while_loop`` as the lockstep path, so each role runs as many updates as it has decisions.
Metrics ``decisions_<role>``.

Features are stored as the game gives them: bool (Dou Dizhu, 0/1) or uint8 holding exact
multiples of ``1 / feature_scale`` (Tractor: 200), which the network divides back.  Rewards per
step: the env's ``rewards``, or the game's ``step_rewards(prev, next)`` (Tractor: trick points).

Per-game defaults (:data:`GAME_DEFAULTS`, :meth:`Config.for_game`): the fields of :class:`Config`
are Dou Dizhu's; a game overrides the ones that differ (reward, ``k``, ``max_steps``, ...).

Dou Dizhu (:func:`doudizhu_game`).  Roles, as in DouZero: 0 ``landlord``; 1 ``landlord_down``,
the peasant who plays right after the landlord (seat 1 when the landlord is seat 0); 2
``landlord_up``, the peasant who plays right before the landlord (seat 2), i.e. ``role = (seat -
landlord) mod 3``.  State features: ``env.observe(state, seat)`` (1,325 0/1 values: own hand,
cards left, cards played per seat, the move to beat, bottom, landlord, bombs, and the last 15
moves as 15 x 60 planes, oldest first) stored as bool.  Action features: the move's rank counts
as 4 x 15 planes (60, like DouZero's 54-card matrix; pass is all zeros).

The network (:class:`QNet`).  The history planes go through an LSTM in 5 steps of 3 moves (180
values per step, as DouZero: a step is one round of the three seats, so a seat's moves always
sit at the same place inside a step); its last output is concatenated with the other 425 state
features and an MLP (``depth`` x ``width``, ReLU) makes the state embedding, computed once per
state.  The head scores each candidate: ``relu(W_s emb + W_a action + b)`` (= a dense layer on
``concat(emb, action)``, with the state half computed once), ``head_depth - 1`` more dense
layers of ``head_width`` and a scalar Q.

Tractor (:func:`tractor_game`, ShengJi+ report chapters 3.4-4).  Roles: one network per phase,
``declare``, ``bury``, ``chaodi``, ``play`` (``min(phase, 3)``), shared by the four seats, each
seeing the game from its own seat: ``env.observe(state, current_player)`` (1,034 values: own hand,
level, trump, dealer, phase, table / played / revealed / last trick per relative seat, voids,
leaders, points, declarer, known kitty) x 200 as uint8.  A decision is one sub-action (a card added
to a lead, follow or the kitty, "done", a pass or a declaration), so ``gamma`` discounts per
decision.  ``encoding="dynamic"`` (Tractor's default; report 4.2): the cards' places depend on the
hand's level and trump (:func:`cardjax.games.tractor.to_dynamic`: plain suits, then the trump
suit, then the level cards and jokers, each suit's ranks in order with the level rank skipped),
so "a trump" or "the best plain card" is one input whatever the trump; the action features are
then rows of :func:`tractor_dynamic_action_table` (per level and trump: the card's one-hot at its
dynamic place, its effective suit, order and points; ``Game.action_rows``), and the buffer stores
the row.  ``"static"``: the cards at fixed places and a bool[66, 88] table
(:func:`tractor_action_table`: action one-hot, and for the 54 card types suit, rank and point
flags).  Rewards (``step_rewards``): at every step the points the seat's team took (a trick to
the attackers or defenders, a failed throw's ``penalty`` -- the env's ``throw_penalty`` option, the
report's combo-move penalty --, the final kitty bonus) minus the other team's, times
``point_reward``, plus the env's final level reward (levels gained, or minus the other team's).
``discount="trick"`` (Tractor's default) discounts only at the steps that end a trick
(``Game.tick``) and trains the declaration, burial and chaodi decisions on the final level reward
alone, undiscounted (``Game.final_reward``, ``pre_round``); ``"step"`` discounts every decision,
so the final reward reaches the declaration and burial decisions discounted by ~0.95^250 (a hand
is ~280 decisions).  ``target="return"`` makes a trick decision's target every later reward of
its seat, discounted per trick; ``target="trick"`` is the report's own (4.4),
``r_t + gamma^(T - k) R`` over T tricks: the rewards of the decision's own trick ``k`` plus the
final level reward discounted once per later trick, without the later tricks' points
(``returns(..., outcome=...)``, the outcome placed at each hand's last step).
Oracle guiding (report 4.5; ``oracle_iterations > 0``): the features get every hand and the kitty
(``observe_oracle``'s extra part) appended, shown to a game at a step with probability falling
linearly from 1 to 0 over the first ``oracle_iterations`` iterations and zeros otherwise; the
trained player always gets zeros.  Legal moves <= 34 (a 33-card burial), so ``k = 66`` never
overflows; a hand is at most 613 steps (``max_steps = 620`` for Tractor).  No LSTM (``history =
(0, 0)``): the features carry no move sequence.

Candidate slots ``k`` (Dou Dizhu): measured on 1,024 deals (2 x 512, random and rule play, 110k
decisions): legal moves per decision mean 5.6-5.9, median 2-3, p99 62-72, p99.9 137-154, max 299;
above 128: 0.13-0.23% of decisions, above 256: 0.003-0.004%.  The most moves come at the landlord's
opening lead (20 cards); over 20,000 deals: mean 80, p99 203, p99.9 286, p99.99 350, max 446 (above
384: 0.005%).  Contrived 20-card hands reach 453 (``34445556667778889TJQ``).  Default ``k = 512``;
anything beyond is counted in ``overflow``.  Scoring 512 slots for every decision would waste ~99%
of the head's work, so the actors score a pool of the legal candidates of all the games, packed
one after the other (:func:`score_slots`): the smallest of ``k_fast`` (4) x ``num_envs``, twice
that, ... rows that holds them (metric ``scored_per_decision``: Dou Dizhu 12-15 with the
first step, where every landlord leads with ~80 moves, against ~125 for the trainer's former
tiers of 32/128/512 slots) -- the same Q values as scoring everything, 2.7x faster per
iteration than the tiers on CPU at 256 games with 512 x 3 nets.

Game length (Dou Dizhu): random play mean 62, max 92; rule play mean 45, max 67 (steps, passes
included).  A game cannot last more than 154 steps (at most 52 non-pass moves before a seat is
empty -- the two other seats keep a card each -- and at most two passes between them), so the
default ``max_steps = 156`` (rounded to a multiple of 3) never truncates; smaller values are
allowed and count ``truncated`` games.

Gongzhu (:func:`gongzhu_game`, without the exposure phase).  One role, ``player``: one network
plays all four seats (the teams' symmetry; the observation is relative to the acting seat).
State features: ``env.observe(state, seat)`` (568 values, all 0/1: own hand, the trick, cards
played per seat, score cards collected per seat, revealed voids, exposed cards, leader), stored as
bool without loss; no history block for an LSTM (the cards played per seat are the memory).
Action features (:func:`gongzhu_action_table`): the card one-hot (52), its suit (4) and rank (13)
one-hot and 4 flags (score card, SQ, DJ, C10).  Reward ``points``: each seat's terminal reward is
its team's pile total minus the other team's (teammates share it), scaled by ``reward_scale =
0.01`` (targets in hundreds of points, near DouZero's ADP magnitudes).  A game is exactly 52
plays (``max_steps = 52``, never truncated) and a hand holds at most 13 cards (``k = 13``, no
overflow possible).

Metrics of a step: ``loss`` (MSE over all trained decisions) and ``loss_<role>``; ``frames``
(decisions of this iteration's games that were trained on; the runner adds ``frames_per_s``)
and ``decisions``; ``overflow`` (decisions with more than ``k`` legal actions), its rate and
``max_legal``; ``truncated`` games; ``scored_per_decision`` (candidates the heads scored per
decision, pool padding included); ``role_mismatch``; ``explored``
(random moves); ``game_length``, ``max_game_length``, ``steps_run``; the game's outcome stats
(``Game.outcome``, self-play: Dou Dizhu ``landlord_wins`` and ``landlord_reward``, Gongzhu
``margin`` and ``margin_abs`` (team 0's point margin and its size), Tractor ``attacker_wins`` and
``attacker_score``); non-lockstep games ``decisions_<role>``, with oracle guiding
``oracle_shown``; ``target_abs`` (mean |target|, scaled).

Data parallel: pass a ``jax.sharding.Mesh`` with one axis ``"data"``; the games (and the
buffer's game axis) are split over its devices, params and optimizer state are replicated.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable, NamedTuple

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import struct
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

import cardjax
from cardjax.train import sharding
from cardjax.train.runner import DictConfig

Array = jax.Array

ROLE_NAMES = {"doudizhu": ("landlord", "landlord_down", "landlord_up"),
              "gongzhu": ("player",)}  # one network for the four seats
REWARDS = {"doudizhu": ("adp", "wp", "logadp"), "gongzhu": ("points",), "tractor": ("levels",)}
# The fields of Config that a game sets otherwise than Dou Dizhu (see the module docstring).
GAME_DEFAULTS = {
    "doudizhu": {},
    "gongzhu": {"reward": "points", "reward_scale": 0.01, "k": 13, "max_steps": 52},
    # ShengJi+: gamma 0.95, epsilon 0.015; at most 66 actions; a hand is at most 613 actions
    "tractor": {"reward": "levels", "k": 66, "k_fast": 4, "max_steps": 620, "epsilon": 0.015,
                "gamma": 0.95, "point_reward": 0.01, "discount": "trick", "encoding": "dynamic",
                "trick_facts": True},
}


# ---------------------------------------------------------------------------------------- config
@dataclasses.dataclass(frozen=True)
class Config(DictConfig):
    """Everything that defines a DMC training run (saved with every checkpoint)."""

    algorithm: str = "dmc"  # tells a run directory's loader which trainer made it
    game: str = "doudizhu"
    reward: str = "adp"  # the env's reward: Dou Dizhu's option adp, wp, logadp; Gongzhu points;
    # Tractor levels
    reward_scale: float = 1.0  # targets are the rewards times this
    num_envs: int = 64  # self-play games per iteration
    k: int = 512  # candidate slots per decision (legal actions beyond are counted as overflow)
    k_fast: int = 4  # the smallest candidate pool, per game; 0 = all k slots (see score_slots)
    max_steps: int = 156  # static bound on a game's steps (longer games count as truncated)
    epsilon: float = 0.01  # exploration of the actors
    gamma: float = 1.0  # discount per env step (= per decision)
    lam: float = 1.0  # lambda of the targets: 1 = Monte-Carlo returns (DouZero); below 1 mixes
    # in the actors' Q of the seat's later decisions (lambda-returns, see ``returns``)
    train_forced: bool = True  # train on the decisions with one legal action too (DouZero);
    # False: they weigh 0, as their Q chooses nothing
    lr: float = 1e-4  # RMSProp (DouZero)
    alpha: float = 0.99
    rms_eps: float = 1e-5
    clip: float = 40.0  # global gradient norm, per role
    minibatch: int = 1024  # decisions per gradient step (per role)
    epochs: int = 1  # passes over the iteration's decisions
    replay: int = 0  # previous iterations' decisions trained on again
    lstm: int = 128  # LSTM size over the history (DouZero: 128)
    width: int = 256  # state trunk MLP (DouZero's MLP: 6 x 512 on every candidate)
    depth: int = 2
    head_width: int = 256  # per-candidate head
    head_depth: int = 2
    # Tractor only (ShengJi+): trick points -> reward (0: the final level reward only), the env's
    # throw_penalty option, and oracle guiding over the first oracle_iterations (0: off)
    point_reward: float = 0.0
    throw_penalty: int = 0
    oracle_iterations: int = 0
    discount: str = "step"  # gamma per step (= per decision), or per trick (Tractor)
    # Tractor: a decision's target is its seat's discounted "return" (every later reward), or the
    # report's "trick" target (its own trick's points + gamma^(tricks left) x the level reward)
    target: str = "return"
    # Tractor: the cards' places in the features, fixed ("static") or by level and trump
    # ("dynamic", the report's encoding; the default of Config.for_game, "static" for the runs
    # saved before it existed)
    encoding: str = "static"
    # Tractor: append tractor_trick_facts to the features (unseen cards, trick holder, points on
    # the table); False for the runs saved before it existed
    trick_facts: bool = False

    def __post_init__(self):
        if self.algorithm != "dmc":
            raise ValueError(f"algorithm must be 'dmc', got {self.algorithm!r}")
        if self.game not in ROLE_NAMES:
            raise ValueError(f"game must be one of {sorted(ROLE_NAMES)}, got {self.game!r}")
        if self.reward not in REWARDS[self.game]:
            raise ValueError(f"reward of {self.game} must be one of {REWARDS[self.game]}, got "
                             f"{self.reward!r} (Config.for_game sets a game's defaults)")
        for name in ("num_envs", "k", "max_steps", "minibatch", "epochs", "lstm", "width",
                     "head_width", "head_depth"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("replay", "depth", "k_fast", "oracle_iterations"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if not 0.0 <= self.epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {self.epsilon}")
        if not 0.0 < self.gamma <= 1.0:
            raise ValueError(f"gamma must be in (0, 1], got {self.gamma}")
        if not 0.0 <= self.lam <= 1.0:
            raise ValueError(f"lam must be in [0, 1], got {self.lam}")
        for name in ("lr", "rms_eps", "clip", "reward_scale"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha}")
        if self.point_reward < 0:
            raise ValueError(f"point_reward must be >= 0, got {self.point_reward}")
        if self.throw_penalty not in (0, 10):
            raise ValueError(f"throw_penalty must be 0 or 10, got {self.throw_penalty}")
        if self.discount not in ("step", "trick"):
            raise ValueError(f"discount must be 'step' or 'trick', got {self.discount!r}")
        if self.target not in ("return", "trick"):
            raise ValueError(f"target must be 'return' or 'trick', got {self.target!r}")
        if self.target == "trick" and (self.discount != "trick" or self.lam != 1.0):
            raise ValueError("target 'trick' discounts per trick (discount 'trick') and has no "
                             f"lambda (lam 1); got discount {self.discount!r}, lam {self.lam}")
        if self.encoding not in ("static", "dynamic"):
            raise ValueError(f"encoding must be 'static' or 'dynamic', got {self.encoding!r}")
        if self.game != "tractor" and (self.point_reward or self.throw_penalty
                                       or self.oracle_iterations or self.discount != "step"
                                       or self.encoding != "static" or self.trick_facts
                                       or self.target != "return"):
            raise ValueError("point_reward, throw_penalty, oracle_iterations, discount "
                             "'trick', encoding 'dynamic', trick_facts and target 'trick' are "
                             "Tractor options")

    @classmethod
    def for_game(cls, game: str, **fields) -> "Config":
        """The config of ``game`` with its :data:`GAME_DEFAULTS`, updated by ``fields``."""
        if game not in GAME_DEFAULTS:
            raise ValueError(f"game must be one of {sorted(GAME_DEFAULTS)}, got {game!r}")
        return cls(game=game, **{**GAME_DEFAULTS[game], **fields})

    @property
    def num_roles(self) -> int:
        return len(ROLE_NAMES[self.game])

    @property
    def steps(self) -> int:
        """``max_steps`` rounded up to a multiple of the number of roles (the buffer's length)."""
        r = self.num_roles
        return -(-self.max_steps // r) * r



# ------------------------------------------------------------------------------- the game adapter
class Game(NamedTuple):
    """What DMC needs to know about a game.

    ``features(state) -> bool[F] | uint8[F]``: the acting seat's view, as stored in the buffer;
    ``role(state) -> int32``: which network acts; ``action_features``: NumPy ``[num_actions_scored,
    G]`` table (the actions DMC chooses among are its rows, unless ``action_rows``); ``history``:
    ``(steps, size)``: the last ``steps * size`` features are a sequence for the LSTM (``(0, 0)``:
    none); ``outcome(final, totals) -> dict``: self-play stats (means over the batch) from the
    finished states and each game's rewards ``totals`` float[B, num_players].  Optional:
    ``lockstep`` (the role acting at step t is ``t % num_roles`` in every running game; False:
    roles are read per game and stored per decision); ``feature_scale`` (the network reads
    ``features / feature_scale``: uint8 features hold exact multiples of 1/scale);
    ``step_rewards(prev, next) -> float32[num_players]`` (the reward vector of a step; None: the
    env's ``next.rewards``); ``oracle(state) -> uint8[F_o]`` (hidden information appended to the
    features under oracle guiding, zeros when playing; None: no oracle); ``tick(prev, next) ->
    bool`` (the step ends a discount period: Tractor's tricks, for ``discount="trick"``);
    ``final_reward(final) -> float32[num_players]`` and ``pre_round`` (roles): under
    ``discount="trick"`` the decisions of the ``pre_round`` roles are trained on the final reward
    alone, undiscounted (the ShengJi+ report's targets for the phases before the tricks);
    ``action_rows(state) -> int32[num_actions]``: each action's row of ``action_features`` in
    this state (features that depend on the state, Tractor's dynamic encoding; None: action
    ``a`` is row ``a``).
    """

    env: Any
    role_names: tuple
    features: Callable
    role: Callable
    action_features: np.ndarray
    history: tuple
    outcome: Callable
    lockstep: bool = True
    feature_scale: float = 1.0
    step_rewards: Callable | None = None
    oracle: Callable | None = None
    tick: Callable | None = None
    final_reward: Callable | None = None
    pre_round: tuple = ()
    action_rows: Callable | None = None

    @property
    def num_roles(self) -> int:
        return len(self.role_names)

    @property
    def num_actions(self) -> int:
        """The actions DMC chooses among: ``0 .. num_actions - 1``."""
        if self.action_rows is None:
            return self.action_features.shape[0]
        return self.env.num_actions


def feature_rows(game: Game, states, idx):
    """The rows of ``game.action_features`` of the candidate actions ``idx`` [B, K] of a BATCH of
    states (``idx`` itself unless the game has ``action_rows``)."""
    if game.action_rows is None:
        return idx
    return jnp.take_along_axis(jax.vmap(game.action_rows)(states), idx, axis=1)


def observe(game: Game, states, keep=None):
    """The stored features of a BATCH of states: ``game.features``, then (with an oracle) the
    oracle features of the games where ``keep`` (bool[B]) is True and zeros elsewhere (None:
    zeros everywhere, as a trained player sees them)."""
    obs = jax.vmap(game.features)(states)
    if game.oracle is None:
        return obs
    extra = jax.vmap(game.oracle)(states)
    if keep is None:
        extra = jnp.zeros_like(extra)
    else:
        extra = jnp.where(keep[:, None], extra, jnp.zeros_like(extra))
    return jnp.concatenate([obs, extra.astype(obs.dtype)], axis=1)


# ---------------------------------------------------------------------- Tractor (ShengJi+)
ROLE_NAMES["tractor"] = ("declare", "bury", "chaodi", "play")  # one network per phase
TRACTOR_SCALE = 200  # observe's values are multiples of 1/200 (counts /2, points /200, tricks /25)


def tractor_action_table() -> np.ndarray:
    """bool[66, 88] static features of Tractor's actions: the action one-hot (66), then for the
    card actions 0..53 the suit (S H D C, joker: 5), the rank (2..A, XJ, DJ: 15) and the points
    (5; 10 or K: 2).  What is trump depends on the hand's level and trump suit, which the state
    features hold; the report's dynamic card encoding is part of ``observe``."""
    from cardjax.games import tractor

    n = tractor.NUM_ACTIONS
    t = np.arange(tractor.NUM_TYPES)
    suit = np.where(t < 52, t // 13, 4)
    rank = np.where(t < 52, t % 13, 13 + (t - 52))
    table = np.zeros((n, n + 5 + 15 + 2), bool)
    table[np.arange(n), np.arange(n)] = True
    table[t, n + suit] = True
    table[t, n + 5 + rank] = True
    table[t, n + 20] = (t < 52) & (t % 13 == 3)  # 5
    table[t, n + 21] = (t < 52) & ((t % 13 == 8) | (t % 13 == 11))  # 10, K
    return table


def tractor_dynamic_action_table() -> np.ndarray:
    """bool[13 * 5 * 66, 89] features of Tractor's actions in the dynamic card encoding: row
    ``a + 66 * (5 * level + trump)`` is action ``a`` at that level and trump.  The action one-hot
    (66; a card at its place in :data:`tractor_moves.DYN`), then for the card actions their
    effective suit (the plain suits in :data:`tractor_moves.SUIT_ORDER`, trump: 5), their rank in
    it (16 orders, :data:`tractor_moves.ORD`) and their points (5; 10 or K: 2)."""
    from cardjax.games import tractor
    from cardjax.games import tractor_moves as tm

    n, nt = tractor.NUM_ACTIONS, tractor.NUM_TYPES
    t = np.arange(nt)
    table = np.zeros((13, 5, n, n + 5 + 16 + 2), bool)
    for lv in range(13):
        for tr in range(5):
            row = table[lv, tr]
            row[np.arange(nt, n), np.arange(nt, n)] = True
            row[t, tm.DYN[lv, tr]] = True
            eff = tm.EFF[lv, tr, :nt]
            slot = np.argsort(tm.SUIT_ORDER[tr])[np.minimum(eff, 3)]  # a plain suit's place
            row[t, n + np.where(eff == tm.TRUMP, 4, slot)] = True
            row[t, n + 5 + tm.ORD[lv, tr, :nt] - 3] = True
            row[t, n + 21] = tm.POINTS[:nt] == 5
            row[t, n + 22] = tm.POINTS[:nt] == 10
    return table.reshape(13 * 5 * n, -1)


def tractor_trick_facts(state, dynamic: bool = False):
    """float32[59], public facts of the trick phase a network would otherwise have to work out
    from the card blocks (the report's state holds the unplayed cards too): the cards the acting
    seat has not seen /2 (54, :func:`cardjax.games.tractor.unseen_cards`; in the dynamic places
    if ``dynamic``), the seat holding the trick relative to it (4: self, next, partner,
    previous; zeros while no play is complete, :func:`cardjax.games.tractor.trick_holder`) and
    the points on the table /200 (1)."""
    from cardjax.games import tractor
    from cardjax.games import tractor_moves as tm

    me = state.current_player
    unseen = tractor.unseen_cards(state, me).astype(jnp.float32) / 2.0
    if dynamic:
        unseen = tractor.cards_to_dynamic(unseen, state.level, state.trump)
    holder = tractor.trick_holder(state, me)
    rel = (jnp.arange(4) == (holder - me) % 4) & (holder >= 0)
    points = jnp.sum(state.trick.astype(jnp.int32) * jnp.asarray(tm.POINTS)[:tractor.NUM_TYPES])
    return jnp.concatenate([unseen, rel.astype(jnp.float32),
                            (points / 200.0)[None].astype(jnp.float32)])


def tractor_game(env, point_reward: float = 0.0, oracle: bool = False,
                 dynamic: bool = False, trick_facts: bool = False) -> Game:
    """The Tractor adapter (ShengJi+; see the module docstring); ``dynamic``: the report's
    dynamic card encoding (:func:`cardjax.games.tractor.to_dynamic`,
    :func:`tractor_dynamic_action_table`); ``trick_facts``: the features end with the cards the
    seat has not seen (54), the seat holding the trick so far (4, relative one-hot) and the
    trick's points (1) (:func:`tractor_trick_facts`)."""
    from cardjax.games import tractor

    if env.name != "tractor":
        raise ValueError(f"tractor_game needs the tractor env, got {env.name!r}")
    table = tractor_dynamic_action_table() if dynamic else tractor_action_table()

    def quantize(x):
        return jnp.round(x * TRACTOR_SCALE).astype(jnp.uint8)

    def encode(x, state):
        return tractor.to_dynamic(x, state.level, state.trump) if dynamic else x

    def features(state):
        x = encode(env.observe(state, state.current_player), state)
        if trick_facts:
            x = jnp.concatenate([x, tractor_trick_facts(state, dynamic)])
        return quantize(x)

    def hidden(state):  # every hand relative to the acting seat, and the kitty
        full = env.observe_oracle(state, state.current_player)
        return quantize(encode(full, state)[tractor.OBS_SIZE:])

    def action_rows(state):
        return jnp.arange(tractor.NUM_ACTIONS) + tractor.NUM_ACTIONS * (5 * state.level
                                                                        + state.trump)

    def role(state):
        return jnp.minimum(state.phase, tractor.PLAY).astype(jnp.int32)

    def step_rewards(prev, nxt):  # the levels, and the points each seat's team took
        return nxt.rewards + point_reward * tractor.point_swing(prev, nxt).astype(jnp.float32)

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

    return Game(env, ROLE_NAMES["tractor"], features, role, table, (0, 0), outcome, lockstep=False,
                feature_scale=float(TRACTOR_SCALE), step_rewards=step_rewards,
                oracle=hidden if oracle else None, tick=tick, final_reward=final_reward,
                pre_round=(0, 1, 2),  # declare, bury, chaodi
                action_rows=action_rows if dynamic else None)


def doudizhu_game(env) -> Game:
    """The Dou Dizhu adapter (see the module docstring)."""
    from cardjax.games import doudizhu

    if env.name != "doudizhu" or getattr(env, "bidding", False):
        raise ValueError("DouZero plays Dou Dizhu without bidding (fixed landlord)")
    table = np.asarray(doudizhu.planes(jnp.asarray(doudizhu.COUNTS)), bool)  # [27472, 60]

    def features(state):
        return env.observe(state, state.current_player) > 0.5

    def role(state):
        return ((state.current_player - state.landlord) % 3).astype(jnp.int32)

    def outcome(final, totals):
        lord = jnp.sum(totals * (jnp.arange(3) == final.landlord[:, None]), axis=1)
        return {"landlord_wins": jnp.mean((lord > 0).astype(jnp.float32)),
                "landlord_reward": jnp.mean(lord)}

    return Game(env, ROLE_NAMES["doudizhu"], features, role, table,
                (doudizhu.HISTORY // 3, 3 * doudizhu.PLANES), outcome)


def gongzhu_action_table() -> np.ndarray:
    """bool[52, 73] Gongzhu action features: card one-hot (52), suit (4), rank (13), and the
    flags score card, SQ, DJ, C10 (the cards whose points the rules single out)."""
    from cardjax.games import gongzhu as gz

    cards = np.arange(gz.NUM_CARDS)
    special = np.stack([gz.IS_SCORE, cards == gz.SQ, cards == gz.DJ, cards == gz.C10], axis=1)
    return np.concatenate([np.eye(52, dtype=bool), np.eye(4, dtype=bool)[gz.SUIT],
                           np.eye(13, dtype=bool)[gz.RANK], special], axis=1)


def gongzhu_game(env) -> Game:
    """The Gongzhu adapter: one network for every seat (see the module docstring)."""
    if env.name != "gongzhu" or getattr(env, "exposure", False):
        raise ValueError("DMC plays Gongzhu without the exposure phase (52 card actions)")

    def features(state):
        # observe is 0/1 (bool parts cast to float32): the bool cast keeps all of it
        return env.observe(state, state.current_player) > 0.5

    def role(state):
        return jnp.zeros((), jnp.int32)

    def outcome(final, totals):
        margin = totals[:, 0]  # team {0, 2}'s reward = its points minus the other team's
        return {"margin": jnp.mean(margin), "margin_abs": jnp.mean(jnp.abs(margin))}

    return Game(env, ROLE_NAMES["gongzhu"], features, role, gongzhu_action_table(), (0, 0),
                outcome)


def make_game(cfg: Config, env=None) -> Game:
    if cfg.game == "tractor":
        env = env or cardjax.make("tractor", throw_penalty=cfg.throw_penalty)
        return tractor_game(env, cfg.point_reward, cfg.oracle_iterations > 0,
                            cfg.encoding == "dynamic", cfg.trick_facts)
    if cfg.game == "doudizhu":
        env = env or cardjax.make("doudizhu", reward=cfg.reward)
        return doudizhu_game(env)
    if cfg.game == "gongzhu":
        return gongzhu_game(env or cardjax.make("gongzhu"))
    raise ValueError(f"no DMC adapter for {cfg.game!r}")


# -------------------------------------------------------------------------------------- helpers
def compact(mask: Array, k: int):
    """The legal actions of ``mask`` (bool[N]) in ``k`` slots.

    Returns ``(indices int32[k], valid bool[k], overflow bool)``: the first ``min(count, k)``
    legal action ids in increasing order, then padding (``valid`` False, index ``N - 1`` so the
    indices stay sorted); ``overflow`` is True when more than ``k`` actions are legal (only the
    first ``k`` are kept).  One state; vmap for a batch.

    How: the mask is packed into 32-bit words (their popcounts and a prefix sum over ~860 words
    instead of 27,472 entries), the word of the j-th legal action is found by a binary search and
    the bit inside it by five popcount halvings.  On CPU this is 6-8x faster than a prefix sum of
    the whole mask and a search (3 ms instead of 21 ms for 64 states, k = 384).
    """
    mask = jnp.asarray(mask, bool)
    n = mask.shape[-1]
    nw = -(-n // 32)
    bits = jnp.left_shift(jnp.uint32(1), jnp.arange(32, dtype=jnp.uint32))
    padded = jnp.pad(mask, (0, nw * 32 - n)).reshape(nw, 32)
    words = jnp.sum(jnp.where(padded, bits, jnp.uint32(0)), axis=1, dtype=jnp.uint32)
    counts = jax.lax.population_count(words).astype(jnp.int32)
    cum = jnp.cumsum(counts)
    total = cum[-1]
    j = jnp.arange(1, k + 1, dtype=jnp.int32)
    word = jnp.minimum(jnp.searchsorted(cum, j, side="left"), nw - 1)
    rank = j - (cum[word] - counts[word])  # 1-based rank of the wanted bit inside its word
    w = words[word]
    pos = jnp.zeros(k, jnp.int32)
    for width in (16, 8, 4, 2, 1):
        low = jax.lax.population_count(w & jnp.uint32((1 << width) - 1)).astype(jnp.int32)
        up = rank > low
        rank = jnp.where(up, rank - low, rank)
        w = jnp.where(up, jnp.right_shift(w, jnp.uint32(width)), w)
        pos = pos + jnp.where(up, width, 0)
    valid = jnp.arange(k) < total
    idx = jnp.where(valid, word * 32 + pos, n - 1)
    return jnp.minimum(idx, n - 1).astype(jnp.int32), valid, total > k


def returns(rewards: Array, seats: Array, alive: Array, finished: Array, gamma: float,
            ticks: Array | None = None, values: Array | None = None,
            bootstrap: Array | None = None, lam: float = 1.0, outcome: Array | None = None):
    """Monte-Carlo (or lambda-) targets of an episode batch.

    ``rewards`` float[T, B, P]: the reward vector after each step; ``seats`` int[T, B]: who acted;
    ``alive`` bool[T, B]: the game was running before the step (a real decision);
    ``finished`` bool[B]: the game ended within the T steps.  Returns ``(targets, weights)``
    float32[T, B]: ``G_t[seat_t]`` with ``G_t = r_t + gamma G_{t+1}``, and 1 for real decisions of
    finished games, 0 for padding and for truncated games.  With ``ticks`` (bool[T, B]) the
    discount applies only after the steps where it is True (``G_t = r_t + G_{t+1}`` elsewhere;
    Tractor's ``discount="trick"``: the steps that end a trick).

    With ``values`` float[T, B] (the actors' Q of the action taken) and ``bootstrap`` bool[T, B]
    (where that Q is known: decisions with a choice), ``lam < 1`` gives lambda-returns: a seat's
    return looks back through its own later decisions t' as ``lam G_t' + (1 - lam) Q_t'``
    (a decision without a Q passes ``G_t'`` on whole); ``lam = 1`` is Monte-Carlo.

    With ``outcome`` float[T, B, P] (the part of ``rewards`` that is the game's final outcome,
    and ``ticks``) the target is the ShengJi+ report's (4.4) ``r_t + gamma^(T - k) R``: the
    rewards of the decision's own trick ``k`` (from the decision to the trick's end) plus the
    final outcome ``R`` discounted once per trick after it; later tricks' rewards do not count.
    """
    own = seats[..., None].astype(jnp.int32) == jnp.arange(rewards.shape[-1])  # [T, B, P]
    if outcome is not None:
        if ticks is None or lam != 1.0:
            raise ValueError("the per-trick target needs ticks and lam = 1")
        targets = _trick_targets(rewards, outcome, own, ticks, gamma)
    else:
        disc = (jnp.full(seats.shape, gamma, jnp.float32) if ticks is None
                else jnp.where(ticks, gamma, 1.0))
        if values is None or lam == 1.0:
            values = jnp.zeros(seats.shape, jnp.float32)
            bootstrap = jnp.zeros(seats.shape, bool)

        def back(g, x):
            r, d, mine, v, b = x
            g = r + d[..., None] * g
            target = jnp.sum(jnp.where(mine, g, 0.0), axis=-1)
            mixed = lam * target + (1.0 - lam) * v
            return jnp.where(mine & b[..., None], mixed[..., None], g), target

        _, targets = jax.lax.scan(back, jnp.zeros_like(rewards[0]),
                                  (rewards, disc, own, values, bootstrap & alive), reverse=True)
    weights = (alive & finished[None, :]).astype(jnp.float32)
    return jnp.where(weights > 0, targets, 0.0).astype(jnp.float32), weights


def _trick_targets(rewards, outcome, own, ticks, gamma):
    """float[T, B] of :func:`returns` with ``outcome``: the rest of the decision's trick's
    rewards plus the outcome discounted per later trick, of the acting seat (``own``)."""

    def back(carry, x):
        trick, final = carry  # the rest of the current trick's rewards; the discounted outcome
        r, o, tick, mine = x
        points = r - o
        trick = jnp.where(tick[..., None], points, points + trick)
        final = jnp.where(tick[..., None], gamma * final, final) + o
        return (trick, final), jnp.sum(jnp.where(mine, trick + final, 0.0), axis=-1)

    zero = jnp.zeros_like(rewards[0])
    return jax.lax.scan(back, (zero, zero), (rewards, outcome, ticks, own), reverse=True)[1]


# -------------------------------------------------------------------------------------- network
class QNet(nn.Module):
    """``Q(obs [..., F], actions [..., K, G]) -> [..., K]``: state trunk once, head per candidate.

    ``embed(obs) -> [..., width]`` and ``head(emb, actions) -> [..., K]`` are the two halves
    (``apply(params, obs, method="embed")``), so a caller can score extra candidates of some
    states without running the trunk again.
    """

    history_steps: int = 5
    history_size: int = 180
    lstm: int = 128
    width: int = 256
    depth: int = 2
    head_width: int = 256
    head_depth: int = 2
    obs_scale: float = 1.0  # the network reads obs / obs_scale (uint8 features)

    def setup(self):
        if self.history_steps:
            self.history = nn.RNN(nn.OptimizedLSTMCell(self.lstm))
        self.trunk = [nn.Dense(self.width) for _ in range(self.depth)]
        self.head_state = nn.Dense(self.head_width)
        self.head_action = nn.Dense(self.head_width, use_bias=False)
        self.head_hidden = [nn.Dense(self.head_width) for _ in range(self.head_depth - 1)]
        self.q = nn.Dense(1)

    def embed(self, obs):
        x = obs.astype(jnp.float32)
        if self.obs_scale != 1.0:
            x = x / self.obs_scale
        if self.history_steps:
            cut = x.shape[-1] - self.history_steps * self.history_size
            hist = x[..., cut:].reshape(x.shape[:-1] + (self.history_steps, self.history_size))
            h = self.history(hist)[..., -1, :]
            x = jnp.concatenate([x[..., :cut], h], axis=-1)
        for layer in self.trunk:
            x = nn.relu(layer(x))
        return x

    def head_in(self, emb):
        """The state's half of the head's first layer, ``[..., head_width]`` (once per state)."""
        return self.head_state(emb)

    def head_out(self, hs, actions):
        """Q of the candidates ``actions [..., K, G]`` of states whose :meth:`head_in` is
        ``hs [..., head_width]`` -> ``[..., K]``."""
        h = nn.relu(hs[..., None, :] + self.head_action(actions.astype(jnp.float32)))
        for layer in self.head_hidden:
            h = nn.relu(layer(h))
        return self.q(h)[..., 0]

    def head(self, emb, actions):
        return self.head_out(self.head_in(emb), actions)

    def __call__(self, obs, actions):
        return self.head(self.embed(obs), actions)


def make_net(cfg: Config, game: Game) -> QNet:
    steps, size = game.history
    return QNet(history_steps=steps, history_size=size, lstm=cfg.lstm, width=cfg.width,
                depth=cfg.depth, head_width=cfg.head_width, head_depth=cfg.head_depth,
                obs_scale=game.feature_scale)


def make_optimizer(cfg: Config) -> optax.GradientTransformation:
    """Clip at global norm ``clip``, then RMSProp (PyTorch's eps placement, as DouZero)."""
    return optax.chain(optax.clip_by_global_norm(cfg.clip),
                       optax.rmsprop(cfg.lr, decay=cfg.alpha, eps=cfg.rms_eps,
                                     eps_in_sqrt=False))


def role_params(params, role):
    """The params of one role from the stacked ``[num_roles, ...]`` pytree."""
    return jax.tree_util.tree_map(lambda p: p[role], params)


def q_values(net: QNet, game: Game, params, state, k: int):
    """Greedy-play helper for ONE state: ``(indices, valid, q)`` of its legal candidates under
    the network of the state's role (all roles' nets run and the role's row is taken, so the
    params are not gathered per game under ``vmap``)."""
    idx, valid, _ = compact(state.legal_action_mask[:game.num_actions], k)
    batch = jax.tree_util.tree_map(lambda x: x[None], state)
    afeat = jnp.asarray(game.action_features)[feature_rows(game, batch, idx[None])[0]]
    obs = observe(game, batch)[0]
    q_all = jax.vmap(net.apply, in_axes=(0, None, None))(params, obs, afeat)  # [R, k]
    q = q_all[game.role(state)]
    return idx, valid, jnp.where(valid, q, -jnp.inf)


def pool_sizes(k: int, k_fast: int) -> tuple:
    """The candidate pools of :func:`score_slots`, in candidates per game: ``k_fast``, twice
    that, ... below ``k``, then ``k`` (every slot of every game); ``k_fast = 0``: ``k`` alone."""
    if not k_fast or k_fast >= k:
        return (k,)
    sizes, c = [], k_fast
    while c < k:
        sizes.append(c)
        c *= 2
    return tuple(sizes) + (k,)


def score_slots(net: QNet, table, params, obs, idx, count, sizes: tuple, groups: int = 1):
    """Q of the ``K`` candidate slots ``idx`` [B, K] (rows of ``table``, :func:`feature_rows`) of
    a batch of states ``obs`` [B, F] with ``count`` [B] legal actions, under one network's
    ``params``.  Returns ``(q [B, K], rows)``:
    the slots beyond a state's count, and the slot of a state with one legal action, get -inf or
    some value (the caller masks them with the slots' validity; a row of -inf picks slot 0, the
    one legal action); ``rows``, the candidates the head scored.

    A state with one legal action needs no score (Tractor: 96% of the declaration decisions
    and 46% of all; Dou Dizhu 39%, Gongzhu 22%, in random play), and when no state has a choice
    nothing runs (``lax.cond``).  Otherwise the trunk runs once per state, and so does the
    state's half of the head's first layer.  The rest of the head scores a POOL: the candidates
    of the states with a choice, packed one after the other (state 0's ``count[0]`` slots, then
    state 1's, ...) into the smallest of the ``sizes`` (:func:`pool_sizes`, candidates per
    game, times the games) that holds them all (``lax.switch``; the largest, ``K``, scores every
    slot of every state without packing).  So every legal action of a choice is scored -- the
    same numbers as scoring all ``K`` slots everywhere -- and the head's work follows the
    number of legal moves (Dou Dizhu: 5.6 per decision on average, 80 at the landlord's first
    lead, at most ~450), within a factor 2.

    ``groups``: the batch is split into this many equal groups of consecutive states, each
    packed into its own pool (data parallel: one group per device, so no candidate crosses a
    device); the pool size is chosen for the fullest group.
    """
    B, K = idx.shape
    count = jnp.where(count > 1, jnp.minimum(count, K), 0)  # one legal action: nothing to score

    def score():
        hs = net.apply(params, net.apply(params, obs, method="embed"), method="head_in")

        def dense():
            return net.apply(params, hs, table[idx], method="head_out")

        if len(sizes) == 1:
            return dense(), jnp.int32(B * K)
        b = B // groups
        cnt = count.reshape(groups, b)
        need = jnp.max(jnp.sum(cnt, axis=1))

        def pooled(cap):
            def group(hs_g, idx_g, cnt_g):
                ends = jnp.cumsum(cnt_g)
                # the state of candidate p: how many states end at or before p (a histogram of
                # the ends and a prefix sum -- a search without a search)
                owner = jnp.cumsum(jnp.zeros(cap + 1, jnp.int32).at[jnp.minimum(ends, cap)]
                                   .add(1))
                p = jnp.arange(cap)
                g = jnp.minimum(owner[:cap], b - 1)
                slot = p - (ends[g] - cnt_g[g])
                used = p < ends[-1]
                q = net.apply(params, hs_g[g],
                              table[idx_g[g, jnp.where(used, slot, 0)]][:, None],
                              method="head_out")[:, 0]
                # unused pool rows go to state b (out of range), which the scatter drops
                return jnp.full((b, K), -jnp.inf, q.dtype).at[jnp.where(used, g, b), slot].set(
                    q, mode="drop")

            return jax.vmap(group)(hs.reshape(groups, b, -1), idx.reshape(groups, b, K),
                                   cnt).reshape(B, K)

        caps = [c * b for c in sizes[:-1]]
        branch = jnp.sum(need > jnp.asarray(caps, jnp.int32))  # the smallest pool that fits
        q = jax.lax.switch(branch, [lambda c=c: pooled(c) for c in caps] + [dense])
        return q, jnp.asarray([c * groups for c in caps] + [B * K], jnp.int32)[branch]

    return jax.lax.cond(jnp.any(count > 0), score,
                        lambda: (jnp.full((B, K), -jnp.inf), jnp.int32(0)))


def score_by_role(net: QNet, table, params, obs, idx, count, roles, num_roles: int,
                  sizes: tuple, groups: int = 1):
    """:func:`score_slots` of a batch whose acting roles (int[B]) differ: each role's network
    runs only when some game of that role has a choice (:func:`score_slots`'s ``lax.cond``, so
    the params are indexed, not gathered per game) and pools only its games' candidates; every
    game takes its role's row.  Returns ``(q, rows)``."""
    q = jnp.full(idx.shape, -jnp.inf)
    rows = jnp.int32(0)
    for r in range(num_roles):
        mine = roles == r
        q_r, rows_r = score_slots(net, table, role_params(params, r), obs, idx,
                                  jnp.where(mine, count, 0), sizes, groups)
        q = jnp.where(mine[:, None], q_r, q)
        rows = rows + rows_r
    return q, rows


def greedy_actions(net: QNet, game: Game, params, states, k: int, k_fast: int = 4):
    """The greedy actions of a BATCH of states (leading axis B) whose acting roles may differ:
    each role's network scores the legal candidates (in :func:`score_slots`'s pools) of every
    state and each state takes its role's best.  Returns int32[B]."""
    table = jnp.asarray(game.action_features)
    mask = states.legal_action_mask[:, :game.num_actions]
    count = jnp.where(states.terminated, 0, jnp.sum(mask, axis=1, dtype=jnp.int32))
    idx, valid, _ = jax.vmap(compact, in_axes=(0, None))(mask, k)
    obs = observe(game, states)
    roles = jax.vmap(game.role)(states)
    q, _ = score_by_role(net, table, params, obs, feature_rows(game, states, idx), count, roles,
                         game.num_roles, pool_sizes(k, k_fast))
    best = jnp.argmax(jnp.where(valid, q, -jnp.inf), axis=1)
    return jnp.take_along_axis(idx, best[:, None], axis=1)[:, 0]


# ----------------------------------------------------------------------------------- train state
@struct.dataclass
class Decisions:
    """Training decisions; leading axes ``[slots, steps, num_envs]`` in the buffer."""

    obs: Array  # bool or uint8 [..., F] the acting seat's features
    action: Array  # int32[...] the action taken: its row of the game's action_features
    target: Array  # float32[...] Monte-Carlo return of the acting seat
    weight: Array  # float32[...] 1 = real decision of a finished game, 0 = padding
    role: Array | None = None  # int32[...] the network that acted (None: lockstep, by step)


@struct.dataclass
class TrainState:
    params: Any  # leading axis num_roles on every leaf
    opt_state: Any  # idem
    key: Array
    buffer: Any  # Decisions [replay, steps, num_envs, ...] of previous iterations, or None
    iteration: Array


def state_shardings(mesh: Mesh, state: TrainState):
    """Buffer split on its game axis (2), everything else replicated."""
    return sharding.train_state_shardings(mesh, state, buffer_axis=2)


@dataclasses.dataclass(frozen=True)
class Train:
    """What :func:`make_train` builds: ``init(key)``, the jitted ``step(state)``, and its jitted
    parts for tests and tools: ``self_play(params, key, iteration=0) -> (Decisions [steps,
    num_envs], stats)``, ``update(params, opt_state, batch, weights) -> (params, opt_state,
    loss)`` for one role's params and a batch ``(obs, action, target)``, ``loss(params, batch,
    weights)``,
    ``learn(params, opt_state, Decisions [slots, steps, num_envs], key) -> (params, opt_state,
    metrics)`` for all roles."""

    init: Any
    step: Any
    net: QNet
    game: Game
    env: Any
    config: Config
    self_play: Any
    update: Any
    loss: Any
    learn: Any = None  # learn(params, opt_state, Decisions [slots, T, B], key) -> (p, o, metrics)


def make_train(cfg: Config, mesh: Mesh | None = None, env=None) -> Train:
    """``Train`` for DMC on ``cfg.game``; ``step`` is jitted (see the module docstring)."""
    game = make_game(cfg, env)
    env = game.env
    if mesh is not None and cfg.num_envs % mesh.devices.size:
        raise ValueError(f"num_envs={cfg.num_envs} must be a multiple of the "
                         f"{mesh.devices.size} devices")
    net = make_net(cfg, game)
    tx = make_optimizer(cfg)
    R, T, B, K = game.num_roles, cfg.steps, cfg.num_envs, cfg.k
    table = jnp.asarray(game.action_features)
    n_actions = game.num_actions
    one_obs = jax.eval_shape(
        lambda k: observe(game, jax.tree_util.tree_map(lambda x: x[None], env.init(k)))[0],
        jax.random.PRNGKey(0))
    F, obs_dtype = int(one_obs.shape[0]), one_obs.dtype  # bool (Dou Dizhu) or uint8 (Tractor)
    lockstep = game.lockstep
    ticking = cfg.discount == "trick"  # discount per trick (game.tick), not per step
    bootstrapping = cfg.lam < 1.0  # lambda-returns: keep the actors' Q of the moves taken
    choosing = bootstrapping or not cfg.train_forced  # keep which decisions had a choice
    per_trick = cfg.target == "trick"  # the report's targets: own trick + discounted outcome

    def init_one(key):
        return net.init(key, jnp.zeros((1, F), obs_dtype),
                        jnp.zeros((1, 1, table.shape[1]), bool))

    def empty(lead):
        return Decisions(obs=jnp.zeros(lead + (F,), obs_dtype),
                         action=jnp.zeros(lead, jnp.int32),
                         target=jnp.zeros(lead, jnp.float32), weight=jnp.zeros(lead, jnp.float32),
                         role=None if lockstep else jnp.zeros(lead, jnp.int32))

    def init(key) -> TrainState:
        k_net, key = jax.random.split(key)
        params = jax.vmap(init_one)(jax.random.split(k_net, R))
        buffer = empty((cfg.replay, T, B)) if cfg.replay else None
        state = TrainState(params=params, opt_state=jax.vmap(tx.init)(params), key=key,
                           buffer=buffer, iteration=jnp.int32(0))
        if mesh is not None:
            state = jax.device_put(state, state_shardings(mesh, state))
        return state

    # ------------------------------------------------------------------ actors
    sizes = pool_sizes(K, cfg.k_fast)
    groups = 1 if mesh is None else mesh.devices.size  # one candidate pool per device

    def score(p, obs, idx, count):
        return score_slots(net, table, p, obs, idx, count, sizes, groups)

    def oracle_keep(iteration):
        """Oracle guiding: the probability of showing the hidden cards to a game at a step
        falls linearly from 1 to 0 over the first ``oracle_iterations`` iterations."""
        n = max(cfg.oracle_iterations, 1)
        return jnp.clip(1.0 - iteration.astype(jnp.float32) / n, 0.0, 1.0)

    def act_scores(params, t, obs, idx, count, alive, roles):
        """Q of every game's candidates: lockstep, the one network of role ``t % R`` for the
        whole batch; otherwise each game's role's network (:func:`score_by_role`)."""
        if lockstep:
            return score(role_params(params, t % R), obs, idx, jnp.where(alive, count, 0))
        return score_by_role(net, table, params, obs, idx, jnp.where(alive, count, 0),
                             jnp.where(alive, roles, -1), R, sizes, groups)

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
        delta = oracle_keep(iteration)
        stats0 = dict(overflow=jnp.int32(0), max_legal=jnp.int32(0),
                      role_mismatch=jnp.int32(0), explored=jnp.int32(0),
                      scored=jnp.float32(0))

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
            alive = ~states.terminated
            mask = states.legal_action_mask[:, :n_actions]
            count = jnp.sum(mask, axis=1, dtype=jnp.int32)
            idx, valid, overflow = jax.vmap(compact, in_axes=(0, None))(mask, K)
            obs = observe(game, states, keep)
            roles = jax.vmap(game.role)(states)
            f_idx = feature_rows(game, states, idx)
            # finished games (all-True masks) need no scoring: count 0 keeps them out of the pool
            q, rows = act_scores(params, t, obs, f_idx, count, alive, roles)
            greedy = jnp.argmax(jnp.where(valid, q, -jnp.inf), axis=1)
            rand = jax.random.randint(k_rand, (B,), 0, jnp.maximum(jnp.minimum(count, K), 1))
            explore = jax.random.uniform(k_eps, (B,)) < cfg.epsilon
            slot = jnp.where(explore, rand, greedy)
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
            bufs = {n: jax.lax.dynamic_update_index_in_dim(bufs[n], row[n], t, 0) for n in bufs}
            stats = dict(
                overflow=stats["overflow"] + jnp.sum(alive & overflow, dtype=jnp.int32),
                max_legal=jnp.maximum(stats["max_legal"], jnp.max(jnp.where(alive, count, 0))),
                role_mismatch=stats["role_mismatch"] + jnp.sum(mismatch, dtype=jnp.int32),
                explored=stats["explored"] + jnp.sum(alive & explore, dtype=jnp.int32),
                scored=stats["scored"] + rows.astype(jnp.float32),
            )
            return t + 1, states, key, bufs, stats

        t, final, _, bufs, stats = jax.lax.while_loop(
            cond, body, (jnp.int32(0), states, k_play, bufs, stats0))
        finished = final.terminated
        if game.final_reward is not None:
            final_r = jax.vmap(game.final_reward)(final) * cfg.reward_scale  # [B, P]
        outcome = None
        if per_trick:  # the final reward came with each game's last step
            alive = bufs["alive"]
            last = alive & ~jnp.concatenate([alive[1:], jnp.zeros_like(alive[:1])])
            outcome = jnp.where((last & finished)[..., None], final_r, 0.0)
        target, weight = returns(bufs["rewards"] * cfg.reward_scale, bufs["seat"], bufs["alive"],
                                 finished, cfg.gamma, bufs.get("tick"), bufs.get("q"),
                                 bufs.get("scored"), cfg.lam, outcome)
        if not cfg.train_forced:  # a forced move's Q chooses nothing
            weight = weight * bufs["scored"]
            target = jnp.where(weight > 0, target, 0.0)
        if ticking and game.pre_round:
            # the report: the phases before the tricks learn the final reward, undiscounted
            seat_r = jnp.take_along_axis(jnp.broadcast_to(final_r, bufs["rewards"].shape),
                                         bufs["seat"][..., None].astype(jnp.int32), axis=-1)[..., 0]
            pre = jnp.isin(bufs["role"], jnp.asarray(game.pre_round))
            target = jnp.where(pre & (weight > 0), seat_r, target)
        decisions = sharding.constrain(
            Decisions(bufs["obs"], bufs["action"], target, weight, bufs.get("role")), mesh, 1)
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
        return decisions, stats

    # ------------------------------------------------------------------ learner
    def loss_fn(p, batch, weights):
        obs, action, target = batch
        q = net.apply(p, obs, table[action][:, None, :])[:, 0]
        w = weights.astype(jnp.float32)
        return jnp.sum(w * (q - target) ** 2) / jnp.maximum(jnp.sum(w), 1.0)

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
                batch = (data.obs[idx], data.action[idx], data.target[idx])
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
        of the others zeroed; the roles run one after the other, so each role's loop runs as
        many updates as it has decisions (under ``vmap`` every role would run the largest
        count)."""
        flat = jax.tree_util.tree_map(lambda x: x.reshape((-1,) + x.shape[3:]), data)
        keys = jax.random.split(key, R)
        new_p, new_o, lsums, wsums = [], [], [], []
        for r in range(R):
            mine = flat.replace(weight=flat.weight * (flat.role == r))
            p, o, lsum, wsum = learn_role(role_params(params, r), role_params(opt_state, r),
                                          mine, keys[r])
            new_p.append(p)
            new_o.append(o)
            lsums.append(lsum)
            wsums.append(wsum)
        stack = lambda xs: jax.tree_util.tree_map(lambda *x: jnp.stack(x), *xs)  # noqa: E731
        lsum, wsum = jnp.stack(lsums), jnp.stack(wsums)
        metrics = {f"loss_{name}": lsum[r] / jnp.maximum(wsum[r], 1.0)
                   for r, name in enumerate(game.role_names)}
        metrics["loss"] = jnp.sum(lsum) / jnp.maximum(jnp.sum(wsum), 1.0)
        return stack(new_p), stack(new_o), metrics

    def step(state: TrainState):
        key, k_play, k_learn = jax.random.split(state.key, 3)
        decisions, stats = self_play(state.params, k_play, state.iteration)
        if state.buffer is None:
            data, buffer = jax.tree_util.tree_map(lambda x: x[None], decisions), None
        else:
            data = jax.tree_util.tree_map(lambda new, old: jnp.concatenate([new[None], old]),
                                          decisions, state.buffer)
            buffer = jax.tree_util.tree_map(lambda x: x[:-1], data)
        params, opt_state, metrics = learn(state.params, state.opt_state, data, k_learn)
        frames = jnp.sum(decisions.weight)
        metrics = dict(metrics, **stats, frames=frames,
                       overflow_rate=stats["overflow"] / jnp.maximum(stats["decisions"], 1),
                       target_abs=jnp.sum(decisions.weight * jnp.abs(decisions.target))
                       / jnp.maximum(frames, 1.0))
        new = TrainState(params=params, opt_state=opt_state, key=key, buffer=buffer,
                         iteration=state.iteration + 1)
        return new, metrics

    if mesh is None:
        jit_step = jax.jit(step)
    else:
        abstract = jax.eval_shape(init, jax.random.PRNGKey(0))
        shardings = state_shardings(mesh, abstract)
        jit_step = jax.jit(step, in_shardings=(shardings,),
                           out_shardings=(shardings, NamedSharding(mesh, P())))
    return Train(init=init, step=jit_step, net=net, game=game, env=env, config=cfg,
                 self_play=jax.jit(self_play), update=jax.jit(update), loss=jax.jit(loss_fn),
                 learn=jax.jit(learn))


# ------------------------------------------------------------------------- frames/s for the runner
_TRAINS: dict = {}


def cached_train(cfg: Config, mesh: Mesh | None = None) -> Train:
    """:func:`make_train` memoized on ``(cfg, mesh devices)`` (with the game's default env): the
    same jitted step, so the runner's compile cache serves a second run in the same process."""
    key = (cfg, None if mesh is None else tuple(d.id for d in mesh.devices.flat))
    if key not in _TRAINS:
        _TRAINS[key] = make_train(cfg, mesh)
    return _TRAINS[key]
