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
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from cardjax import registry
from cardjax.games.tractor import rule as tractor_rule
from cardjax.cli import boolean, non_negative_float
from cardjax.gate import gated
from cardjax.games.tractor import env as tractor
from cardjax.games.tractor import state_facts
from cardjax.games.tractor import moves as tm
from cardjax.games.tractor import leads as tl
from cardjax.games.tractor import observe as tractor_observe
from cardjax.nets.dmc.acting import compact
from cardjax.nets.dmc.action_table import with_flags
from cardjax.nets.dmc.adapter import Adapter, Game

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


def action_table() -> np.ndarray:
    """bool[66, 88] static features of the actions: the action one-hot (66), then for the card
    actions 0..53 the suit (S H D C, joker: 5), the rank (2..A, XJ, DJ: 15) and the points
    (5; 10 or K: 2).  What is trump depends on the hand's level and trump suit, which the state
    features hold."""
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


def dynamic_action_table() -> np.ndarray:
    """bool[13 * 5 * 66, 89] features of the actions in the dynamic card encoding: row
    ``a + 66 * (5 * level + trump)`` is action ``a`` at that level and trump.  The action one-hot
    (66; a card at its place in :data:`~cardjax.games.tractor.moves.DYN`), then for the card actions their
    effective suit (the plain suits in :data:`~cardjax.games.tractor.moves.SUIT_ORDER`, trump: 5), their rank in
    it (16 orders, :data:`~cardjax.games.tractor.moves.ORD`) and their points (5; 10 or K: 2)."""
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


def trick_facts(state, dynamic: bool = False):
    """float32[59], public facts of the trick phase a network would otherwise have to work out
    from the card blocks: the cards the acting seat has not seen /2 (54, in the dynamic places
    if ``dynamic``), the seat holding the trick relative to it (4: self, next, partner, previous;
    zeros while no play is complete) and the points on the table /200 (1)."""
    me = state.current_player
    unseen = state_facts.unseen_cards(state, me).astype(jnp.float32) / 2.0
    if dynamic:
        unseen = tractor_observe.cards_to_dynamic(unseen, state.level, state.trump)
    holder = state_facts.trick_holder(state)
    rel = (jnp.arange(4) == (holder - me) % 4) & (holder >= 0)
    points = state_facts.table_points(state)
    return jnp.concatenate([unseen, rel.astype(jnp.float32),
                            (points / 200.0)[None].astype(jnp.float32)])


UNIT_FLAGS = 4  # a pair; a tractor of 2, 3, 4 or more pairs
UNIT_ROWS = tractor.NUM_ACTIONS + tractor.NUM_TYPES * UNIT_FLAGS  # an action table's rows, units
THROW_FLAGS = 2  # the boss cards of a suit; the whole suit


def unit_row_count(throws: bool = False) -> int:
    """Rows per context of :func:`with_units`'s table."""
    return UNIT_ROWS + (tl.NUM_THROWS if throws else 0)


def with_units(table: np.ndarray, contexts: int = 1, throws: bool = False) -> np.ndarray:
    """``table`` [contexts * 66, G] -> [contexts * UNIT_ROWS, G + 4]: per context, the 66 rows,
    then a pair of each card type (its card's row, flag 0), then a tractor topped by each type of
    2, 3 and 4 or more pairs (its top card's row, flag 1, 2 or 3).  With ``throws``, two more
    flags (a throw of a suit's boss cards; of a whole suit) and ten more rows per context: the
    two throws in each suit's place, the suit column of the table's card rows (``table``'s
    column 66 + place: the dynamic encoding's plain suits in their order, then trump; the static
    one's suits, the jokers' column for trump)."""
    n, nt = tractor.NUM_ACTIONS, tractor.NUM_TYPES
    base = table.reshape(contexts, n, table.shape[1])
    rows_per = unit_row_count(throws)
    flags = UNIT_FLAGS + (THROW_FLAGS if throws else 0)
    out = np.zeros((contexts, rows_per, table.shape[1] + flags), table.dtype)
    out[:, :n, :table.shape[1]] = base
    for flag in range(UNIT_FLAGS):
        rows = slice(n + nt * flag, n + nt * (flag + 1))
        out[:, rows, :table.shape[1]] = base[:, :nt]
        out[:, rows, table.shape[1] + flag] = 1
    if throws:
        for kind in range(THROW_FLAGS):
            for place in range(5):
                row = UNIT_ROWS + 5 * kind + place
                out[:, row, n + place] = 1
                out[:, row, table.shape[1] + UNIT_FLAGS + kind] = 1
    return out.reshape(contexts * rows_per, -1)


def throw_places(state, dynamic: bool):
    """int32[5]: each effective suit's place among the throw rows of :func:`with_units` (the
    dynamic encoding's order of the plain suits, then trump; or the suits as they are)."""
    e = jnp.arange(5)
    if not dynamic:
        return e
    order = jnp.asarray(np.argsort(tm.SUIT_ORDER, axis=1))[state.trump]  # suit -> place
    return jnp.where(e == tm.TRUMP, 4, order[jnp.minimum(e, 3)]).astype(jnp.int32)


def unit_rows(state, throws: bool = False, dynamic: bool = False):
    """int32[num_actions]: each action of the whole-unit view (``throws``: with its throws) its
    row of :func:`with_units`'s table (in one context)."""
    a = jnp.arange(tl.NUM_ACTIONS)
    top = tl.unit_tops(state)
    flag = jnp.clip(jnp.asarray(tl.UNIT_PAIRS), 2, 4) - 1  # tractors: 1, 2, 3
    flag = jnp.where(a < tl.TRACTOR0, 0, flag)
    rows = jnp.where(a < tl.PAIR0, a, tractor.NUM_ACTIONS + tractor.NUM_TYPES * flag + top)
    if not throws:
        return rows
    places = throw_places(state, dynamic)
    return jnp.concatenate([rows, UNIT_ROWS + places, UNIT_ROWS + 5 + places])


def lead_boss(state):
    """bool[tractor_leads.NUM_ACTIONS]: at a trick's start, the leads (singles, pairs, tractors)
    that no card the seat has not seen can beat in their suit -- no unseen card (pair, for a pair
    or a tractor) above the unit's top -- and, in a side suit, that no opponent has shown void."""
    me = state.current_player
    eff, order, _ = tm.context(state.level, state.trump)
    eff, order = eff[:tractor.NUM_TYPES], order[:tractor.NUM_TYPES]
    unseen = state_facts.unseen_cards(state, me)
    boss1, boss2 = tm.unbeaten(unseen, eff, order)
    top = jnp.minimum(tl.unit_tops(state), tractor.NUM_TYPES - 1)
    paired = jnp.asarray(tl.UNIT_PAIRS) > 0
    boss = jnp.where(paired, boss2[top], boss1[top])
    opp_void = state.voids[(me + 1) % 4] | state.voids[(me + 3) % 4]
    ruffable = (eff[top] != tm.TRUMP) & opp_void[eff[top]]
    a = jnp.arange(tl.NUM_ACTIONS)
    lead = (a < tractor.NUM_TYPES) | (a >= tl.PAIR0)
    return boss & ~ruffable & lead & tl.lead_start(state)


def throw_boss(state):
    """bool[tractor_leads.NUM_THROWS]: at a trick's start, the throws no unseen cards could make
    fail (:func:`~cardjax.games.tractor.leads.throw_safe`) that no opponent's shown void can ruff."""
    me = state.current_player
    safe = gated(tl.lead_start(state), tl.throw_safe, _unsafe_throws, state)
    opp_void = state.voids[(me + 1) % 4] | state.voids[(me + 3) % 4]
    suit = jnp.arange(tl.NUM_THROWS) % 5
    ruffable = (suit != tm.TRUMP) & opp_void[jnp.minimum(suit, 3)]
    return safe & ~ruffable & tl.lead_start(state)


def _unsafe_throws(state):
    return jnp.zeros(tl.NUM_THROWS, bool)


CONSEQUENCES = 4  # a card completes no follow; it completes one held by me / partner / opponent
SECURE_CONSEQUENCES = 6  # ... and by me / partner while the next seat may still take it


def consequence_codes(state, security: bool = False):
    """int32[66]: per action, 0 unless it is a card that completes the seat's follow, then who
    holds the trick after it: 1 the seat, 2 its partner, 3 an opponent
    (:func:`state_facts.completing_holders`); with ``security``, 4 the seat and 5 its partner where
    the next seat may still take the trick (:func:`holds_unsafely`)."""
    holder = state_facts.completing_holders(state)
    rel = (holder - state.current_player) % 4
    code = jnp.where(holder < 0, 0, jnp.where(rel == 0, 1, jnp.where(rel == 2, 2, 3)))
    if security:
        code = jnp.where((code == 1) | (code == 2), code + 3 * holds_unsafely(state, holder), code)
    return jnp.concatenate([code, jnp.zeros(tractor.NUM_ACTIONS - tractor.NUM_TYPES, code.dtype)])


def holds_unsafely(state, holder):
    """bool[54]: for each card type, whether the seat after the seat to act (an opponent) may
    still beat the play that holds the trick were the seat's follow completed with it (holder:
    ``holder[t]``, the seat itself or its partner) -- the rule player's test,
    :func:`~cardjax.games.tractor.moves.at_risk`.  Leads other than a single or a pair, and the last seat, count
    as safe."""
    me = state.current_player
    eff, order, _ = tm.context(state.level, state.trump)
    eff, order = eff[:tractor.NUM_TYPES], order[:tractor.NUM_TYPES]
    unseen = state_facts.unseen_cards(state, me)
    need = jnp.where(state.lead_pairs > 0, 2, 1)
    simple = (state.lead_k1 == 0) & (state.lead_n == need)
    lsuit = state.lead_suit
    next_void = state.voids[(me + 1) % 4, lsuit]

    def at_risk(suit, key):
        return tm.at_risk(suit, key, unseen, eff, order, need, lsuit, next_void)

    partner = state.trick[(me + 2) % 4]
    top = jnp.argmax(jnp.where(partner > 0, order, -1))
    mine = jax.vmap(at_risk)(eff, order)  # the seat holds with the card itself
    risk = jnp.where((holder - me) % 4 == 0, mine, at_risk(eff[top], order[top]))
    return risk & simple & (state.num_in_trick < 3)


def rule_advice(env, state):
    """bool[66]: in a follow, the card the rule player (:mod:`cardjax.games.tractor.rule`,
    which reads only what the seat may know) would play next; nothing elsewhere."""
    a = tractor_rule.make(env).act(None, None, state)
    follow = (state.phase == tractor.PLAY) & (state.num_in_trick > 0)
    return (jnp.arange(tractor.NUM_ACTIONS) == a) & follow


def pad_actions(x, n: int):
    """``x`` [66] padded with zeros (False) to ``n`` actions."""
    return jnp.concatenate([x, jnp.zeros(n - x.shape[0], x.dtype)])


def last_trick(state):
    """bool: a follow of the hand's last trick (its kitty bonus depends on more than the trick):
    the cards left in hand are those the seats still to play it will play (a partial play
    stays in its hand until complete)."""
    return jnp.sum(state.hand_sizes) == state.lead_n * (4 - state.num_in_trick)


def trick_ending_rewards(state, point_reward: float):
    """``(reward float32[66], exact bool[66])``: for the last seat of a trick (not the hand's
    last trick, whose kitty bonus depends on more), the points of the trick each card that
    completes its follow takes for its team (+) or gives away (-), times ``point_reward``: the
    step reward of each such card, known before it is played."""
    seat = state.current_player
    holder = state_facts.completing_holders(state)
    mine = (holder - seat) % 2 == 0
    points = (state_facts.table_points(state) + jnp.asarray(tm.POINTS)[:tractor.NUM_TYPES]).astype(
        jnp.float32)
    exact = (holder >= 0) & (state.num_in_trick == 3) & ~last_trick(state)
    reward = point_reward * jnp.where(mine, points, -points)
    pad = tractor.NUM_ACTIONS - tractor.NUM_TYPES
    return (jnp.concatenate([jnp.where(exact, reward, 0.0), jnp.zeros(pad)]),
            jnp.concatenate([exact, jnp.zeros(pad, bool)]))


ROLLOUT_CARDS = 16  # the legal cards played out per decision (a void seat's beyond: none)


def rollout_rewards(env, state, point_reward: float, player=None):
    """``(reward float32[66], valid bool[66])``: at a follow of the second or third seat of a
    trick (not the hand's last) where one more card completes the seat's play, for each of up to
    :data:`ROLLOUT_CARDS` legal such cards (the lowest types), the points of the trick the seat's
    team takes (+) or gives away (-) when the later seats play it out as ``player`` (the rule
    player by default) with their own hands, times ``point_reward``.  The later seats' cards are
    hidden from the seat: a training target, never a reason to choose."""
    return rollout_ends(env, state, point_reward, player)[:2]


def rollout_ends(env, state, point_reward: float, player=None):
    """:func:`rollout_rewards`, and ``(cards int32[R], ends)``: the cards played out (R =
    :data:`ROLLOUT_CARDS`; padding where not valid) and the state each leaves when its trick is
    over (a batch of R states; the state itself where nothing was played out)."""
    player = player or tractor_rule.make(env)
    holder = state_facts.completing_holders(state)
    cards = (holder >= 0) & state.legal_action_mask[:tractor.NUM_TYPES]
    applies = ((state.num_in_trick == 1) | (state.num_in_trick == 2)) & jnp.any(cards) \
        & ~last_trick(state) & ~state.terminated
    idx, ok, _ = compact(cards, ROLLOUT_CARDS)

    def play_out(state, idx):
        def one(card):
            start = env.step(state, card)

            def unfinished(c):
                return (c.trick_no == state.trick_no) & ~c.terminated

            def later_seat(c):
                return env.step(c, player.act(player.params, None, c))

            end = jax.lax.while_loop(unfinished, later_seat, start)
            swing = state_facts.point_swing(state, end)[state.current_player]
            return swing.astype(jnp.float32), end

        return jax.vmap(one)(idx)

    def nothing(state, idx):
        same = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, idx.shape + x.shape), state)
        return jnp.zeros(idx.shape, jnp.float32), same

    swing, ends = gated(applies, play_out, nothing, state, idx)
    valid = ok & applies
    reward = jnp.zeros(tractor.NUM_ACTIONS).at[idx].add(jnp.where(valid, swing, 0.0))
    mask = jnp.zeros(tractor.NUM_ACTIONS, bool).at[idx].max(valid)
    return point_reward * reward, mask, idx, ends


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
