"""PolicyValueNet, masked policies, the ScrofaZero loss and its optimizer."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from cardjax.games.gongzhu.env import ORACLE_SIZE
from cardjax.nets.policy_value import (
    PolicyValueNet,
    count_params,
    from_config,
    masked_log_policy,
    masked_policy,
    policy_value_param_count,
)
from cardjax.train import alphazero_loss, kl_divergence, make_optimizer

SMALL = dict(width=32, depth=2)
SMALL_NET = PolicyValueNet(**SMALL)
# One compiled init and apply shared by the tests (compile time dominates on CPU).
_INIT = jax.jit(SMALL_NET.init)
_APPLY = jax.jit(SMALL_NET.apply)


def _init(key=0):
    """Parameters of ``SMALL_NET``."""
    return _INIT(jax.random.PRNGKey(key), jnp.zeros((1, ORACLE_SIZE)))


def _num_params(net):
    """Parameter count from shapes only (no computation)."""
    shapes = jax.eval_shape(net.init, jax.random.PRNGKey(0), jnp.zeros((1, ORACLE_SIZE)))
    return count_params(shapes)


@pytest.fixture(scope="module")
def batch(gz, gz_games):
    """Oracle observations of 16 real mid-game Gongzhu positions (two from each of the session's
    random games), their legal masks, random target policies over legal actions and random
    target values in points."""
    _, states, _ = gz_games  # stacked [game, step]
    n_games = states.current_player.shape[0]
    rng = np.random.default_rng(0)
    games = np.repeat(np.arange(n_games), 2)
    t = rng.integers(0, 51, size=games.size)  # the state after action t: never terminal
    pick = jax.tree_util.tree_map(lambda x: jnp.asarray(x[games, t]), states)
    assert not np.any(np.asarray(pick.terminated))
    obs = jax.jit(jax.vmap(gz.env.observe_oracle))(pick, pick.current_player)
    mask = np.asarray(pick.legal_action_mask)
    raw = rng.random(mask.shape) * mask
    target_p = raw / raw.sum(-1, keepdims=True)
    target_v = rng.uniform(-300, 100, size=games.size).astype(np.float32)
    return obs, jnp.asarray(mask), jnp.asarray(target_p, jnp.float32), jnp.asarray(target_v)


def test_output_shapes_and_value_scale(batch):
    obs = batch[0]
    params = _init()
    unscaled = PolicyValueNet(**SMALL, value_scale=1.0)
    both = jax.jit(lambda p, x: (SMALL_NET.apply(p, x), unscaled.apply(p, x)))
    (logits, value), (logits1, value1) = both(params, obs)
    assert logits.shape == (len(obs), 52) and value.shape == (len(obs),)
    assert logits.dtype == jnp.float32 and value.dtype == jnp.float32
    np.testing.assert_allclose(logits1, logits)
    np.testing.assert_allclose(value, 100 * value1, rtol=1e-5)  # value in points = 100 x raw


@pytest.mark.parametrize("width,depth,norm", [(16, 1, "layer"), (32, 2, "layer"),
                                              (32, 3, "none"), (256, 4, "layer")])
def test_param_count(width, depth, norm):
    net = PolicyValueNet(width=width, depth=depth, norm=norm)
    n = _num_params(net)
    assert n == policy_value_param_count(ORACLE_SIZE, 52, width, depth, norm)
    if depth > 1:
        smaller = _num_params(PolicyValueNet(width=width, depth=depth - 1, norm=norm))
        assert smaller < n
    wider = _num_params(PolicyValueNet(width=2 * width, depth=depth, norm=norm))
    assert wider > n


def test_default_size():
    assert policy_value_param_count(ORACLE_SIZE) == 653_877
    assert _num_params(PolicyValueNet()) == 653_877
    assert count_params(_init()) == policy_value_param_count(
        ORACLE_SIZE, 52, **SMALL)


def test_a_run_config_rebuilds_its_net():
    """A player rebuilds the trainer's network from its saved config alone (what else the config
    holds is the trainer's)."""
    from cardjax.train import alphazero

    cfg = alphazero.Config(width=32, depth=2)
    assert from_config(cfg.to_dict()) == alphazero.make_net(cfg) == SMALL_NET


def test_masked_policy_modes():
    rng = np.random.default_rng(1)
    logits = jnp.asarray(rng.normal(size=(4, 52)) * 3, jnp.float32)
    mask = jnp.asarray(rng.random((4, 52)) < 0.3).at[:, 0].set(True)
    mask_np = np.asarray(mask)

    paper = np.asarray(masked_policy(logits, mask, "paper"))
    np.testing.assert_allclose(paper.sum(-1), 1, atol=1e-5)
    zeroed = np.where(mask_np, np.asarray(logits), 0.0)
    expect = np.exp(zeroed - zeroed.max(-1, keepdims=True))
    expect /= expect.sum(-1, keepdims=True)
    np.testing.assert_allclose(paper, expect, rtol=1e-5, atol=1e-7)
    assert np.all(paper[~mask_np] > 0)  # the paper's masking leaves mass on illegal actions
    np.testing.assert_allclose(masked_policy(logits, mask), paper)  # "paper" is the default

    excl = np.asarray(masked_policy(logits, mask, "exclude"))
    np.testing.assert_allclose(excl.sum(-1), 1, atol=1e-5)
    assert np.all(excl[~mask_np] == 0.0)
    legal_logits = np.where(mask_np, np.asarray(logits), -np.inf)
    expect = np.exp(legal_logits - legal_logits.max(-1, keepdims=True))
    expect /= expect.sum(-1, keepdims=True)
    np.testing.assert_allclose(excl, expect, rtol=1e-5, atol=1e-7)

    for how in ("paper", "exclude"):
        logp = np.asarray(masked_log_policy(logits, mask, how))
        p = np.asarray(masked_policy(logits, mask, how))
        np.testing.assert_allclose(np.exp(logp), p, rtol=1e-5, atol=1e-7)
    assert np.all(np.isneginf(np.asarray(masked_log_policy(logits, mask, "exclude"))[~mask_np]))

    # Non-finite illegal logits do not leak NaN; an all-False mask gives uniform, not NaN.
    bad = logits.at[:, 1].set(jnp.inf).at[:, 2].set(jnp.nan)
    m = mask.at[:, 1].set(False).at[:, 2].set(False)
    for how in ("paper", "exclude"):
        assert np.all(np.isfinite(masked_policy(bad, m, how)))
    np.testing.assert_allclose(masked_policy(logits, jnp.zeros((4, 52), bool), "exclude"), 1 / 52,
                               rtol=1e-5)
    with pytest.raises(ValueError):
        masked_policy(logits, mask, "other")


def test_kl_matches_numpy():
    rng = np.random.default_rng(2)
    t = rng.random((6, 52)) * (rng.random((6, 52)) < 0.4)
    t[:, 3] += 0.1
    t /= t.sum(-1, keepdims=True)
    q = rng.random((6, 52)) + 0.01
    q /= q.sum(-1, keepdims=True)
    expect = np.array([sum(ti * np.log(ti / qi) for ti, qi in zip(tr, qr) if ti > 0)
                       for tr, qr in zip(t, q)])
    got = kl_divergence(jnp.asarray(t, jnp.float32), jnp.log(jnp.asarray(q, jnp.float32)))
    np.testing.assert_allclose(got, expect, rtol=1e-4, atol=1e-6)
    # target zeros contribute 0 even against log q = -inf
    logq = jnp.log(jnp.asarray(q, jnp.float32)).at[:, 0].set(-jnp.inf)
    t0 = jnp.asarray(t, jnp.float32).at[:, 0].set(0.0)
    assert np.all(np.isfinite(kl_divergence(t0, logq)))


@pytest.mark.parametrize("how", ["paper", "exclude"])
def test_loss_formula_and_zero(how):
    rng = np.random.default_rng(3)
    b, a = 5, 52
    logits = jnp.asarray(rng.normal(size=(b, a)), jnp.float32)
    value = jnp.asarray(rng.normal(size=b) * 50, jnp.float32)
    mask = jnp.asarray(rng.random((b, a)) < 0.5).at[:, 0].set(True)
    apply_fn = lambda params, obs: (params["logits"], params["value"])  # noqa: E731
    params = {"logits": logits, "value": value}
    loss_jit = jax.jit(alphazero_loss, static_argnames=("apply_fn", "mask_how"))

    # targets equal to the net's own outputs: loss 0
    p_net = masked_policy(logits, mask, how)
    loss, metrics = loss_jit(params, apply_fn, None, mask, p_net, value,
                                   value_weight=0.5, mask_how=how)
    assert abs(float(loss)) < 1e-5
    assert float(metrics["value_l1"]) == 0.0

    # arbitrary legal targets: KL + lambda * |dv| computed in NumPy
    raw = rng.random((b, a)) * np.asarray(mask) * (rng.random((b, a)) < 0.6)
    raw[:, 0] += 0.05
    tp = raw / raw.sum(-1, keepdims=True)
    tv = rng.normal(size=b) * 100
    q = np.asarray(p_net, np.float64)
    kl = np.array([sum(ti * np.log(ti / qi) for ti, qi in zip(tr, qr) if ti > 0)
                   for tr, qr in zip(tp, q)])
    expect = np.mean(kl + 0.5 * np.abs(tv - np.asarray(value)))
    loss, metrics = loss_jit(params, apply_fn, None, mask, jnp.asarray(tp, jnp.float32),
                                   jnp.asarray(tv, jnp.float32), value_weight=0.5, mask_how=how)
    np.testing.assert_allclose(float(loss), expect, rtol=1e-4)
    np.testing.assert_allclose(float(metrics["policy_kl"]), kl.mean(), rtol=1e-4)
    illegal = float(metrics["illegal_mass"])
    assert illegal > 0 if how == "paper" else illegal == 0

    tp, tv = jnp.asarray(tp, jnp.float32), jnp.asarray(tv, jnp.float32)
    grad_fn = jax.grad(lambda p: alphazero_loss(p, apply_fn, None, mask, tp, tv, mask_how=how)[0])
    grads = jax.jit(grad_fn)(params)
    assert all(np.all(np.isfinite(g)) for g in jax.tree_util.tree_leaves(grads))


def test_make_optimizer():
    opt = make_optimizer()
    params = {"w": jnp.ones(3)}
    state = opt.init(params)
    adam = state[0]
    assert isinstance(adam, optax.ScaleByAdamState)
    # Adam's first step moves each coordinate by lr * sign(g) regardless of betas.
    upd, _ = opt.update({"w": jnp.array([2.0, -3.0, 0.5])}, state, params)
    np.testing.assert_allclose(upd["w"], [-1e-3, 1e-3, -1e-3], rtol=1e-3)
    # The betas are the paper's: check the second step against a hand-rolled Adam.
    g1, g2 = jnp.array([2.0, -3.0, 0.5]), jnp.array([1.0, 1.0, -1.0])
    _, s1 = opt.update({"w": g1}, state, params)
    u2, _ = opt.update({"w": g2}, s1, params)
    b1, b2, eps = 0.3, 0.999, 1e-8
    m = b1 * (1 - b1) * g1 + (1 - b1) * g2
    v = b2 * (1 - b2) * g1**2 + (1 - b2) * g2**2
    expect = -1e-3 * (m / (1 - b1**2)) / (jnp.sqrt(v / (1 - b2**2)) + eps)
    np.testing.assert_allclose(u2["w"], expect, rtol=1e-4)


@pytest.mark.parametrize("how", ["paper", "exclude"])
def test_optimizer_step_lowers_loss(batch, how):
    obs, mask, tp, tv = batch
    assert obs.shape == (len(tv), ORACLE_SIZE) and len(tv) >= 8
    assert np.all(np.asarray(obs)[:, :52].sum(-1) >= 1)  # the mover holds a card
    net = SMALL_NET
    params = _init(key=3)
    opt = make_optimizer()
    opt_state = opt.init(params)

    loss_fn = lambda p: alphazero_loss(p, net.apply, obs, mask, tp, tv, mask_how=how)  # noqa: E731

    @jax.jit
    def train_step(params, opt_state):
        (loss, metrics), grads = jax.value_and_grad(loss_fn, has_aux=True)(params)
        updates, opt_state = opt.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss, metrics

    # train_step reports the loss *before* its update, so the losses of successive steps are the
    # losses of params after 0, 1, 2, ... updates (one compile per mode).
    losses = []
    p = params
    for _ in range(6):
        p, opt_state, loss, metrics = train_step(p, opt_state)
        losses.append(float(loss))
        assert all(np.isfinite(float(x)) for x in metrics.values())
    assert losses[1] < losses[0]  # one Adam step lowers the loss on the fixed batch
    assert losses[-1] < losses[1]


def test_jit_and_purity(batch):
    obs = batch[0]
    params = _init()
    a = _APPLY(params, obs)
    b = _APPLY(params, obs)
    for y, z in zip(a, b):  # same params + input -> same output
        np.testing.assert_array_equal(y, z)
    # params are a plain pytree usable as a lax.scan carry; unbatched inputs work too
    def body(p, x):
        logits, value = SMALL_NET.apply(p, x)
        assert logits.shape == (52,) and value.shape == ()
        return p, value
    _, vals = jax.jit(lambda p, xs: jax.lax.scan(body, p, xs))(params, obs)
    np.testing.assert_allclose(vals, a[1], rtol=1e-5, atol=1e-4)
    # different params -> different outputs (apply depends on params and input only)
    assert not np.allclose(_APPLY(_init(key=1), obs)[0], a[0])
