"""The data of a Lost Cities: Rivals position: flat tuples and ints, copied on write, compared slot
by slot. The piles are not stored card by card: the 80 cards are shuffled and cut into four piles
of exactly 20 that are revealed one after the other, so the next card of the current pile is, for
everyone, a uniform draw from the cards not yet revealed (the piles are exchangeable). Only the
unseen counts and the number of cards revealed so far are kept; the current pile and its size
follow from that count.

Its fields (FIELDS, DERIVED, MEMOS), copy, equality and hashing, and nothing of the rules: the
modules above it work on it (`queries.py` the read-only rules questions, `flow.py` the
transitions of rules §2, `observe.py` the observation and labels, `hidden.py` the rebuild from
an observation), and `contract.py`'s RivalsState, the engine contract's State, subclasses it
and answers each hook with them. Nothing here imports them.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from engine.core import NodeKind, OneSeatLegalMemo
from engine.lost_cities_rivals import components as C
from engine.lost_cities_rivals.phases import (
    DEAL,
    KIND_OF_PHASE,
    NO_SEAT,
    PHASE_NAMES,
)  # fmt: skip

# The state's fields, once: equality and hashing go by FIELDS, `_copy` copies FIELDS and DERIVED
# and empties MEMOS, `__slots__` is the three, and the class annotations declare exactly these
# (for mypyc); tests/engine/test_state_fields.py checks that the lists agree, and that a new game
# sets every field.
FIELDS = (
    "num_players", "display_limit", "start_player", "phase", "coins", "centre", "revealed",
    "unseen", "display", "box", "wagers", "numbers", "starting", "wager_bottom", "turn",
    "starter", "high_bid", "high_bidder", "still_in", "to_act",
)  # fmt: skip
# Copied along with the fields, not compared: the node kind (a plain slot, not a property: the
# base class reads it several times per node; `_settle_kind` sets it from the phase after every
# change), each seat's expedition points, kept up to date as cards are placed (every observation
# shows them; recounting means 25 expeditions), and the observation's unseen-card dict with the
# `unseen` tuple it was made from (see observe.py).
DERIVED = ("kind", "points", "unseen_memo")
# Filled on first use and never changed after (a state is a value): the acting seats (asked for
# three times per decision), (seat, legal actions) of the acting seat and the chance outcomes
# (each asked for twice per node: by the caller, then by the check in State.apply or
# apply_chance). A copy starts without them.
MEMOS = ("_acting", "_legal", "_outcomes")


class RivalsData(OneSeatLegalMemo):
    """The fields of one position (the State, contract.py's RivalsState, subclasses it). Fields are
    public for the observation code and tests; treat them as read-only.

    wagers[p * 5 + c] and numbers[p * 5 + c] hold seat p's expedition of colour c (starting wagers
    included in the count); `still_in` lists, in seat order, who has not passed in the auction.
    """

    __slots__ = FIELDS + DERIVED + MEMOS
    num_players: int
    display_limit: int  # 0: no limit (rules A2)
    start_player: int
    phase: int
    coins: tuple[int, ...]
    centre: int
    revealed: int  # main-deck cards revealed so far, 0..80
    unseen: tuple[int, ...]  # copies of each kind not yet seen
    display: tuple[int, ...]  # card kinds in reveal order
    box: tuple[int, ...]
    wagers: tuple[int, ...]
    numbers: tuple[tuple[int, ...], ...]
    starting: tuple[tuple[int, ...], ...]  # starting wager colours
    wager_bottom: tuple[int, ...]  # starting wagers put back under the stack
    turn: int
    starter: int
    high_bid: int
    high_bidder: int
    still_in: tuple[int, ...]
    to_act: int
    kind: NodeKind  # a slot (see DERIVED) that overrides State.kind
    points: tuple[int, ...]
    unseen_memo: tuple[tuple[int, ...], dict[str, int]] | None
    _acting: tuple[int, ...] | None
    _outcomes: list[tuple[int, float]] | None

    def __init__(self, num_players: int | None = None, display_limit: int = 0, start_player: int = 0) -> None:
        """Before the deal; without `num_players`, a blank state for `_copy` and pickle to fill in."""
        if num_players is None:
            return
        self.num_players = num_players
        self.display_limit = display_limit
        self.start_player = start_player
        self.phase = DEAL
        self.coins = (C.STARTING_COINS[num_players],) * num_players
        self.centre = 0
        self.revealed = 0
        self.unseen = C.DECK_COUNTS
        self.display = ()
        self.box = ()
        self.wagers = (0,) * (num_players * C.NUM_COLOURS)
        self.numbers = ((),) * (num_players * C.NUM_COLOURS)
        self.starting = ((),) * num_players
        self.wager_bottom = ()
        self.turn = start_player
        self.kind = NodeKind.CHANCE
        self.points = (0,) * num_players
        self.unseen_memo = None
        self._acting = None
        self._legal = None
        self._outcomes = None
        self.high_bid = 0
        self.starter = self.high_bidder = self.to_act = NO_SEAT
        self.still_in = ()

    # -- value semantics --------------------------------------------------------------------

    def _key(self) -> tuple[Any, ...]:
        return _get_all(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RivalsData):
            return NotImplemented  # a C state (c_state.pyx) answers for the pair
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({PHASE_NAMES[self.phase]}, revealed={self.revealed}, turn={self.turn})"

    def _blank(self) -> RivalsData:
        """A new empty instance of the running class for `_copy` to fill in. contract.py's
        State answers it with a direct constructor call, which the compiled engine makes without
        looking `__new__` up (about half the cost of a copy)."""
        return type(self).__new__(type(self))

    def _copy(self) -> RivalsData:
        """A new state with the same fields and derived fields, its memos empty: one line per
        slot (the hottest path of every apply; the compiled engine reads written-out fields fastest)."""
        new = self._blank()  # the subclass: contract.py's RivalsState
        new.num_players = self.num_players
        new.display_limit = self.display_limit
        new.start_player = self.start_player
        new.phase = self.phase
        new.coins = self.coins
        new.centre = self.centre
        new.revealed = self.revealed
        new.unseen = self.unseen
        new.display = self.display
        new.box = self.box
        new.wagers = self.wagers
        new.numbers = self.numbers
        new.starting = self.starting
        new.wager_bottom = self.wager_bottom
        new.turn = self.turn
        new.starter = self.starter
        new.high_bid = self.high_bid
        new.high_bidder = self.high_bidder
        new.still_in = self.still_in
        new.to_act = self.to_act
        new.kind = self.kind
        new.points = self.points
        new.unseen_memo = self.unseen_memo
        new._acting = None
        new._legal = None
        new._outcomes = None
        return new

    # -- node kind and chance ---------------------------------------------------------------

    def _settle_kind(self) -> RivalsData:
        """Set `kind` from the phase (after a change of phase); returns the state."""
        self.kind = KIND_OF_PHASE[self.phase]
        return self


_get_all = attrgetter(*FIELDS)
