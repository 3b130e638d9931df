"""Riviera's hidden information (rules §2.3): `resample` (State.resample) and `sample_state`
(Riviera.sample_state), the redraws a search bot plans from.

`resample` redraws what the given seats cannot know. Hidden are the hands of the other seats,
the draw pile and the face-down discard pile (also while the deal is in progress), a roll that is still in progress, and
the cards a power owner has picked but not yet revealed. Cards a seat of `known_to` knows to be
in a hand (from a card 10 swap) or in the discard pile (its own discards, crashed columns) stay
where they are; every other hidden card is dealt again uniformly into the same hidden places,
keeping every size.

Approximations (documented in the package docstring): the redraw does not condition on the
inferences "that player had no legal card" (Last Chance, crash, first-roll reroll) nor on
the deal's colour-spread rule, and knowledge is kept only as "card c is in place x"
(what a third party learns from seeing a swap is dropped).

`sample_state` rebuilds a full state from one seat's observation. Everything public is copied
from the observation; the other hands, the discard pile and the draw pile are dealt uniformly
from the cards the seat cannot place, keeping the cards it knows (`known_hands`,
`known_discards`). What the observation cannot tell is set to a neutral value that leads to the
same observation: an unfinished roll restarts (a deal in progress keeps the seat's cards so far
and draws the others' hands of their sizes), the count of rejected first rolls is 0,
cards a power owner picked are drawn from its sampled hand.

The state to fill in comes from the caller, game.py (a new RivieraState): this module works on
the data of state.py and never names the class above it.
"""

from __future__ import annotations

import random
from typing import Any

from engine.riviera import queries
from engine.riviera.components import COLOURS, DIE_NAMES, NUM_COLOURS, bits, mask_of
from engine.riviera.phases import (
    DEAL,
    FALLBACK_DISCARD,
    HOLDER_DRAW,
    PHASE_NAMES,
    REMOVED_DRAW,
    ROLL,
    STATUS_NAMES,
    SWAP_PICK,
)  # fmt: skip
from engine.riviera.state import RivieraData


def resample(state: RivieraData, known_to: frozenset[int], rng: random.Random) -> RivieraData:
    if state.phase in (REMOVED_DRAW, HOLDER_DRAW):
        return state
    s = state.copy()
    if s.phase == DEAL:
        _redeal(s, known_to, rng)
        return s
    if s.phase == ROLL:  # the unfinished roll is seen by nobody
        s.dice = tuple(rng.randint(1, 6) if v else 0 for v in s.dice)
    _redraw_cards(s, known_to, rng)
    _repick_hidden_choices(s, known_to, rng)
    return s


def _redeal(s: RivieraData, known_to: frozenset[int], rng: random.Random) -> None:
    """A deal in progress: the seats of `known_to` keep the cards dealt to them so far (they see
    them); every other hand gets as many cards again, drawn from the cards they do not hold."""
    _deal_around(s, {seat: s.hands[seat] for seat in known_to}, [len(hand) for hand in s.hands], rng)


def _deal_around(s: RivieraData, kept: dict[int, tuple[int, ...]], sizes: list[int], rng: random.Random) -> None:
    """Hands of `sizes` during the deal: the `kept` ones as they are, the others drawn uniformly
    from the cards in use that no kept hand holds; the rest is the deck still to deal."""
    held = {card for hand in kept.values() for card in hand}
    deck = [card for card in bits(s.in_use) if card not in held]
    rng.shuffle(deck)
    hands = []
    for seat, size in enumerate(sizes):
        if seat in kept:
            hands.append(tuple(kept[seat]))
            continue
        hands.append(tuple(sorted(deck[:size])))
        deck = deck[size:]
    s.hands = tuple(hands)
    s.deck = tuple(sorted(deck))


def _redraw_cards(s: RivieraData, known_to: frozenset[int], rng: random.Random) -> None:
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


def _forget_stale_knowledge(s: RivieraData, known_to: frozenset[int]) -> None:
    """Seats outside `known_to` keep only what is still true after the redraw."""
    n = s.num_players
    hand_masks = [mask_of(hand) for hand in s.hands]
    s.known = tuple(
        m if i // n in known_to else m & hand_masks[i % n] for i, m in enumerate(s.known)
    )
    s.known_disc = tuple(
        m if seat in known_to else m & s.discard for seat, m in enumerate(s.known_disc)
    )


def _repick_hidden_choices(s: RivieraData, known_to: frozenset[int], rng: random.Random) -> None:
    """Cards picked for a card 10 power but not yet revealed must lie in the redrawn hands."""
    if s.picked and s.queue[0] not in known_to:
        s.picked = tuple(rng.sample(s.hands[s.queue[0]], len(s.picked)))
    if s.taken:  # drawn at random from the target and not yet seen by anyone
        s.taken = tuple(rng.sample(s.hands[s.target], len(s.taken)))


# -- Riviera.sample_state: a state rebuilt from one observation ------------------------------


def sample_state(initial: RivieraData, obs: dict[str, Any], rng: random.Random) -> RivieraData:
    """`initial` (a new game of the observation's rules, which this fills in) made to give `obs`
    to its seat, every hidden card drawn with `rng`."""
    s = initial
    seat, n = obs["seat"], s.rules.num_players
    _copy_public(s, obs)
    s.settle_kind()
    if s.phase in (REMOVED_DRAW, HOLDER_DRAW):
        return s
    if s.phase == DEAL:  # the seat's cards so far, the others' hands of their sizes drawn again
        _deal_around(s, {seat: tuple(obs["hand"])}, obs["hand_sizes"], rng)
        return s
    s.hands = _deal_hidden(s, obs, rng)
    known = [0] * (n * n)
    for q, cards in enumerate(obs["known_hands"]):
        known[seat * n + q] = mask_of(cards)
    s.known = tuple(known)
    s.known_disc = tuple(mask_of(obs["known_discards"]) if q == seat else 0 for q in range(n))
    _power_state(s, obs, rng)
    return s


def _copy_public(s: RivieraData, obs: dict[str, Any]) -> None:
    n = s.num_players
    colours = [COLOURS.index(c) for c in obs["colours"]]
    s.colours = tuple(colours)
    s.in_use = sum(0xFFF << (12 * c) for c in colours)
    s.in_deck = tuple(bits(s.in_use))
    s.removed = COLOURS.index(obs["removed_colour"]) if obs["removed_colour"] else -1
    s.phase = _phase(obs)
    s.holder = -1 if obs["holder"] is None else obs["holder"]
    s.round_no, s.turn_no = obs["round"], obs["turn"]
    s.scores = tuple(obs["scores"])
    s.status = tuple(STATUS_NAMES.index(x) for x in obs["status"])
    s.lc_used = tuple(obs["last_chance_used"])
    s.columns = tuple(tuple(c) for c in obs["columns"])
    s.played = tuple(tuple(c) for c in obs["played_this_turn"])
    s.hands = ((),) * n
    s.deck = s.in_deck if s.phase == DEAL else ()
    dice = [obs["dice"][COLOURS[c]] or 0 if c in colours else 0 for c in range(NUM_COLOURS)]
    s.dice = tuple(dice) + (obs["gold"] or 0,)
    s.gold_on = obs["gold_in_roll"]
    s.reserved = tuple(mask_of(obs["reserved_by"].get(COLOURS[c], ())) for c in range(NUM_COLOURS))
    s.modified = mask_of(DIE_NAMES.index(d) for d in obs["modified_dice"])
    pending = obs["pending"]
    s.pend_gold = mask_of(pending["gold"])
    s.pend_adj = mask_of(pending["adjusters"])
    s.pend_res = tuple(
        mask_of(pending["reservations"].get(COLOURS[c], ())) for c in range(NUM_COLOURS)
    )
    s.adjusters = tuple(obs["adjust_queue"])
    s.eligible = mask_of(obs["bonus_eligible"])
    s.queue = tuple(obs["queue"])
    s.events = tuple(_event(e) for e in obs["events"])
    s.winners = mask_of(obs["winners"])
    s.slam = obs["grand_slam"]


def _phase(obs: dict[str, Any]) -> int:
    if obs["phase"] == "setup":
        return HOLDER_DRAW if obs["colours"] else REMOVED_DRAW
    return PHASE_NAMES.index(obs["phase"], 2)


def _event(e: dict[str, Any]) -> tuple[Any, ...]:
    kind, seat = e["type"], e["seat"]
    if kind in ("play", "bonus"):
        return (kind, seat, e["card"])
    if kind == "adjust":
        die = DIE_NAMES.index(e["die"]) if e["die"] else -1
        return (kind, seat, die, e["delta"])
    if kind == "power":
        return (kind, seat, e["card"], e["used"])
    if kind == "swap":
        unseen = (-1,) * e["count"]  # only the two players in the swap know the cards
        return (kind, seat, e["target"], tuple(e.get("to_target", unseen)),
                tuple(e.get("to_swapper", unseen)))
    if kind == "fallback":
        return (kind, seat, e["count"])
    return (kind, seat)


def _deal_hidden(s: RivieraData, obs: dict[str, Any], rng: random.Random) -> tuple[Any, ...]:
    """Deal the cards the seat cannot place into the other hands and the discard pile."""
    seat, n = obs["seat"], s.num_players
    known = [mask_of(cards) for cards in obs["known_hands"]]
    known_discard = mask_of(obs["known_discards"])
    placed = mask_of(obs["hand"]) | known_discard
    for q in range(n):
        placed |= mask_of(obs["columns"][q]) | known[q]
    pool = bits(s.in_use & ~placed)
    rng.shuffle(pool)
    hands = []
    for q in range(n):
        if q == seat:
            hands.append(tuple(obs["hand"]))
            continue
        free = obs["hand_sizes"][q] - bin(known[q]).count("1")
        hands.append(tuple(sorted(bits(known[q]) + pool[:free])))
        pool = pool[free:]
    discard_free = obs["discard_size"] - bin(known_discard).count("1")
    s.discard = known_discard | mask_of(pool[:discard_free])
    return tuple(hands)


def _power_state(s: RivieraData, obs: dict[str, Any], rng: random.Random) -> None:
    power = obs["power"]
    if power is None:
        return
    owner = power["seat"]
    s.target = -1 if power["target"] is None else power["target"]
    s.draws_left = power["draws_left"]
    if owner == obs["seat"]:
        s.picked = tuple(power["selected"])
    elif s.phase == SWAP_PICK:
        s.picked = tuple(rng.sample(s.hands[owner], queries.swap_size(s)))
    elif s.phase == FALLBACK_DISCARD:  # one of the k = 2 cards is chosen, the other is not
        s.picked = tuple(rng.sample(s.hands[owner], 1))
