"""Learned bidding (the DouZero+ approach): the bid value trainer (cardjax.train.bid_value,
cardjax train bid_value), its network (cardjax.nets.bid_value) and the bidder
(cardjax.games.doudizhu.bidder): its examples are the landlords' hands before the bottom with
their results, it learns more than the base rate, a resumed run is the uninterrupted one, a run
holds its network as an artifact, and the bidder reads its own hand only."""

from __future__ import annotations

import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import cardjax
from cardjax import agents, corpus
from cardjax.corpus.batches import to_device
from cardjax.eval import arena
from cardjax.games.doudizhu.env import NUM_MOVES
from cardjax.train.bid_value import Config, cached_trainer, make_trainer
from cardjax.commands import corpus as corpus_command
from cardjax.commands.train import bid_value as bid_value_recipe
import conftest

# The network of every run of the file: runs of one config share one compiled trainer
# (cached_trainer), and the tests that use its parts take that trainer too.
SMALL_CFG = Config(width=32, depth=1, batch_games=128)
SMALL = ["--width", "32", "--depth", "1", "--batch_games", "128", "--no-progress"]


@pytest.fixture(scope="module")
def script():
    return bid_value_recipe


@pytest.fixture(scope="module")
def rule_corpus(tmp_path_factory):
    """5,000 Dou Dizhu games of the rule player (fixed landlord).  Enough for the learning test:
    corpora of 5,000 games and runs of seeds 0 to 7 all learned a CE at least 0.04 under the base
    rate, with a calibration gap of at least 0.33 (the test asks 0.01 and 0.2)."""
    out = str(tmp_path_factory.mktemp("corpus") / "rule")
    corpus_command.main(
        ["--game", "doudizhu", "--players", "rule", "--games", "5000", "--out", out,
         "--batch", "2500", "--no-progress"])
    return out


@pytest.fixture(scope="module")
def run(script, rule_corpus, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("bid") / "run")
    script.main(["--corpus", rule_corpus, "--out", out, "--iterations", "300", "--eval_every",
                 "300", "--eval_games", "500"] + SMALL)
    return out


def test_examples_are_the_landlords_hands_and_results(rule_corpus):
    c, env = corpus.open_with_env(rule_corpus)
    g = next(c.games("train", 128))  # a batch of the runs' size: their compiled predict
    t = cached_trainer(SMALL_CFG, env)
    p_win, points, won, realised = jax.device_get(
        t.predict(t.init(jax.random.PRNGKey(0)).params, to_device(g)[0], g.returns))
    np.testing.assert_array_equal(realised, g.returns[:, 0])  # landlord is seat 0
    np.testing.assert_array_equal(won, g.returns[:, 0] > 0)
    hand = g.state._hands[:, 0].astype(int) - g.state._bottom.astype(int)
    assert np.all(hand.sum(1) == 17) and np.all(hand >= 0)
    assert np.all((p_win > 0) & (p_win < 1))


def test_it_learns_more_than_the_base_rate(run):
    e = json.load(open(os.path.join(run, "eval.json")))["evaluations"][-1]
    assert e["mean"] < e["base_rate_ce"] - 0.01, e
    cal = e["calibration"]  # the hands it rates best win far more often than those it rates worst
    top = np.mean([c["realised"] for c in cal[-3:]])
    bottom = np.mean([c["realised"] for c in cal[:3]])
    assert top > bottom + 0.2, cal


def test_a_run_holds_its_network_as_an_artifact(run, rule_corpus):
    """``player/`` is the best network, and it values hands as the run loaded through the
    trainer does."""
    from cardjax import agents, artifact
    from cardjax.train import corpus_run

    art = artifact.read(os.path.join(run, "player"))
    assert (art.kind, art.game, art.meta["lineage"]["iteration"]) == ("bid_value", "doudizhu", 300)
    c, env = corpus.open_with_env(rule_corpus)
    trainer = make_trainer(Config.from_dict(art.meta["network"]), env)
    old = corpus_run.load_best(run, jax.eval_shape(trainer.init, jax.random.PRNGKey(0)).params)
    value, params = agents.load_setting(env, run, "bid_value")
    g = next(c.games("valid", 16))
    hands = jnp.asarray(g.state._hands[:, 0], jnp.int32)
    got = jax.vmap(lambda h: value(params, h))(hands)
    want = jax.vmap(lambda h: trainer.value(old, h))(hands)
    for x, y in zip(got, want):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-6)


def test_a_resumed_run_is_the_uninterrupted_one(script, rule_corpus, tmp_path, capsys):
    common = ["--corpus", rule_corpus, "--eval_every", "1", "--eval_games", "30"] + SMALL
    _, cut = conftest.assert_corpus_run_resumes(script.main, common, tmp_path)
    # a run ends with a sentence on stderr: its result in words, its files, how to bid with it
    last = json.load(open(os.path.join(cut, "eval.json")))["evaluations"][-1]
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"trained 3 iterations into {cut}; the last evaluation (iteration 3): valid CE "
        f"{last['mean']:.3g} ± {last['stderr']:.2g} (nats a hand of the landlord's win "
        f"probability, lower is better; the base rate's {last['base_rate_ce']:.3g}); files: "
        "curves.png, eval.json, metrics.jsonl, best.msgpack, checkpoints, player; bid with it: "
        f"cardjax arena --game doudizhu --bidding --a bidder:value={cut},play=rule.")


@pytest.fixture(scope="module")
def bidding():
    return cardjax.make("doudizhu", bidding=True)


@pytest.fixture(scope="module")
def auctions(bidding):
    """``auctions(n)``: ``n`` new auctions.  Jitted: op by op, a batch of inits compiles each of
    its operations, and again for each batch size (about 1.5 s more in all)."""
    init = jax.jit(jax.vmap(bidding.init))
    return lambda n=24: init(jax.random.split(jax.random.PRNGKey(4), n))


def test_the_bidder_reads_its_own_hand_only(bidding, auctions, run):
    """Giving the other seats each other's hands (and changing the bottom) never changes a bid."""
    bidder = agents.get(bidding, "bidder", value=run, play="random", threshold=0.4)
    s = auctions()
    seat = np.asarray(s.current_player)
    hands = np.asarray(s._hands)
    others = [(seat + 1) % 3, (seat + 2) % 3]
    swapped = hands.copy()
    rows = np.arange(seat.size)
    swapped[rows, others[0]] = hands[rows, others[1]]
    swapped[rows, others[1]] = hands[rows, others[0]]
    t = s.replace(_hands=jnp.asarray(swapped), _bottom=jnp.roll(s._bottom, 1, axis=0))
    act = jax.jit(jax.vmap(bidder.act, in_axes=(None, 0, 0)))
    keys = jax.random.split(jax.random.PRNGKey(0), seat.size)
    a, b = np.asarray(act(bidder.params, keys, s)), np.asarray(act(bidder.params, keys, t))
    np.testing.assert_array_equal(a, b)
    assert np.all(a >= NUM_MOVES) and len(set(a.tolist())) > 1  # bids and passes, both seen


def test_without_a_value_it_bids_as_the_rule_player(bidding, auctions):
    s = auctions()
    keys = jax.random.split(jax.random.PRNGKey(0), 24)
    act = lambda p: np.asarray(jax.vmap(p.act, in_axes=(None, 0, 0))(p.params, keys, s))
    np.testing.assert_array_equal(act(agents.get(bidding, "bidder")),
                                  act(agents.get(bidding, "rule")))


def test_a_bidder_sits_in_the_bidding_arena(bidding, run):
    bidder = agents.get(bidding, "bidder", value=run, play="rule")
    r = arena.duplicate_match(bidding, bidder, agents.get(bidding, "random"), deals=4,
                              progress=False)
    assert r["games"] == 24 and r["mean"] > 0  # rule card play beats random
    assert os.path.sep in run  # a player word with a path among its settings is no run dir
    assert agents.load(bidding, f"bidder:value={run},play=rule").name == "bidder"
    with pytest.raises(ValueError, match="bidding=True"):
        agents.get(cardjax.make("doudizhu"), "bidder")
    with pytest.raises(ValueError, match="threshold"):
        agents.get(bidding, "bidder", threshold=2)
    with pytest.raises(ValueError, match="not a run directory"):
        agents.get(bidding, "bidder", value="/nonexistent")


def test_patience_stops_when_the_best_is_behind():
    from cardjax.train.corpus_run import stalled

    evals = [{"mean": m} for m in (0.7, 0.6, 0.65, 0.62)]
    assert stalled(evals, 2) and not stalled(evals, 3) and not stalled(evals[:3], 2)
    assert stalled(evals, 1, higher_is_better=True)  # 0.62 after a best of 0.7
    assert not stalled([{"mean": 0.5}, {"mean": 0.6}], 1, higher_is_better=True)
    assert stalled([{"mean": 0.8}, {"mean": 0.8}], 1, higher_is_better=True)  # a tie is no gain


def test_high_raises_the_bid_to_three(bidding, auctions, run):
    """With ``high`` below any expected points and a threshold of 0 every seat bids 3 at once; with
    the threshold at 1 every seat passes."""
    s = auctions()
    keys = jax.random.split(jax.random.PRNGKey(0), 24)

    def bids(**kw):
        p = agents.get(bidding, "bidder", value=run, **kw)
        return np.asarray(jax.vmap(p.act, in_axes=(None, 0, 0))(p.params, keys, s)) - NUM_MOVES

    assert np.all(bids(threshold=0.0, high=-100.0) == 3)
    assert np.all(bids(threshold=1.0, high=-100.0) == 0)
    assert np.all(bids(threshold=0.0) == 1)  # the lowest bid, the auction just opened


# ------------------------------------------------------------ bidding by hand strength
def _rlcard_leads(hand: str) -> int:
    """How many leads RLCard's rule agent needs to play ``hand`` out alone."""
    from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1

    agent, n = DouDizhuRuleAgentV1(), 0
    while hand:
        for card in agent.step({"raw_obs": {"trace": [], "current_hand": hand}}):
            hand = hand.replace(card, "", 1)
        n += 1
    return n


def test_the_hands_split_is_rlcards_leads_played_out():
    """The split behind the tidiness equals RLCard's rule agent leading again and again until the
    hand is empty, on random hands of 5 to 20 cards; worked examples of the whole strength."""
    from cardjax.games.doudizhu import bidder as bidder
    from cardjax.games.doudizhu import moves as m

    deck = np.array(list("".join(r * 4 for r in m.RANKS[:13]) + "BR"))
    rng = np.random.default_rng(0)
    split = jax.jit(bidder.split)
    for n in rng.choice([5, 10, 17, 20], 120):
        hand = "".join(sorted(rng.choice(deck, n, replace=False), key=m.RANK_INDEX.get))
        assert int(split(m.hand_counts(hand))[0]) == _rlcard_leads(hand), hand
    cases = {  # hand: (control, sets)
        "33345678999TJQKA2": (3, 4),  # 333 45678 999 TJQKA 2; two trios carry the 2
        "3456789TJQKA22BR": (12, 3),  # rocket, the chain 3..A, the pair of 2s
        "33344455566677788": (0, 1),  # a plane of five trios carries the 88
        "3333444455556666B": (15, 5),  # four bombs and the black joker
    }
    for hand, (control, sets) in cases.items():
        c = m.hand_counts(hand)
        assert (int(bidder.control(c)), int(bidder.sets(c))) == (control, sets), hand
        assert int(bidder.strength(c)) == control - sets


def test_strength_bids_by_its_cutoff(bidding, auctions):
    """``strength=C`` wants 1 from C, 2 from C + 2, 3 from C + 4, bids it only above the current
    bid, reads its own hand only, and cannot be combined with a value network."""
    from cardjax.games.doudizhu import bidder as bidder

    s = auctions(64)
    seat = np.asarray(s.current_player)
    own = np.asarray(jax.jit(jax.vmap(bidder.strength))(s._hands[np.arange(64), seat]))
    keys = jax.random.split(jax.random.PRNGKey(0), 64)
    raised = s.replace(bid=jnp.full_like(s.bid, 2))  # only a 3 is above the bid
    for cutoff in (-3, 0):
        p = agents.get(bidding, "bidder", strength=cutoff)
        act = jax.jit(jax.vmap(p.act, in_axes=(None, 0, 0)))  # one program for both auctions
        want = (own >= cutoff).astype(int) + (own >= cutoff + 2) + (own >= cutoff + 4)
        for auction in (s, raised):  # on the raised one, the hands that want 3 bid it, no other
            got = np.asarray(act(p.params, keys, auction)) - NUM_MOVES
            np.testing.assert_array_equal(got, np.where(want > np.asarray(auction.bid), want, 0))
            assert len(set(got.tolist())) > 1
    with pytest.raises(ValueError, match="not both"):  # a loaded value network and a strength
        bidder.make(bidding, strength=0, value=(lambda params, hand: (1.0, 0.0), None))
    with pytest.raises(ValueError, match="no setting 'cutoff'"):
        agents.get(bidding, "bidder", cutoff=0)
