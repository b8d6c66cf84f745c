"""Game records in the DeepRocket format (papers/001, appendix A): the paper's own records, round
trips of random cardjax games, and every kind of malformed record."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax.games.doudizhu import records as rec
from cardjax.games.doudizhu.moves import PASS, action_index, counts_to_str
from cardjax.games.doudizhu.record_text import (
    format_record, format_records, parse_record, parse_records,
)
from conftest import get_compiled, to_numpy


@pytest.fixture(scope="module")
def c():
    return get_compiled("doudizhu")


@pytest.fixture(scope="module")
def env(c):
    return c.env


@pytest.fixture(scope="module")
def step(c):
    return c.step


def parse(text, step, **kw):
    return parse_record(text, step=step, **kw)


def hands_after(states, k):
    """The hands (paper notation) by seat in state ``k``."""
    return [rec.to_paper(counts_to_str(np.asarray(h))) for h in states[k]._hands]


def assert_same_states(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        jax.tree_util.tree_map(np.testing.assert_array_equal, to_numpy(x), to_numpy(y))


# ----------------------------------------------------------------------------- the paper's records
from paper_records import SECTION_4_2, TABLE_6  # noqa: E402  (shared with test_deeprocket)

# Section 5.4, the "inference" record, as printed.
SECTION_5_4 = """\
Cards: 33345578TTJKKA22S;34566789TQQQKKAA2;4456678999TJJQA2B;78J;
Game process: 0,345678;1,56789T;0,6789TJ;0,QQQKK;0,AA;2,22;2,55;2,3334;2,TT;2,A;0,2;"""

# Appendix C: table 8 (the deals of the test match), table 9 (DeepRocket is landlord), table 10
# (a human is landlord; the same deals), table 7 (the landlord's score, base score 3).
TABLE_8 = """\
334566789JJQQKASB;34456789TTKAAA222;345577889TTJQQKK2;69J
34445689TJQKKA22B;4555677889TJJQKA2;3336677899TTJQQK2;AAS
356777899TQKAA222;3445557889TTJJKK2;334466689TJQQKASB;JQA
346799TTTJJQKKK2B;366678899TJQQAA22;34445557788JQAA2S;35K
3444789TTJQQKAA2B;3455667899JJJKA2S;355667788TQQKKA22;39T
35577789JJJQKA22B;44566889TTTJQKK2S;3334567899TQQKAAA;462
678899TJQQKKAA22S;34455566779TTQA22;33345679TJJJQKKAB;488
33444555669TJJQKB;345788899TJJQQQKS;3667789TKKAAAA222;7T2
3447889TJQKKAA222;333445669TTTQQQAA;5556677899JJJK2SB;78K
35556JJJQQQKAA22S;44566677788999A22;3344789TTTTJQKKAB;38K""".splitlines()
TABLE_9 = """\
0,33;1,TT;0,QQ;2,KK;2,J;0,K;1,2;1,56789;1,44;2,TT;2,Q;0,A;1,2;1,K;1,AAA3;|0,SB;0,JJJ66;0,456789;0,9
0,4443;1,5557;0,AAA5;0,6;1,8;2,2;2,3339;2,66;0,KK;0,22;0,SB;0,89TJQ
0,56789;1,789TJ;0,9TJQK;0,AAA3;0,22277;2,SB;2,89TJQKA;2,66644;2,33;2,Q
0,34567;1,789TJ;1,8;2,Q;0,2;2,S;2,4445553J;2,77;0,99;1,QQ;2,AA;2,88;0,JJ;|1,AA;0,KKKK;0,TTT3;0,B;0,Q
0,33;1,99;2,QQ;0,AA;2,22;2,55667788;2,3;0,9;2,T;0,Q;2,A;0,2;1,S;0,B;|0,789TJQK;0,444TT
0,3456789;2,456789T;2,3339;0,JJJ5;2,AAAK;0,222Q;0,K;1,2;1,44;2,QQ
0,4;1,9;2,K;0,2;2,B;2,34567;2,9TJQKA;2,33;0,AA;1,22;1,44;2,JJ
0,4445553366;0,7;1,S;0,B;0,T;2,2;2,6789T;0,9TJQK;0,2;2,AAAA;2,KK;2,7;0,J
0,44;1,66;2,77;0,88;1,AA;1,3335;2,5558;0,KKK3;0,789TJQ;0,AA;0,2227
0,5556;1,9995;0,JJJ8;0,33;1,22;1,6667774488;1,A""".splitlines()
TABLE_10 = """\
0,456789;1,56789T;1,3;2,2;2,55;0,66;2,77;0,QQ;1,22;1,T;2,K;0,A;1,2;0,S;0,K;|1,A;0,B;0,JJJ33;0,9
0,3;1,J;2,2;2,6789T;0,89TJQ;1,TJQKA;1,456789;1,7;2,Q;0,2;0,2;0,4445;|0,AAA6;0,SB;0,KK
0,3;1,7;2,Q;0,2;0,56789;0,9TJQK;2,TJQKA;2,66633;0,AAA77;0,22;2,SB;2,44;|1,88;1,44;1,TT;1,JJ;1,KK;1,5553;1,2;1,9
0,3;1,8;2,Q;0,2;2,S;2,4445553J;2,77;0,99;1,QQ;2,AA;0,KKKK;0,Q;1,2;0,B
0,9;1,K;2,A;2,55667788;2,QQ;2,KK;0,AA;2,22;2,3;0,2;1,S;0,B;0,33;1,99;0,TT;|0,789TJQK
0,Q;1,2;1,44;2,QQ;2,456789T;2,3339;0,JJJ5;2,AAAK
0,4;1,9;2,K;0,A;1,2;0,S;2,B;2,34567;0,TJQKA;0,6;1,Q;0,K;1,A;0,2;0,7;2,A;0,2;|0,99;0,8888;0,Q
0,4445553366;0,7;1,9;2,2;2,6789T;0,9TJQK;0,T;1,J;2,2;0,B;2,AAAA;2,3;0,J;|1,S;1,88;1,3;2,2;2,K;0,2
0,789TJQ;0,44;1,66;2,99;0,AA;0,KKK3;0,22288;2,SB;2,5558;1,TTT5;1,3339;|2,JJJK;1,QQQ4
0,JJJQQQ68;0,55533;1,99944;1,6667775A;1,88;0,KK;1,22""".splitlines()
# Table 7: landlord's score, (human landlord = table 10, DeepRocket landlord = table 9).
TABLE_7 = [(6, 12), (12, 12), (-12, -12), (12, 12), (6, 6), (-6, -6), (12, -6), (12, 12),
           (-12, 6), (-6, -6)]
TABLE_10_UNFINISHED = {4, 5, 9}  # the printed game process stops before a hand is empty


def test_joker_mapping():
    assert rec.from_paper("3456789TJQKA2SB") == "3456789TJQKA2BR"
    assert rec.to_paper("BR") == "SB" and rec.from_paper("SB") == "BR"
    assert rec.from_paper("S") == "B" and rec.from_paper("B") == "R"  # small, big joker
    with pytest.raises(ValueError, match="unknown rank character 'R'"):
        rec.from_paper("2R")


def test_section_4_2_example(step):
    """The paper's record replays to the end; the position after '1,789TJ' is the one section 5.4
    describes (landlord 448QB, Down Peasant 339TJ2, Up Peasant 5); the Up Peasant goes out."""
    r = parse(SECTION_4_2, step)
    assert r.landlord == 0 and r.bottom == "33Q" and len(r.moves) == 21
    assert r.hands[0] == "4456777889JKKAA2R"  # the paper's big joker B is cardjax's R
    assert r.hands[2] == "4456689TTJQQQK22B"  # the paper's small joker S is cardjax's B
    assert r.moves[10] == (2, "B") and r.moves[-1] == (2, "5")
    states, actions = rec.replay_actions(r, step=step)
    assert len(states) == len(actions) + 1 and actions.count(PASS) == len(actions) - 21
    assert bool(states[-1].terminated) and not any(bool(s.terminated) for s in states[:-1])
    np.testing.assert_array_equal(states[-1].rewards, [-2, 1, 1])  # the peasants win
    k = 1 + actions.index(action_index("789TJ"))
    assert hands_after(states, k) == ["448QB", "339TJ2", "5"]
    # Table 6 is the same record; writing it gives table 6's text exactly.
    assert parse(TABLE_6, step) == r
    assert format_record(r) == TABLE_6


def test_section_5_4_example_hand_order(step):
    """The 'inference' record of section 5.4 is not in appendix A's hand order: read as printed
    the landlord would lead 345678 without holding it.  Its hands are listed as (Up Peasant,
    landlord, Down Peasant): reordered, it replays, the position before '2,A' is the one the
    paper describes, and the landlord goes out with its last 2."""
    with pytest.raises(ValueError, match=r"line 2: move 1 '0,345678': .*seat 0 does not hold"):
        parse(SECTION_5_4, step)
    up, lord, down, bottom = SECTION_5_4.splitlines()[0][len("Cards: "):].split(";")[:4]
    fixed = SECTION_5_4.replace(f"{up};{lord};{down};", f"{lord};{down};{up};")
    r = parse(fixed, step)
    states, actions = rec.replay_actions(r, step=step)
    k = actions.index(action_index("A"))
    assert hands_after(states, k) == ["2", "44699JJQA2B", "78JKKAS"]
    assert bool(states[-1].terminated)
    np.testing.assert_array_equal(states[-1].rewards, [2, -1, -1])
    assert format_record(r) == fixed  # the paper's writing of every move is reproduced


def test_appendix_c_test_match(step):
    """All 20 test-match games (table 8's deals with tables 9 and 10) replay; the finished ones
    give table 7's scores (base score 3: 3 x the landlord's ADP reward); three games of table 10
    are printed only up to a position where the result is decided."""
    texts = []
    for table in (TABLE_10, TABLE_9):
        for deal, process in zip(TABLE_8, table):
            texts.append(f"Cards: {deal};\nGame process: " + process.replace("|", "\n"))
    with pytest.warns(rec.UnfinishedRecordWarning) as caught:
        records = parse_records("\n\n".join(texts), step=step)  # wrapped lines, blank separators
    assert len(records) == 20
    assert len(caught) == len(TABLE_10_UNFINISHED)
    assert [i + 1 for i, r in enumerate(records) if not r.finished] == sorted(TABLE_10_UNFINISHED)
    for i, r in enumerate(records):
        number, human = i % 10 + 1, i < 10
        states = rec.replay(r, step=step)
        final = states[-1]
        if human and number in TABLE_10_UNFINISHED:
            assert not bool(final.terminated)
            continue
        assert bool(final.terminated), number
        assert 3 * float(final.rewards[0]) == TABLE_7[number - 1][0 if human else 1], number
        # format_record writes each move as the paper does (main group, then kickers).
        expected = texts[i].replace("\n", "").replace("Game process: ", "\nGame process: ")
        assert format_record(r) == expected.rstrip(";") + ";"


# ----------------------------------------------------------------------------- round trips
# the state's mask is built inside jit: outside, the property builds it op by op (~25 ms)
RANDOM_ACTION = jax.jit(lambda key, state: cardjax.random_action(key, state.legal_action_mask))


def play_random(c, state, key, max_steps=400):
    """A random game from ``state`` with ``cardjax.random_action``: (states, actions)."""
    states, actions = [state], []
    act = RANDOM_ACTION
    while not bool(state.terminated) and len(actions) < max_steps:
        key, k = jax.random.split(key)
        a = int(act(k, state))
        state = c.step(state, jnp.int32(a))
        states.append(state)
        actions.append(a)
    return states, actions


def test_round_trip_random_games(c, env, step):
    """Random games (landlord at seat 0 from ``init``, and at seats 1 and 2 from
    ``init_from_deal``): record -> text -> record is identical, and the replay reproduces every
    state of the game."""
    init = jax.jit(env.init)
    keys = jax.random.split(jax.random.PRNGKey(7), 5)
    records, texts = [], []
    for g, key in enumerate(keys):
        k_deal, k_play = jax.random.split(key)
        first = init(k_deal)
        if g >= 3:  # the same kind of deal, with the landlord elsewhere
            hands = np.asarray(first._hands) - np.asarray(first.bottom) * (np.arange(3) == 0)[:, None]
            first = env.init_from_deal(hands[[2, 0, 1]], np.asarray(first.bottom), landlord=g - 2)
        states, actions = play_random(c, first, k_play)
        assert bool(states[-1].terminated)
        meta = {"game": str(g), "players": "random vs random"}
        r = rec.record_from_game(first, actions + [0, 5], step=step, metadata=meta)  # trailing: ignored
        assert r == rec.record_from_states(states, metadata=meta)
        assert r.landlord == max(g - 2, 0)
        assert len(r.moves) == sum(a != PASS for a in actions)
        text = format_record(r)
        assert text.startswith("# landlord: ") == (g >= 3)
        back = parse(text, step)
        assert back == r and format_record(back) == text
        assert_same_states(rec.replay(back, step=step), states)
        records.append(r)
        texts.append(text)
    many = format_records(records)
    assert parse_records(many, step=step) == records
    assert parse_records(many.splitlines(keepends=True), check=False) == records  # file lines
    # stacked states (a scan's layout) give the same record
    stacked = jax.tree_util.tree_map(lambda *x: np.stack(x), *to_numpy(states))
    assert rec.record_from_states(stacked, metadata=meta) == records[-1]


def test_unfinished_game_and_record_api(env, step):
    with pytest.warns(rec.UnfinishedRecordWarning,
                      match=r"record at line 1: the game process stops \(line 2\) after 2 moves"):
        r = parse(SECTION_4_2.splitlines()[0] + "\nGame process: 0,33;1,55", step)
    assert r.finished is False
    assert parse_record(format_record(r), check=False).finished is None
    whole = parse(SECTION_4_2, step)
    assert whole.finished is True and whole == parse_record(SECTION_4_2, check=False)
    states = rec.replay(r, step=step)
    assert len(states) == 3 and not bool(states[-1].terminated)
    assert format_record(r).endswith("Game process: 0,33;1,55;")
    with pytest.warns(rec.UnfinishedRecordWarning, match="after 0 moves"):
        empty = parse(SECTION_4_2.splitlines()[0] + "\nGame process:", step)
    assert empty.moves == () and format_record(empty).endswith("\nGame process:")
    assert len(rec.replay(empty, step=step)) == 1
    # Record accepts counts and any card order; it stores sorted cardjax strings.
    same = rec.Record(hands=[r.hand_counts()[0], r.hands[1][::-1], r.hands[2]], bottom="Q33",
                      moves=[(0, "33"), (1, "55")])
    assert same == r
    with pytest.raises(ValueError, match="passes are not recorded"):
        rec.Record(hands=r.hands, bottom=r.bottom, moves=[(0, "33"), (1, "pass")])
    with pytest.raises(ValueError, match="Record.landlord"):
        rec.Record(hands=r.hands, bottom=r.bottom, metadata={"landlord": "1"})
    # A record built in code names the move by its index and seat.
    bad = rec.Record(hands=r.hands, bottom=r.bottom, moves=[(0, "33"), (1, "33")])
    with pytest.raises(ValueError, match=r"move 2 \(seat 1: 33\): illegal move: 33 does not beat 33"):
        rec.replay(bad, step=step)


def test_record_from_bidding_game():
    """With bidding the record starts after the auction: bids are not written, the winner is the
    landlord, and the record replays (without bidding) to the same hands and outcome."""
    benv = cardjax.make("doudizhu", bidding=True)
    c = get_compiled(benv)
    hands = ["33334444555566667", "77788889999TTTTJJ", "JJQQQQKKKKAAAA22B"]
    first = benv.init_from_deal(hands, "22R", first_bidder=1)
    bids = [27473, 27474, 27472]  # seat 1 bids 1, seat 2 bids 2, seat 0 passes
    state = first
    for b in bids:
        state = c.step(state, jnp.int32(b))
    assert int(state.landlord) == 2
    played, actions = play_random(c, state, jax.random.PRNGKey(4))
    r = rec.record_from_game(first, bids + actions, step=c.step)
    assert r.landlord == 2 and r.hands == tuple(hands) and r.bottom == "22R"
    assert format_record(r).startswith("# landlord: 2\nCards: JJQQQQKKKKAAAA22S;3333")
    final = rec.replay(r)[-1]
    np.testing.assert_array_equal(final._hands, played[-1]._hands)
    np.testing.assert_array_equal(final.terminated, played[-1].terminated)


# ----------------------------------------------------------------------------- malformed records
CARDS = SECTION_4_2.splitlines()[0]
PROCESS = "Game process: 0,33;1,55;2,66;0,77;1,AA;1,6;2,T;0,J;1,K;0,2;2,S;2,44;0,KK;2,22;2,89TJQK;"
PROCESS_2 = "2,QQ;0,AA;0,56789;1,789TJ;1,3;2,5;"
GOOD = f"{CARDS}\n{PROCESS}\n{PROCESS_2}"


def with_process(first, second=PROCESS_2):
    return f"{CARDS}\nGame process: {first}\n{second}"


MALFORMED = [
    # (text, line, offending move or part, reason)
    (with_process("0,33;1,5X;"), 2, "'1,5X'", "unknown rank character 'X'"),
    (with_process("0,33;1,55;", "2,66;0,7R;"), 3, "'0,7R'", "unknown rank character 'R'"),
    (with_process("0,33;1,55;2,66;0,77;1,KK;"), 2, "'1,KK'", "seat 1 does not hold KK"),
    (with_process("0,33;1,55;2,66;0,77;1,SB;"), 2, "'1,SB'", "seat 1 does not hold SB"),
    (with_process("0,33;1,33;"), 2, "'1,33'", "33 does not beat 33"),
    (with_process("0,33;1,55;2,66;0,77;1,6;"), 2, "'1,6'", "6 does not beat 77"),
    (with_process("1,55;"), 2, "'1,55'", r"wrong seat order: seat 0 \(landlord\) is to lead and "
                                         "may not pass"),
    (with_process("0,33;1,55;", "2,66;3,77;"), 3, "'3,77'", "role must be 0"),
    (with_process("0,33;x,55;"), 2, "'x,55'", "role must be an integer"),
    (with_process("0,33;1 55;"), 2, "'1 55'", "a move is 'role,cards'"),
    (with_process("0,33;1,5,5;"), 2, "'1,5,5'", "a move is 'role,cards'"),
    (with_process("0,33;1,;"), 2, "'1,'", "no cards"),
    (with_process("0,33;1,PASS;"), 2, "'1,PASS'", "passes are not written"),
    (with_process("0,34;"), 2, "'0,34'", "not a Dou Dizhu move"),
    (GOOD + "\n0,44;", 4, "'0,44'", "the game already ended with move 21"),
    (GOOD.replace("2,5;", "2,5;1,3;"), 3, "'1,3'", "the game already ended"),
    # the Cards line
    (f"Cards: 4456777889JKKAA2B;335567899TTJJKAA2;4456689TTJQQQK22S\n{PROCESS}", 1, "Cards",
     "needs 4 non-empty parts"),
    (f"Cards: 4456777889JKKAA2B;335567899TTJJKAA2;;33Q;\n{PROCESS}", 1, "Cards",
     "needs 4 non-empty parts"),
    (GOOD.replace("AA2B;", "AA2R;", 1), 1, "Cards", "unknown rank character 'R'"),
    (GOOD.replace("AA2B;", "AA2S;", 1), 1, "Cards", "54 cards once .* S x2, B x0"),
    (GOOD.replace("2B;33", "2B;3", 1).replace(";33Q", ";33Q3"), 1, "Cards", "17 cards per hand"),
    (GOOD.replace(";33Q", ";33QK"), 1, "Cards", "and 4 bottom cards"),
    # missing parts, garbled lines
    (CARDS, 1, "", "no 'Game process:' line"),
    (f"{CARDS}\n{CARDS}\n{PROCESS}", 1, "", "no 'Game process:' line"),
    (PROCESS, 1, "", "'Game process:' without a 'Cards:' line"),
    (f"{CARDS}\n{PROCESS}\n\n{PROCESS}", 4, "", "'Game process:' without a 'Cards:' line"),
    (TABLE_6.replace("Cards: ", ""), 1, "", "the labels are required"),
    (f"# seed 3\n{GOOD}", 1, "", "metadata '# key: value'"),
    (f"# landlord: 4\n{GOOD}", 1, "", "must be a seat 0, 1 or 2"),
    (f"# a: 1\n# a: 2\n{GOOD}", 2, "", "given twice"),
    (f"{GOOD}\n# a: 1", 4, "", "metadata lines without a record"),
]


@pytest.mark.parametrize("text,line,what,reason", MALFORMED,
                         ids=[f"{i}-{re.sub(r'[^a-z0-9]+', '_', m[3].lower())[:30]}"
                              for i, m in enumerate(MALFORMED)])
def test_malformed_records(step, text, line, what, reason):
    with pytest.raises(ValueError) as info:
        parse(text, step)
    msg = str(info.value)
    assert msg.startswith(f"line {line}: "), msg
    assert what in msg and re.search(reason, msg), msg


def test_errors_in_later_records_name_their_line(step):
    text = f"{GOOD}\n\n{GOOD.replace('2,66;', '2,44;')}"
    with pytest.raises(ValueError, match=r"^line 6: move 3 '2,44': illegal move: 44 does not beat 55"):
        parse_records(text, step=step)
    with pytest.raises(ValueError, match=r"^line 4: expected one record, found 2"):
        parse_record(f"{GOOD}\n{GOOD}", step=step)
    with pytest.raises(ValueError, match="no record"):
        parse_record("\n\n", step=step)
    # check=False reads an illegal game without complaint; replay then names the line
    r = parse_record(text.split("\n\n")[1], check=False)
    with pytest.raises(ValueError, match=r"^line 2: move 3 '2,44'"):
        rec.replay(r, step=step)


def test_record_from_game_rejects_illegal_and_bidding_replay(env, step):
    r = parse(GOOD, step)
    first = env.init_from_deal(list(r.hands), r.bottom)
    with pytest.raises(ValueError, match=r"action 0 .* is illegal for seat 0"):
        rec.record_from_game(first, [PASS], step=step)
    with pytest.raises(ValueError, match="without bidding"):
        rec.replay(parse(GOOD, step), env=cardjax.make("doudizhu", bidding=True))
    # an illegal action inside jit ends the game with the penalty: not recordable from states
    punished = step(first, jnp.int32(PASS))
    with pytest.raises(ValueError, match="illegal"):
        rec.record_from_states([first, punished])
