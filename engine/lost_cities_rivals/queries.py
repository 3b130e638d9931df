"""Questions about a Lost Cities: Rivals state that change nothing: chance outcomes, who acts, legal
placements, scores (rules §2 to §4)."""

from __future__ import annotations

from functools import lru_cache

from engine.lost_cities_rivals import actions as A
from engine.lost_cities_rivals import components as C
from engine.lost_cities_rivals.phases import (
    BID,
    BOX,
    NO_SEAT,
    TAKE,
    TURN,
)  # fmt: skip
from engine.lost_cities_rivals.scoring import expedition_score
from engine.lost_cities_rivals.state import RivalsData


@lru_cache(maxsize=C.DECK_SIZE)
def _reveal_pairs(total: int) -> tuple[tuple[tuple[int, float], ...], ...]:
    """For each kind, its outcome pair by copies unseen: `[kind][n] = (kind, n / total)`.

    A reveal node lists up to 50 pairs; making them once per deck size, not per node, is what
    keeps reveals cheap. The probabilities are the same divisions, so they are the same floats.
    """
    copies = range(max(C.DECK_COUNTS) + 1)
    return tuple(tuple((kind, n / total) for n in copies) for kind in range(C.NUM_KINDS))


def reveal_outcomes(s: RivalsData) -> list[tuple[int, float]]:
    """(kind, copies unseen / cards unseen) for every unseen kind, from prebuilt pairs."""
    pairs = _reveal_pairs(C.DECK_SIZE - s.revealed)
    return [by_count[n] for by_count, n in zip(pairs, s.unseen) if n]


# -- dealing the starting wagers (rules §1.2 step 1, OUR CHOICE procedure) ---------------

def wager_pool(s: RivalsData) -> list[int]:
    """Starting wagers per colour still in the shuffled part of the stack."""
    pool = [C.STARTING_WAGERS_PER_COLOUR] * C.NUM_COLOURS
    for colours in (*s.starting, s.wager_bottom):
        for colour in colours:
            pool[colour] -= 1
    return pool


def deal_outcomes(s: RivalsData) -> list[tuple[int, float]]:
    pool = wager_pool(s)
    total = sum(pool)
    if not total:  # only the cards put under the stack are left: the top one comes next
        return [(s.wager_bottom[0], 1.0)]
    return [(colour, n / total) for colour, n in enumerate(pool) if n]


def seat_dealt_to(s: RivalsData) -> int:
    """The seat the next starting wager is drawn for: seat by seat, two each."""
    return next(p for p, got in enumerate(s.starting) if len(got) < 2)


def next_seat(s: RivalsData, seat: int) -> int:
    return (seat + 1) % s.num_players


def actor(s: RivalsData) -> int:
    """The seat that decides now, or -1 at a chance or terminal node."""
    if s.phase == TURN:
        return s.turn
    if s.phase == BID:
        return s.to_act
    if s.phase in (TAKE, BOX):
        return s.high_bidder
    return NO_SEAT


def turn_actions(s: RivalsData, seat: int) -> list[int]:
    coins = s.coins[seat]
    bids = list(range(A.bid_action(1), A.bid_action(coins) + 1)) if s.display else []
    forced = s.display_limit and len(s.display) >= s.display_limit and bids
    return bids if forced else [A.UNCOVER] + bids


def place_actions(s: RivalsData, seat: int) -> list[int]:
    """PLACE ids of the display cards `seat` may place: `can_place`, inlined for speed."""
    base = seat * C.NUM_COLOURS
    highest = [nums[-1] if nums else 0 for nums in s.numbers[base : base + C.NUM_COLOURS]]
    actions = []
    for kind in set(s.display):
        top, rank = highest[kind // 10], kind % 10  # top 0: no number placed yet
        if (rank and rank + 1 >= top) or (not rank and not top):
            actions.append(A.PLACE_BASE + kind)
    return sorted(actions)


def can_place(s: RivalsData, seat: int, kind: int) -> bool:
    """Placement legality (§3): wagers only before numbers; numbers never below the highest."""
    slot = seat * C.NUM_COLOURS + C.colour_of(kind)
    numbers = s.numbers[slot]
    if C.is_wager(kind):
        return not numbers
    return not numbers or C.value_of(kind) >= numbers[-1]


# -- scores -----------------------------------------------------------------------------

def scores(s: RivalsData) -> list[int]:
    """Each seat's total now: expedition scores plus coins held (§4)."""
    return [points + coins for points, coins in zip(s.points, s.coins)]


def expedition_points(s: RivalsData, seat: int) -> int:
    """The sum of seat's expedition scores, counted from its expeditions."""
    base = seat * C.NUM_COLOURS
    return sum(
        expedition_score(s.wagers[base + c], s.numbers[base + c])
        for c in range(C.NUM_COLOURS)
    )


def winners(s: RivalsData) -> list[int]:
    """The seats tied for the highest total (a shared victory, A23)."""
    totals = scores(s)
    return [seat for seat, score in enumerate(totals) if score == max(totals)]
