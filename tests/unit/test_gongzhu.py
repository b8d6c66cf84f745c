"""Gongzhu rules (shared/rules/gongzhu.md): legality, tricks, scoring, options, and properties of
random legal play checked against an independent NumPy reading of the rules."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cardjax
from cardjax import cards
from cardjax.games.gongzhu import env as gongzhu
from conftest import play_cards, to_numpy, tree_index

C = cards.card_index
SETTINGS = settings(max_examples=20, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def mask_of(text):
    return cards.cards_mask(text)


def legal_str(env, state):
    return " ".join(sorted(env.action_to_str(a) for a in np.flatnonzero(np.asarray(state.legal_action_mask))))


def same_set(text):
    return " ".join(sorted(text.split()))


# ------------------------------------------------------------------ an independent scorer
_NP_POINTS = {"HA": -50, "HK": -40, "HQ": -30, "HJ": -20, "SQ": -100, "DJ": 100}
_NP_POINTS.update({f"H{r}": -10 for r in ("5", "6", "7", "8", "9", "10")})
_NP_POINTS.update({f"H{r}": 0 for r in ("2", "3", "4")})
_NP_HEARTS = {f"H{r}" for r in cards.RANKS}


def np_pile_score(pile) -> int:
    """The rules file's scoring, written from the text (no exposure)."""
    names = {cards.card_str(i) for i in pile} if not isinstance(pile, str) else set(pile.split())
    s = sum(_NP_POINTS[c] for c in names if c in _NP_POINTS)
    if _NP_HEARTS <= names:
        s += 400
    if "C10" in names:
        others = any(c in _NP_POINTS for c in names)  # every other score card is in _NP_POINTS
        s = 2 * s if others else 50
    return s


# ------------------------------------------------------------------ scoring examples
@pytest.mark.parametrize("pile, score", [
    ("C10", 50),
    ("C10 H2", 0),
    ("C10 SQ", -200),
    (" ".join(sorted(_NP_HEARTS)), 200),
    (" ".join(sorted(_NP_HEARTS)) + " SQ", 100),
    (" ".join(sorted(_NP_HEARTS)) + " SQ DJ C10", 400),
    ("SQ DJ", 0),
    # more, from the table
    ("", 0),
    ("HA", -50), ("HK", -40), ("HQ", -30), ("HJ", -20),
    ("H5", -10), ("H6", -10), ("H7", -10), ("H8", -10), ("H9", -10), ("H10", -10),
    ("H2", 0), ("H3", 0), ("H4", 0),
    ("SQ", -100), ("DJ", 100),
    ("S2 SA D5 CA", 0),  # no score cards
    ("HA HK HQ HJ", -140),
    ("H2 H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK", -150),  # 12 hearts: no bonus
    ("C10 DJ", 200),
    ("C10 HA SQ", -300),
    ("C10 S2 D3 CA", 50),  # non-score cards do not stop "C10 alone"
    ("C10 H2 H3", 0),
    (" ".join(sorted(_NP_HEARTS)) + " C10", 400),
    (" ".join(sorted(_NP_HEARTS)) + " DJ", 300),
])
def test_pile_score_examples(pile, score):
    assert gongzhu.pile_score(pile) == score
    assert np_pile_score(pile) == score  # the test's own scorer agrees with the rules


def test_pile_score_accepts_indices_and_masks():
    assert gongzhu.pile_score([C("C10"), C("SQ")]) == -200
    assert gongzhu.pile_score(mask_of("C10 SQ")) == -200
    assert gongzhu.pile_score(["C10", "SQ"]) == -200
    with pytest.raises(ValueError, match="SQ"):
        gongzhu.pile_score("SQ SQ")
    with pytest.raises(ValueError):
        gongzhu.pile_score("SQ X7")


@pytest.mark.parametrize("pile, exposed, score", [
    ("SQ", "SQ", -200),
    ("DJ", "DJ", 200),
    ("C10", "C10", 100),
    ("C10 H2", "C10", 0),
    ("C10 SQ", "C10", -400),
    ("C10 SQ", "SQ C10", -800),
    ("C10 DJ", "DJ", 400),
    ("HA HK", "HA", -180),
    ("H5", "HA", -20),
    ("H2 H3", "HA", 0),
    (" ".join(sorted(_NP_HEARTS)), "HA", 400),
    (" ".join(sorted(_NP_HEARTS)) + " SQ", "HA SQ", 200),
    ("SQ DJ", "SQ", -100),
    ("SQ", "DJ C10 HA", -100),  # exposing other cards changes nothing here
])
def test_pile_score_exposed(pile, exposed, score):
    assert gongzhu.pile_score(pile, exposed=exposed) == score


# ------------------------------------------------------------------ hand-built positions
# A deal that is easy to read: every seat holds one suit.
SUIT_DEAL = [
    "S2 S3 S4 S5 S6 S7 S8 S9 S10 SJ SQ SK SA",
    "H2 H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK HA",
    "D2 D3 D4 D5 D6 D7 D8 D9 D10 DJ DQ DK DA",
    "C2 C3 C4 C5 C6 C7 C8 C9 C10 CJ CQ CK CA",
]

# A hand-played game, written trick by trick in play order (leader first).  Worked out by hand:
#   trick  leader  cards                    winner  score cards taken
#   1      0       C2  C3  C4  CA           3       -
#   2      3       S2  S3  SK  S4           1       -
#   3      1       D2  D3  DJ  DA           0       DJ
#   4      0       H2  H3  HA  H4           2       H2 H3 HA H4
#   5      2       S5  SQ  S6  SA           1       SQ
#   6      1       C5  C6  CK  C10          3       C10
#   7      3       H5  H6  HK  H7           1       H5 H6 HK H7
#   8      1       D4  D5  D6  D7           0       -
#   9      0       S7  S8  S9  S10          3       -
#   10     3       H8  H9  H10 HJ           2       H8 H9 H10 HJ
#   11     2       HQ  SJ  CQ  DK           2       HQ   (seats 3, 0, 1 void in hearts)
#   12     2       C7  C8  CJ  C9           0       -
#   13     0       D8  D9  D10 DQ           3       -
# Piles: seat 0: DJ = +100; seat 1: SQ H5 H6 HK H7 = -100-10-10-40-10 = -170;
# seat 2: H2 H3 HA H4 H8 H9 H10 HJ HQ = -50-10-10-10-20-30 = -130; seat 3: C10 alone = +50.
# Teams: {0,2} = -30, {1,3} = -120; rewards = [+90, -90, +90, -90].
GAME_TRICKS = [
    (0, "C2 C3 C4 CA", 3),
    (3, "S2 S3 SK S4", 1),
    (1, "D2 D3 DJ DA", 0),
    (0, "H2 H3 HA H4", 2),
    (2, "S5 SQ S6 SA", 1),
    (1, "C5 C6 CK C10", 3),
    (3, "H5 H6 HK H7", 1),
    (1, "D4 D5 D6 D7", 0),
    (0, "S7 S8 S9 S10", 3),
    (3, "H8 H9 H10 HJ", 2),
    (2, "HQ SJ CQ DK", 2),
    (2, "C7 C8 CJ C9", 0),
    (0, "D8 D9 D10 DQ", 3),
]
GAME_PILES = {0: "DJ", 1: "SQ H5 H6 HK H7", 2: "H2 H3 HA H4 H8 H9 H10 HJ HQ", 3: "C10"}
GAME_SCORES = [100, -170, -130, 50]
GAME_REWARDS = [90, -90, 90, -90]


def game_hands():
    hands = [[] for _ in range(4)]
    for leader, trick, _ in GAME_TRICKS:
        for i, c in enumerate(trick.split()):
            hands[(leader + i) % 4].append(c)
    return [" ".join(h) for h in hands]


def game_moves():
    return " | ".join(trick for _, trick, _ in GAME_TRICKS)


def test_game_hands_are_a_deal():
    hands = game_hands()
    assert hands[0] == "C2 S3 DA H2 S6 C10 H6 D7 S7 H9 CQ CJ D8"
    owner = gongzhu.owner_from_hands(hands)
    assert np.bincount(owner, minlength=4).tolist() == [13] * 4


def test_init_from_deal(gz):
    env = gz.env
    owner = gongzhu.owner_from_hands(SUIT_DEAL)
    np.testing.assert_array_equal(owner, np.arange(52) // 13)
    s = env.init_from_deal(owner)
    assert int(s.current_player) == 0 and int(s.leader) == 0
    assert legal_str(env, s) == same_set(SUIT_DEAL[0])
    for leader in range(4):
        s = env.init_from_deal(owner, leader)
        assert int(s.current_player) == leader
        assert legal_str(env, s) == same_set(SUIT_DEAL[leader])
    # the list of hands is accepted directly
    s2 = env.init_from_deal(SUIT_DEAL, 2)
    np.testing.assert_array_equal(np.asarray(s2._owner), owner)


def test_off_suit_high_cards_do_not_win(gz):
    env = gz.env
    s = env.init_from_deal(gongzhu.owner_from_hands(SUIT_DEAL))
    states = play_cards(env, s, "S2 HA DA CA")
    end = states[-1]
    assert int(end.current_player) == 0 and int(end.leader) == 0  # S2 wins
    assert [int(end.taken_by[C(c)]) for c in ("S2", "HA", "DA", "CA")] == [0] * 4
    assert int(end.scores[0]) == -50
    # every follower was void: voids revealed for the led suit
    np.testing.assert_array_equal(np.asarray(end.voids[:, 0]), [False, True, True, True])
    assert not np.asarray(end.voids[:, 1:]).any()
    # seat 1 may play any card when void
    assert legal_str(env, states[1]) == same_set(SUIT_DEAL[1])


def test_suit_deal_whole_game(gz):
    env = gz.env
    """Seat 0 leads spades all game and takes every card: all 16 score cards = +400."""
    owner = gongzhu.owner_from_hands(SUIT_DEAL)
    s = env.init_from_deal(owner)
    moves = []
    for r in cards.RANKS:
        moves += [f"S{r}", f"H{r}", f"D{r}", f"C{r}"]
    end = play_cards(env, s, moves)[-1]
    assert bool(end.terminated)
    np.testing.assert_array_equal(np.asarray(end.scores), [400, 0, 0, 0])
    np.testing.assert_array_equal(np.asarray(end.rewards), [400, -400, 400, -400])


def test_follow_suit_legality(gz):
    env = gz.env
    s = env.init_from_deal(game_hands(), 0)
    hands = game_hands()
    assert legal_str(env, s) == same_set(hands[0])  # the leader may lead anything
    s = play_cards(env, s, "C2")[-1]
    assert int(s.current_player) == 1
    assert legal_str(env, s) == same_set("C3 C5 C9")  # seat 1's clubs
    s = play_cards(env, s, "C3")[-1]
    assert legal_str(env, s) == same_set("C4 C6 C7")  # seat 2's clubs
    s = play_cards(env, s, "C4")[-1]
    assert legal_str(env, s) == same_set("CA CK C8")  # seat 3's clubs
    # a card of another suit is illegal while holding the led suit
    assert not bool(s.legal_action_mask[C("S2")])


def test_hand_played_game(gz):
    env = gz.env
    """The game of GAME_TRICKS, checked trick by trick and at the end."""
    s = env.init_from_deal(game_hands(), 0)
    states = play_cards(env, s, game_moves())
    assert len(states) == 53
    for t, (leader, trick, winner) in enumerate(GAME_TRICKS):
        before = states[4 * t]
        assert int(before.leader) == leader and int(before.current_player) == leader
        for i in range(4):  # seats act in turn from the leader
            assert int(states[4 * t + i].current_player) == (leader + i) % 4
        after = states[4 * t + 4]
        assert int(after.current_player) == winner, f"trick {t + 1}"
        for c in trick.split():
            assert int(after.taken_by[C(c)]) == winner
        if t < 12:
            assert not bool(after.terminated)
            np.testing.assert_array_equal(np.asarray(after.rewards), 0.0)
            np.testing.assert_array_equal(np.asarray(after.trick), -1)  # table cleared
    end = states[-1]
    assert bool(end.terminated)
    assert int(end.num_played) == 52 and int(end.step_count) == 52
    assert np.asarray(end.legal_action_mask).all()
    for seat, pile in GAME_PILES.items():
        got = np.flatnonzero((np.asarray(end.taken_by) == seat) & gongzhu_is_score())
        assert same_set(cards.cards_str(got)) == same_set(pile), f"seat {seat}"
        assert gongzhu.pile_score(pile) == GAME_SCORES[seat]
    np.testing.assert_array_equal(np.asarray(end.scores), GAME_SCORES)
    np.testing.assert_array_equal(np.asarray(end.rewards), GAME_REWARDS)
    assert end.rewards.dtype == jnp.float32
    # voids: seats 3, 0, 1 showed void in hearts on trick 11, nothing else
    voids = np.zeros((4, 4), bool)
    voids[[3, 0, 1], 1] = True
    np.testing.assert_array_equal(np.asarray(end.voids), voids)
    # the history is the game as written
    assert [cards.card_str(int(c)) for c in np.asarray(end.history)] == game_moves().replace("|", " ").split()
    text = env.render(end)
    assert "rewards: [90, -90, 90, -90]" in text
    # the jitted step and the eager env agree on this game too
    e = env.init_from_deal(game_hands(), 0)
    for c in game_moves().replace("|", " ").split()[:8]:
        e = env.step(e, C(c))
    for a, b in zip(jax.tree_util.tree_leaves(e), jax.tree_util.tree_leaves(states[8])):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def gongzhu_is_score():
    m = np.zeros(52, bool)
    m[gongzhu.SCORE_CARDS] = True
    assert m.sum() == 16
    return m


def test_scores_are_running_and_readable(gz):
    env = gz.env
    """``scores`` holds the raw pile scores after each trick; rewards only at the end."""
    s = env.init_from_deal(game_hands(), 0)
    states = play_cards(env, s, game_moves())
    np.testing.assert_array_equal(np.asarray(states[12].scores), [100, 0, 0, 0])  # after trick 3
    np.testing.assert_array_equal(np.asarray(states[16].scores), [100, 0, -50, 0])
    np.testing.assert_array_equal(np.asarray(states[20].scores), [100, -100, -50, 0])
    np.testing.assert_array_equal(np.asarray(states[24].scores), [100, -100, -50, 50])
    np.testing.assert_array_equal(np.asarray(states[28].scores), [100, -170, -50, 50])
    for st_ in states[:-1]:
        np.testing.assert_array_equal(np.asarray(st_.rewards), 0.0)


def test_illegal_play_penalty(gz):
    env = gz.env
    s = env.init_from_deal(game_hands(), 0)
    s = play_cards(env, s, "C2")[-1]  # seat 1 must follow clubs
    bad = gz.step(s, jnp.int32(C("S8")))
    assert bool(bad.terminated)
    np.testing.assert_array_equal(np.asarray(bad.rewards), [1000, -1000, 1000, -1000])
    with pytest.raises(ValueError, match=r"illegal action 6 \(S8\).*legal actions: C3, C5, C9"):
        cardjax.checked(env).step(s, C("S8"))


# ------------------------------------------------------------------ random legal play
def _np_legal(owner, played_by, trick, leader, seat, k):
    hand = (owner == seat) & (played_by < 0)
    if k == 0:
        return hand
    led = trick[leader] // 13
    follow = hand & (np.arange(52) // 13 == led)
    return follow if follow.any() else hand


@SETTINGS
@given(seed=st.integers(0, 2**31 - 1))
def test_random_games_properties(gz, seed):
    first, states, actions = to_numpy(gz.rollout(jax.random.PRNGKey(seed)))
    owner = first._owner.astype(int)
    assert np.bincount(owner, minlength=4).tolist() == [13] * 4
    prev = first
    trick_cards, trick_seats = [], []
    for t in range(52):
        s = tree_index(states, t)
        p, a = int(prev.current_player), int(actions[t])
        k = t % 4
        # the mask is the follow-suit rule, computed independently
        np.testing.assert_array_equal(
            prev.legal_action_mask,
            _np_legal(owner, prev.played_by, prev.trick, int(prev.leader), p, k),
        )
        assert owner[a] == p and prev.played_by[a] < 0
        assert int(s.played_by[a]) == p and int(s.history[t]) == a
        assert int(s.num_played) == t + 1 and int(s.step_count) == t + 1
        trick_cards.append(a)
        trick_seats.append(p)
        # every card in exactly one place
        in_hand = np.stack([(owner == q) & (s.played_by < 0) for q in range(4)])
        on_table = np.zeros(52, bool)
        on_table[s.trick[s.trick >= 0]] = True
        piles = np.stack([s.taken_by == q for q in range(4)])
        where = in_hand.sum(0) + on_table + piles.sum(0)
        np.testing.assert_array_equal(where, 1, err_msg=f"step {t}")
        assert ((s.played_by >= 0) == (on_table | (s.taken_by >= 0))).all()
        assert in_hand.sum() == 51 - t
        if k < 3:
            assert on_table.sum() == k + 1
            assert int(s.current_player) == (p + 1) % 4
        else:
            assert on_table.sum() == 0
            led = trick_cards[0] // 13
            strength = [c % 13 if c // 13 == led else -1 for c in trick_cards]
            winner = trick_seats[int(np.argmax(strength))]
            assert [int(s.taken_by[c]) for c in trick_cards] == [winner] * 4
            assert int(s.current_player) == winner and int(s.leader) == winner
            assert trick_seats == [(trick_seats[0] + i) % 4 for i in range(4)]
            # pile scores match the independent scorer after every trick
            expect = [np_pile_score(np.flatnonzero(piles[q])) for q in range(4)]
            np.testing.assert_array_equal(s.scores, expect)
            trick_cards, trick_seats = [], []
        # rewards: zero-sum, zero until the end
        assert abs(s.rewards.sum()) < 1e-3
        assert s.rewards[0] == s.rewards[2] and s.rewards[1] == s.rewards[3]
        if t < 51:
            assert not s.terminated
            np.testing.assert_array_equal(s.rewards, 0.0)
        prev = s
    end = tree_index(states, 51)
    assert end.terminated and end.legal_action_mask.all()
    assert sorted(end.history.tolist()) == list(range(52))
    assert (end.taken_by >= 0).all()
    scores = [np_pile_score(np.flatnonzero(end.taken_by == q)) for q in range(4)]
    np.testing.assert_array_equal(end.scores, scores)
    margin = scores[0] + scores[2] - scores[1] - scores[3]
    np.testing.assert_array_equal(end.rewards, [margin, -margin, margin, -margin])
    # taken_by holds 4k cards per seat (whole tricks)
    assert all(np.sum(end.taken_by == q) % 4 == 0 for q in range(4))


def test_random_batch_rewards(gz_games):
    first, states, actions = gz_games
    end = tree_index(states, (slice(None), 51))
    assert end.terminated.all()
    for b in range(end.rewards.shape[0]):
        scores = [np_pile_score(np.flatnonzero(end.taken_by[b] == q)) for q in range(4)]
        margin = scores[0] + scores[2] - scores[1] - scores[3]
        np.testing.assert_array_equal(end.rewards[b], [margin, -margin, margin, -margin])
        # every card was collected: the raw points of all piles add up to the deck's -200
        total_points = sum(gongzhu.POINTS[end.taken_by[b] == q].sum() for q in range(4))
        assert total_points == -200


# ------------------------------------------------------------------ options
def test_first_leader_holder_of_s2():
    env = cardjax.make("gongzhu", first_leader="holder_of_S2")
    for seed in range(6):
        s = env.init(jax.random.PRNGKey(seed))
        holder = int(s._owner[C("S2")])
        assert int(s.current_player) == holder and int(s.leader) == holder
        assert bool(s.legal_action_mask[C("S2")])
    hands = game_hands()  # S2 is seat 3's
    s = env.init_from_deal(gongzhu.owner_from_hands(hands))
    assert int(s.current_player) == 3
    rot = hands[1:] + hands[:1]  # S2 now at seat 2
    assert int(env.init_from_deal(gongzhu.owner_from_hands(rot)).current_player) == 2
    assert int(env.init_from_deal(gongzhu.owner_from_hands(rot), 1).current_player) == 1
    # the default is seat 0
    assert int(cardjax.make("gongzhu").init_from_deal(gongzhu.owner_from_hands(hands)).current_player) == 0
    with pytest.raises(ValueError, match="first_leader"):
        cardjax.make("gongzhu", first_leader="seat3")


def test_exposure_phase(gz_exposure):
    env = gz_exposure.env
    assert env.num_actions == 53
    s = env.init_from_deal(game_hands(), 0)
    assert s.legal_action_mask.shape == (53,)
    # seat 0 holds C10 of the four exposable cards; it may also say "done" (52)
    assert legal_str(env, s) == same_set("C10 done")
    states = play_cards(env, s, "C10 done", step=gz_exposure.step)
    assert int(states[1].current_player) == 0 and legal_str(env, states[1]) == "done"
    assert int(states[2].current_player) == 1 and legal_str(env, states[2]) == "done"  # no exposable
    s = play_cards(env, states[2], "done", step=gz_exposure.step)[-1]
    assert int(s.current_player) == 2 and legal_str(env, s) == same_set("HA done")
    s = play_cards(env, s, "done", step=gz_exposure.step)[-1]
    assert int(s.current_player) == 3 and legal_str(env, s) == same_set("SQ DJ done")
    s = play_cards(env, s, "SQ", step=gz_exposure.step)[-1]
    assert legal_str(env, s) == same_set("DJ done")
    s = play_cards(env, s, "done", step=gz_exposure.step)[-1]
    # play begins with the first leader; "done" is no longer legal
    assert int(s.current_player) == 0 and int(s.step_count) == 6 and int(s.num_played) == 0
    assert not bool(s.legal_action_mask[52])
    exposed = np.flatnonzero(np.asarray(s.exposed))
    assert cards.cards_str(exposed) == "SQ C10"
    np.testing.assert_array_equal(np.asarray(s.rewards), 0.0)
    # seat 0 leads: C10 is exposed and clubs have not been led, seat 0 holds 4 clubs
    assert legal_str(env, s) == same_set(" ".join(c for c in game_hands()[0].split() if c != "C10"))
    # the hand-played game is legal here too (SQ and C10 are played on their suit's second
    # trick); exposed SQ counts -200 and exposed C10 alone +100
    states = play_cards(env, s, game_moves(), step=gz_exposure.step)
    # trick 2 (first spade trick) led by seat 3, who holds the exposed SQ and other spades
    t2 = states[4]
    assert int(t2.current_player) == 3
    assert not bool(t2.legal_action_mask[C("SQ")]) and bool(t2.legal_action_mask[C("S2")])
    # trick 5 (second spade trick): SQ is playable
    t5 = states[17]
    assert int(t5.current_player) == 3 and bool(t5.legal_action_mask[C("SQ")])
    end = states[-1]
    assert bool(end.terminated) and int(end.step_count) == 58
    np.testing.assert_array_equal(np.asarray(end.scores), [100, -270, -130, 100])
    np.testing.assert_array_equal(np.asarray(end.rewards), [140, -140, 140, -140])


# Exposure restriction position: seat 1's only spade is SQ; seat 2 holds DJ and other diamonds,
# and no spades; seat 0 leads spades.
EXPOSE_DEAL = [
    "S2 S3 S4 S5 S6 S7 S8 S9 S10 SJ SK SA H2",
    "SQ H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK HA",
    "DJ D2 D3 D4 D5 D6 D7 D8 D9 D10 DQ DK DA",
    "C2 C3 C4 C5 C6 C7 C8 C9 C10 CJ CQ CK CA",
]


def test_exposed_card_first_trick_of_its_suit(gz_exposure):
    env, step = gz_exposure.env, gz_exposure.step
    s = env.init_from_deal(gongzhu.owner_from_hands(EXPOSE_DEAL), 0)
    s = play_cards(env, s, "done SQ HA done DJ done C10 done", step=step)[-1]
    assert cards.cards_str(np.flatnonzero(np.asarray(s.exposed))) == "SQ HA DJ C10"
    s = play_cards(env, s, "S2", step=step)[-1]
    # seat 1's only spade is the exposed SQ: it may (and must) play it to the first spade trick
    assert legal_str(env, s) == "SQ"
    s = play_cards(env, s, "SQ", step=step)[-1]
    # seat 2 is void in spades: anything, the exposed DJ included (this is not a diamond trick)
    assert legal_str(env, s) == same_set(EXPOSE_DEAL[2])
    s = play_cards(env, s, "D2", step=step)[-1]
    assert legal_str(env, s) == same_set(EXPOSE_DEAL[3])  # C10 likewise
    s = play_cards(env, s, "C2", step=step)[-1]
    assert int(s.current_player) == 1  # SQ beats S2
    # seat 1 leads; hearts never led, HA exposed and seat 1 holds 12 hearts -> HA may not be led
    assert legal_str(env, s) == same_set("H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK")
    s = play_cards(env, s, "H3 D3 C3 H2", step=step)[-1]
    assert int(s.current_player) == 1  # H3 beats H2
    # the first heart trick is over: HA may be led now
    assert legal_str(env, s) == same_set("H4 H5 H6 H7 H8 H9 H10 HJ HQ HK HA")
    # the plain env has no such restriction
    plain = cardjax.make("gongzhu").init_from_deal(gongzhu.owner_from_hands(EXPOSE_DEAL), 1)
    assert bool(plain.legal_action_mask[C("HA")])

    # leading an exposed card: seat 2 leads with DJ exposed and 12 other diamonds
    s = env.init_from_deal(gongzhu.owner_from_hands(EXPOSE_DEAL), 2)
    states = play_cards(env, s, "DJ done done done done", step=step)
    # exposure goes round from the first leader, then the first leader plays
    assert [int(x.current_player) for x in states] == [2, 2, 3, 0, 1, 2]
    s = states[-1]
    assert legal_str(env, s) == same_set(" ".join(c for c in EXPOSE_DEAL[2].split() if c != "DJ"))
    s = play_cards(env, s, "D2 C2 S2 H3", step=step)[-1]
    assert int(s.current_player) == 2  # D2 is the only diamond
    # the first diamond trick is over: DJ may be led now
    assert legal_str(env, s) == same_set(" ".join(c for c in EXPOSE_DEAL[2].split() if c != "D2"))
