"""Gongzhu hidden information: :func:`sample_hidden_fixed` re-deals the cards a seat has not seen
into a full state consistent with what it has seen (hand sizes, shown voids), optionally forcing
some cards to given seats, and :func:`hidden_cards` / :func:`with_hidden` give the unseen cards as
counts per place and back (``HIDDEN_SPACE``).  The env's ``sample_hidden``,
``sample_hidden_fixed``, ``hidden_cards`` and ``with_hidden`` call them.  The state is
:class:`~cardjax.games.gongzhu.env.State` (this module does not import the env, which imports
it)."""

from __future__ import annotations


import jax
import jax.numpy as jnp
import numpy as np

from cardjax import shuffle
from cardjax.cards import NUM_CARDS
from cardjax.core import HiddenCards, PRNGKey


Array = jax.Array

NUM_PLAYERS = 4  # the env's seats

# The 52 cards are the kinds (one copy each); the places are the three other seats in turn.
HIDDEN_SPACE = ((13, 13, 13), 1)


def _hidden_from(s, seat) -> Array:
    """bool[52]: the cards ``seat`` has not seen (others' hands less their exposed cards)."""
    return (s.played_by < 0) & (s._owner != seat) & ~s.exposed


def _others(seat) -> Array:
    """int[3]: the other seats from the next one on (the places of ``hidden_cards``)."""
    return (seat + 1 + jnp.arange(NUM_PLAYERS - 1)) % NUM_PLAYERS


def sample_hidden_fixed(env, key: PRNGKey, state, seat, fixed) -> tuple:
    """``env.sample_hidden`` with some hidden cards forced to given seats.

    ``fixed`` (int[52]): ``-1`` = free, else the seat that must get that card.  Returns
    ``(world, feasible)``.  The fixed hidden cards are placed first (in random order), each
    to its seat if that seat may take it (not ``seat``, no shown void in its suit, a free
    place) and the rest stays placeable (Hall's condition); the other hidden cards are then
    placed as in ``env.sample_hidden``.  ``feasible`` is False when some constraint could
    not be met: a fixed hidden card that could not go to its seat (it is then placed as if
    free, so the world is always a consistent deal), or a fixed card that ``seat`` can see
    (its own, played or exposed) whose known holder differs from ``fixed``.
    With every entry ``-1`` this is exactly ``env.sample_hidden`` (same key, same world).
    """
    s = state
    fixed = jnp.asarray(fixed, jnp.int32)
    seats = jnp.arange(NUM_PLAYERS)
    hidden = _hidden_from(s, seat)
    need = jnp.sum(hidden[None, :] & (s._owner[None, :] == seats[:, None]), axis=1)
    elig = (~s.voids.T) & (seats != seat)[None, :]  # [suit, seat]
    rem = jnp.sum(hidden.reshape(4, 13), axis=1)  # hidden cards per suit
    subsets = jnp.asarray((np.arange(16)[:, None] >> np.arange(4)) & 1, bool)  # [T, suit]
    reach = jnp.any(subsets[:, :, None] & elig[None], axis=1)  # [T, seat]

    def feasible(need, rem):
        return jnp.all(subsets @ rem <= reach @ need)

    def place(carry, inp):
        need, rem, owner, ok_all = carry
        card, k = inp
        suit = card // 13
        rem_after = rem.at[suit].add(-1)
        ok = jax.vmap(lambda j: feasible(need.at[j].add(-1), rem_after))(seats)
        w = jnp.where(ok & elig[suit] & (need > 0), need, 0).astype(jnp.float32)
        target = fixed[card]
        w_fixed = jnp.where(seats == target, w, 0.0)
        forced = hidden[card] & (target >= 0)
        can = jnp.any(w_fixed > 0)
        w = jnp.where(forced & can, w_fixed, w)
        j = jax.random.categorical(k, jnp.log(w)).astype(jnp.int32)
        take = hidden[card]
        need = jnp.where(take, need.at[j].add(-1), need)
        rem = jnp.where(take, rem_after, rem)
        owner = jnp.where(take, owner.at[card].set(j.astype(jnp.int8)), owner)
        return (need, rem, owner, ok_all & (can | ~forced)), None

    k_perm, k_place = jax.random.split(key)
    order = shuffle.permutation(k_perm, NUM_CARDS)  # jax.random.permutation's, without a sort
    # At most 39 cards are hidden from a seat: visit those first (the fixed ones before the
    # free ones), each group in random order.
    rank = jnp.where(hidden & (fixed >= 0), 0, jnp.where(hidden, 1, 2))
    order = order[shuffle.stable_order(rank[order], 3, 3 * 13)]
    keys = jax.random.split(k_place, 3 * 13)
    known_ok = jnp.all(hidden | (fixed < 0) | (fixed == s._owner))
    (_, _, owner, ok_all), _ = jax.lax.scan(
        place, (need, rem, s._owner, known_ok), (order, keys))
    world = s.replace(_owner=owner)
    mask = jnp.where(s.terminated, s.legal_action_mask, env._legal_mask(world))
    return world.replace(legal_action_mask=mask), ok_all


def hidden_cards(state, seat) -> HiddenCards:
    """The cards ``seat`` has not seen, as counts per place (the three other seats in turn,
    ``HIDDEN_SPACE``)."""
    s = state
    others = _others(seat)
    hidden = _hidden_from(s, seat)
    suit = jnp.arange(NUM_CARDS) // 13
    allowed = ~s.voids[others][:, suit].T  # [card, place]
    truth = hidden[:, None] & (s._owner[:, None] == others[None, :])
    return HiddenCards(copies=hidden.astype(jnp.int32), allowed=allowed,
                       capacity=jnp.sum(truth, axis=0, dtype=jnp.int32),
                       truth=truth.astype(jnp.int32))


def with_hidden(env, state, seat, counts):
    """``state`` with the cards ``seat`` has not seen placed as ``counts`` says (one per card,
    :func:`hidden_cards`' places)."""
    s = state
    others = _others(seat)
    hidden = _hidden_from(s, seat)
    owner = jnp.where(hidden, others[jnp.argmax(counts, axis=1)], s._owner)
    world = s.replace(_owner=owner.astype(s._owner.dtype))
    mask = jnp.where(s.terminated, s.legal_action_mask, env._legal_mask(world))
    return world.replace(legal_action_mask=mask)
