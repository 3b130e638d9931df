"""The transitions of Lost Cities: Rivals (rules §2): the deal of the starting wagers, reveals,
turns, auctions, taking and boxing, applied to a fresh copy of a state.

Every function here takes a state `s` that the caller (contract.py) has just copied and replaces
its fields; no field value (tuples, ints) is ever changed in place, so the original state stays
intact.
"""

from __future__ import annotations

from engine.lost_cities_rivals import actions as A
from engine.lost_cities_rivals import components as C
from engine.lost_cities_rivals import queries
from engine.lost_cities_rivals.phases import (
    BID,
    BOX,
    NO_SEAT,
    OVER,
    REVEAL,
    TAKE,
    TURN,
)  # fmt: skip
from engine.lost_cities_rivals.scoring import expedition_score
from engine.lost_cities_rivals.state import RivalsData


def clear_auction(s: RivalsData) -> None:
    s.high_bid = 0
    s.starter = s.high_bidder = s.to_act = NO_SEAT
    s.still_in = ()


def deal_starting_wager(s: RivalsData, colour: int) -> None:
    """Seat by seat, two each; a second card of the first card's colour goes under the stack."""
    if not sum(queries.wager_pool(s)):
        s.wager_bottom = s.wager_bottom[1:]
    seat = queries.seat_dealt_to(s)
    if s.starting[seat] == (colour,):
        s.wager_bottom += (colour,)
        return
    starting = list(s.starting)
    starting[seat] += (colour,)
    s.starting = tuple(starting)
    s.wagers = _bump(s.wagers, seat * C.NUM_COLOURS + colour)
    if seat == s.num_players - 1 and len(starting[seat]) == 2:
        s.phase = TURN


# -- revealing a pile card and what follows (rules §2.6) -----------------------------------

def reveal(s: RivalsData, kind: int) -> None:
    s.unseen = _bump(s.unseen, kind, -1)
    s.display += (kind,)
    s.revealed += 1
    # After an auction the winner's left neighbour plays next, else the revealer's (§2.5).
    s.turn = queries.next_seat(s, s.high_bidder if s.high_bidder != NO_SEAT else s.turn)
    clear_auction(s)
    s.phase = TURN
    if s.revealed % C.PILE_SIZE == 0:
        if s.revealed == C.DECK_SIZE:
            s.phase = OVER  # at once: no distribution, the centre scores nothing (A17)
        else:
            share_centre(s)


def share_centre(s: RivalsData) -> None:
    """Share the centre equally; the remainder stays in the centre (A15)."""
    share = s.centre // s.num_players
    s.coins = tuple(c + share for c in s.coins)
    s.centre -= share * s.num_players


def play_turn(s: RivalsData, seat: int, action: int) -> None:
    if action == A.UNCOVER:
        s.phase = REVEAL
        return
    # Opening an auction is the opening bid; everybody, the starter included, is still in.
    s.phase = BID
    s.starter = s.high_bidder = seat
    s.high_bid = action - A.BID_BASE + 1
    s.still_in = tuple(range(s.num_players))
    s.to_act = queries.next_seat(s, seat)


def bid(s: RivalsData, seat: int, action: int) -> None:
    if action == A.PASS:  # passing is final (A8)
        s.still_in = tuple(p for p in s.still_in if p != seat)
    else:
        s.high_bid = action - A.BID_BASE + 1
        s.high_bidder = seat
    if len(s.still_in) == 1:
        pay_winner(s)
        return
    # The next seat clockwise that is still in; the high bidder is never reached while an
    # opponent is still in, because everyone between acts first.
    s.to_act = min(s.still_in, key=lambda p: (p - seat - 1) % s.num_players)


def pay_winner(s: RivalsData) -> None:
    winner = s.high_bidder
    s.coins = _bump(s.coins, winner, -s.high_bid)
    s.centre += s.high_bid
    s.to_act = NO_SEAT
    s.phase = TAKE


def take(s: RivalsData, seat: int, action: int) -> None:
    if action == A.END_TAKE:
        s.phase = BOX
        return
    kind = action - A.PLACE_BASE
    s.display = _without(s.display, kind)
    slot = seat * C.NUM_COLOURS + C.colour_of(kind)
    before = expedition_score(s.wagers[slot], s.numbers[slot])
    if C.is_wager(kind):
        s.wagers = _bump(s.wagers, slot)
    else:
        numbers = list(s.numbers)
        numbers[slot] += (C.value_of(kind),)
        s.numbers = tuple(numbers)
    gained = expedition_score(s.wagers[slot], s.numbers[slot]) - before
    s.points = _bump(s.points, seat, gained)


def box_card(s: RivalsData, action: int) -> None:
    if action != A.SKIP_BOX:
        kind = action - A.BOX_BASE
        s.display = _without(s.display, kind)
        s.box += (kind,)
    s.phase = REVEAL  # the winner's compulsory reveal


def count_points(s: RivalsData) -> None:
    """Set `points` from the expeditions (for a state built field by field)."""
    s.points = tuple(queries.expedition_points(s, seat) for seat in range(s.num_players))


def _bump(values: tuple[int, ...], index: int, by: int = 1) -> tuple[int, ...]:
    return values[:index] + (values[index] + by,) + values[index + 1 :]


def _without(cards: tuple[int, ...], kind: int) -> tuple[int, ...]:
    """`cards` with its first copy of `kind` removed (copies are interchangeable)."""
    index = cards.index(kind)
    return cards[:index] + cards[index + 1 :]
