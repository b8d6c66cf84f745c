"""Tractor hidden-state sampling: :func:`sample_hidden` re-deals the cards a seat has not seen into
a full state consistent with what it has seen (sizes, shown voids, where its buried cards went
when a chaodi took them over), the worlds a search over hidden information plays in.  The env's
``sample_hidden`` calls it."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from cardjax.core import Array, HiddenCards, PRNGKey
from cardjax.games.tractor import moves as tm
from cardjax.games.tractor.moves import BURY, DECLARE, NUM_TYPES, PLAY


class _Unseen(NamedTuple):
    """What ``seat`` has not seen, by place: ``hand`` [4, 54] (others' cards less those shown),
    ``kitty`` [54] (unless ``seat`` buried it), ``deck`` [54] (undealt), and what it knows about
    where they are: ``void`` [4, 5] shown voids, ``takers`` [4] the seats that took its earlier
    burial with the kitty, ``held_back`` [54] the copies of that burial still unseen (with the
    takers or in the kitty), and ``rev`` [4, 54] the cards known in the others' hands."""

    hand: Array
    kitty: Array
    deck: Array
    void: Array
    takers: Array
    held_back: Array
    rev: Array
    kitty_hidden: Array
    pool: Array  # [54]: hand + kitty + deck
    undealt: Array  # bool[108]: the deal positions not dealt yet


def _unseen(s, seat) -> _Unseen:
    seats = jnp.arange(4)
    hands = s._hands.astype(jnp.int32)
    known_kitty = (s.burier == seat) & (s.phase >= BURY)
    others = seats != seat
    # cards of other seats everybody has seen: revealed ones, and a move being built
    building = (s.phase == PLAY) & (seats == s.current_player)
    rev = jnp.where(building[:, None], jnp.maximum(s.revealed, s.trick), s.revealed)
    rev = jnp.where(others[:, None], rev.astype(jnp.int32), 0)
    hid_hand = jnp.where(others[:, None], hands - rev, 0)  # [4, 54]
    kitty_hidden = (s.phase >= BURY) & ~known_kitty
    hid_kitty = jnp.where(kitty_hidden, s._kitty.astype(jnp.int32), 0)
    undealt = jnp.arange(108) >= jnp.where(s.phase == DECLARE, s.turn + 1, 108)
    # the first kitty stays in the deal until it is taken
    deck_counts = jnp.zeros(NUM_TYPES, jnp.int32).at[s._deal.astype(jnp.int32)].add(undealt)
    pool = jnp.sum(hid_hand, axis=0) + hid_kitty + deck_counts  # [54]
    void = jnp.where(s.phase == PLAY, s.voids, False)  # [4, 5]
    takers = s._takers[seat] & others
    shown = jnp.sum(jnp.where(takers[:, None], s.played.astype(jnp.int32) + rev, 0), axis=0)
    held_back = jnp.clip(s._bury_mark[seat].astype(jnp.int32) - shown, 0, pool)
    held_back = jnp.where(known_kitty, 0, held_back)
    return _Unseen(hid_hand, hid_kitty, deck_counts, void, takers, held_back, rev, kitty_hidden,
                   pool, undealt)


def sample_hidden(env, key: PRNGKey, state, seat):
    """A full state of the Tractor ``env`` consistent with what ``seat`` has seen in ``state``:
    the cards it has not seen (others' hands less their revealed cards, the kitty unless
    ``seat`` buried it, the undealt cards) are re-dealt at random, each place keeping its size,
    no seat receiving an effective suit it has shown void in, and the cards ``seat`` buried
    before a chaodi took them over (less those the takers have shown since) staying in the
    takers' hands or the kitty. Cards are placed one at a time in random order, each to a place
    drawn in proportion to its free room among those that keep the rest placeable (Hall's
    condition over the sets of card classes: 5 effective suits, each free or held to the
    takers), so sampling never dead-ends; with no voids and no such cards it is uniform. (A seat
    that takes its own buried cards back forgets where the others went; pairs not followed are
    not tracked.)"""
    s = state
    seats = jnp.arange(4)
    others = seats != seat
    u = _unseen(s, seat)
    hands, rev, hid_hand, hid_kitty, deck_counts, pool = (
        s._hands.astype(jnp.int32), u.rev, u.hand, u.kitty, u.deck, u.pool)
    room = jnp.concatenate([jnp.sum(hid_hand, axis=1), jnp.sum(hid_kitty)[None],
                            jnp.sum(deck_counts)[None]])  # 6 places
    undealt = u.undealt
    eff, _, _ = tm.context(s.level, s.trump)
    eff = eff[:NUM_TYPES]
    takes_suit = jnp.concatenate([~u.void, jnp.ones((2, 5), bool)])  # [6 places, 5 suits]
    # copies of this seat's earlier burial still hidden: only with the takers or in the kitty
    takers, held_back = u.takers, u.held_back
    to_takers = jnp.concatenate([takers, jnp.array([True, False])])  # [6]
    takes = jnp.concatenate([takes_suit, takes_suit & to_takers[:, None]], axis=1)  # [6, 10]
    # physical copies: copy 0 / 1 of each type, present when pool > copy; class = suit, +5
    # for a copy held to the takers
    ptype = jnp.arange(108) % NUM_TYPES
    copy = jnp.arange(108) // NUM_TYPES
    pclass = eff[ptype] + 5 * (copy < held_back[ptype])
    present = copy < pool[ptype]
    rem = jnp.zeros(10, jnp.int32).at[pclass].add(present)
    subsets = jnp.asarray((np.arange(1024)[:, None] >> np.arange(10)) & 1, bool)  # [1024, 10]
    reach = jnp.any(subsets[:, :, None] & takes.T[None], axis=1).astype(jnp.int32)  # [1024, 6]
    sub_i = subsets.astype(jnp.int32)

    def feasible(room, rem):  # Hall's condition over the sets of classes
        return jnp.all(sub_i @ rem <= reach @ room)

    def place(carry, inp):
        room, rem = carry
        card, k, ok = inp
        cls = pclass[card]
        rem_after = rem.at[cls].add(-1)
        fits = jax.vmap(lambda j: feasible(room.at[j].add(-1), rem_after))(jnp.arange(6))
        w = jnp.where(fits & takes[:, cls] & (room > 0), room, 0).astype(jnp.float32)
        w = jnp.where(jnp.sum(w) > 0, w, room.astype(jnp.float32))  # never needed
        j = jnp.where(ok, jax.random.categorical(k, jnp.log(w)), 6)
        room = room.at[jnp.minimum(j, 5)].add(jnp.where(ok, -1, 0))
        rem = jnp.where(ok, rem_after, rem)
        return (room, rem), j

    k1, k2 = jax.random.split(key)
    order = jnp.argsort(jnp.where(present, jax.random.uniform(k1, (108,)), 2.0))
    _, dest = jax.lax.scan(place, (room, rem), (order, jax.random.split(k2, 108), present[order]))
    onehot = (dest[:, None] == jnp.arange(6)[None, :]).astype(jnp.int32)  # [108, 6]
    per = jnp.zeros((NUM_TYPES, 6), jnp.int32).at[ptype[order]].add(onehot)  # [54, 6]
    new_hands = jnp.where(others[:, None], rev + per[:, :4].T, hands)
    new_kitty = jnp.where(u.kitty_hidden, per[:, 4], s._kitty.astype(jnp.int32))
    # the undealt cards, in the deck order of the places that were undealt
    deck_cards = jnp.where(dest == 5, ptype[order], 99)
    deck_sorted = jnp.sort(deck_cards)  # types of the new deck tail (random order is not
    perm = jax.random.permutation(k1, 108)  # needed for consistency, but keeps it uniform)
    tail = deck_sorted[jnp.argsort(jnp.where(deck_sorted < 99, perm, 1000))]
    idx = jnp.cumsum(undealt) - 1
    new_deal = jnp.where(undealt, tail[jnp.clip(idx, 0, 107)], s._deal.astype(jnp.int32))
    world = s.replace(_hands=new_hands.astype(jnp.int8), _kitty=new_kitty.astype(jnp.int8),
                      _deal=new_deal.astype(jnp.int8))
    return _with_legal(env, s, world, seat)


def _with_legal(env, s, world, seat):
    """``world`` with its legal mask: ``seat``'s own choices (and a finished game's) are
    ``s``'s."""
    mask = jnp.where(s.terminated | (s.current_player == seat), s.legal_action_mask,
                     env._legal_mask(world))
    return world.replace(legal_action_mask=mask)


# The 54 card types are the kinds (two copies each); the places are the three other seats in
# turn, then the kitty.  Described from the burial on (while dealing, the undealt cards would be
# a place of up to 107; no inference is needed there).  The taker of the kitty holds 33 cards.
HIDDEN_SPACE = ((33, 33, 33, 8), 2)


def _places(seat):
    return (seat + 1 + jnp.arange(3)) % 4


def hidden_cards(s, seat) -> HiddenCards:
    """:meth:`Env.hidden_cards` for Tractor (``described`` from the burial on)."""
    u = _unseen(s, seat)
    places = _places(seat)
    eff, _, _ = tm.context(s.level, s.trump)
    eff = eff[:NUM_TYPES]
    truth = jnp.concatenate([u.hand[places].T, u.kitty[:, None]], axis=1)  # [54, 4]
    allowed = jnp.concatenate([~u.void[places][:, eff].T, jnp.ones((NUM_TYPES, 1), bool)],
                              axis=1)
    group = jnp.concatenate([u.takers[places], u.kitty_hidden[None]])
    return HiddenCards(copies=jnp.sum(truth, axis=1), allowed=allowed,
                       capacity=jnp.sum(truth, axis=0), truth=truth, least=u.held_back,
                       group=group, described=s.phase >= BURY)


def with_hidden(env, s, seat, counts):
    """:meth:`Env.with_hidden` for Tractor."""
    u = _unseen(s, seat)
    counts = jnp.asarray(counts, jnp.int32)
    places = _places(seat)
    hands = s._hands.astype(jnp.int32).at[places].set(u.rev[places] + counts[:, :3].T)
    kitty = jnp.where(u.kitty_hidden, counts[:, 3], s._kitty.astype(jnp.int32))
    world = s.replace(_hands=hands.astype(s._hands.dtype), _kitty=kitty.astype(s._kitty.dtype))
    return _with_legal(env, s, world, seat)
