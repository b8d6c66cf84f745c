"""The targets of DMC's decisions: Monte-Carlo returns per seat, with the kinds of return the
extensions ask for (lambda-returns, per-trick discounting, the ShengJi+ report's per-trick
target)."""

from __future__ import annotations

import jax
import jax.numpy as jnp

Array = jax.Array


def returns(rewards: Array, seats: Array, alive: Array, finished: Array, gamma: float,
            ticks: Array | None = None, values: Array | None = None,
            bootstrap: Array | None = None, lam: float = 1.0, outcome: Array | None = None,
            lam_where: Array | None = None):
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
    (a decision without a Q passes ``G_t'`` on whole); ``lam = 1`` is Monte-Carlo.  With
    ``lam_where`` bool[T, B] only those decisions take the lambda-return (looking back through
    every later decision of their seat); the others keep the Monte-Carlo return.

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
        if lam_where is None:
            lam_where = jnp.ones(seats.shape, bool)

        def back(carry, x):  # the Monte-Carlo return, and the lambda-return, of every seat
            g, g_lam = carry
            r, d, mine, v, b, w = x
            g = r + d[..., None] * g
            g_lam = r + d[..., None] * g_lam
            target = jnp.sum(jnp.where(mine, g, 0.0), axis=-1)
            target_lam = jnp.sum(jnp.where(mine, g_lam, 0.0), axis=-1)
            mixed = lam * target_lam + (1.0 - lam) * v
            g_lam = jnp.where(mine & b[..., None], mixed[..., None], g_lam)
            return (g, g_lam), jnp.where(w, target_lam, target)

        zero = jnp.zeros_like(rewards[0])
        _, targets = jax.lax.scan(back, (zero, zero), (rewards, disc, own, values,
                                                       bootstrap & alive, lam_where),
                                  reverse=True)
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


def episode_targets(cfg, bufs: dict, final, run: dict, hooks: tuple = ()):
    """``(targets, weights)`` float32[T, B] of a self-play batch: ``bufs`` holds the steps'
    ``rewards`` [T, B, P], ``seat``, ``alive``, ``scored`` and what the extensions recorded;
    ``final`` the states after the last step.  The extensions' ``returns`` hooks choose the
    kind of return (per trick, lambda), then ``train_forced`` applies, then their ``targets``
    hooks in order."""
    kinds = {}
    for _, h in hooks:
        if h.returns is not None:
            kinds.update(h.returns(run, bufs, final))
    target, weight = returns(bufs["rewards"] * cfg.reward_scale, bufs["seat"], bufs["alive"],
                             final.terminated, cfg.gamma, **kinds)
    if not cfg.train_forced:  # a forced move's Q chooses nothing
        weight = weight * bufs["scored"]
        target = jnp.where(weight > 0, target, 0.0)
    for _, h in hooks:
        if h.targets is not None:
            target, weight = h.targets(run, bufs, final, target, weight)
    return target, weight
