"""Redraw what the given seats cannot know (rules §2.3): a determinization for search bots.

Hidden are the hands of the other seats, the draw pile and the face-down discard pile, a deal
or a roll that is still in progress, and the cards a power owner has picked but not yet
revealed. Cards a seat of `known_to` knows to be in a hand (from a card 10 swap) or in the
discard pile (its own discards, crashed columns) stay where they are; every other hidden card
is dealt again uniformly into the same hidden places, keeping every size.

Approximations (documented in the package docstring): the redraw does not condition on the
inferences "that player had no legal card" (Last Chance, crash, first-roll reroll) nor on
the deal's colour-spread rule, and knowledge is kept only as "card c is in place x"
(what a third party learns from seeing a swap is dropped).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from engine.riviera import queries
from engine.riviera.cards import HAND_SIZE, bits, mask_of
from engine.riviera.phases import DEAL, HOLDER_DRAW, REMOVED_DRAW, ROLL

if TYPE_CHECKING:  # the state's type, for mypyc (state.py imports this module)
    from engine.riviera.state import RivieraState


def resample(state: RivieraState, known_to: frozenset[int], rng: random.Random):
    if state.phase in (REMOVED_DRAW, HOLDER_DRAW):
        return state
    s = state.copy()
    if s.phase == DEAL:
        _redeal(s, rng)
        return s
    if s.phase == ROLL:  # the unfinished roll is seen by nobody
        s.dice = tuple(rng.randint(1, 6) if v else 0 for v in s.dice)
    _redraw_cards(s, known_to, rng)
    _repick_hidden_choices(s, known_to, rng)
    return s


def _redeal(s: RivieraState, rng: random.Random) -> None:
    """A deal in progress is seen by nobody: draw the cards dealt so far again."""
    dealt = sum(len(hand) for hand in s.hands)
    deck = bits(s.in_use)
    rng.shuffle(deck)
    hands = []
    for seat in range(s.num_players):
        size = min(HAND_SIZE, max(0, dealt - seat * HAND_SIZE))
        hands.append(tuple(sorted(deck[:size])))
        deck = deck[size:]
    s.hands = tuple(hands)
    s.deck = tuple(sorted(deck))


def _redraw_cards(s: RivieraState, known_to: frozenset[int], rng: random.Random) -> None:
    n = s.num_players
    hidden = [q for q in range(n) if q not in known_to and s.hands[q]]
    pinned = [0] * n
    for q in hidden:
        for seat in known_to:
            pinned[q] |= s.known[seat * n + q]
    pinned_discard = 0
    for seat in known_to:
        pinned_discard |= s.known_disc[seat]
    pool_mask = queries.draw_pile(s) | (s.discard & ~pinned_discard)
    for q in hidden:
        pool_mask |= mask_of(s.hands[q]) & ~pinned[q]
    pool = bits(pool_mask)
    rng.shuffle(pool)
    hands = list(s.hands)
    for q in hidden:
        free = len(s.hands[q]) - bin(pinned[q]).count("1")
        hands[q] = tuple(sorted(bits(pinned[q]) + pool[:free]))
        pool = pool[free:]
    discard_free = bin(s.discard).count("1") - bin(pinned_discard).count("1")
    s.discard = pinned_discard | mask_of(pool[:discard_free])
    s.hands = tuple(hands)
    _forget_stale_knowledge(s, known_to)


def _forget_stale_knowledge(s: RivieraState, known_to: frozenset[int]) -> None:
    """Seats outside `known_to` keep only what is still true after the redraw."""
    n = s.num_players
    hand_masks = [mask_of(hand) for hand in s.hands]
    s.known = tuple(
        m if i // n in known_to else m & hand_masks[i % n] for i, m in enumerate(s.known)
    )
    s.known_disc = tuple(
        m if seat in known_to else m & s.discard for seat, m in enumerate(s.known_disc)
    )


def _repick_hidden_choices(s: RivieraState, known_to: frozenset[int], rng: random.Random) -> None:
    """Cards picked for a card 10 power but not yet revealed must lie in the redrawn hands."""
    if s.picked and s.queue[0] not in known_to:
        s.picked = tuple(rng.sample(s.hands[s.queue[0]], len(s.picked)))
    if s.taken:  # drawn at random from the target and not yet seen by anyone
        s.taken = tuple(rng.sample(s.hands[s.target], len(s.taken)))
