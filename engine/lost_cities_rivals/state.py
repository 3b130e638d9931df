"""The position of a Lost Cities: Rivals game and its rules (the state machine of rules §2).

The state is flat: tuples and ints, copied on write, compared slot by slot. The piles are not
stored card by card: the 80 cards are shuffled and cut into four piles of exactly 20 that are
revealed one after the other, so the next card of the current pile is, for everyone, a uniform
draw from the cards not yet revealed (the piles are exchangeable). Only the unseen counts and the
number of cards revealed so far are kept; the current pile and its size follow from that count.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from functools import lru_cache
from itertools import accumulate
from operator import attrgetter
from typing import Any

from engine.core import NodeKind, OneSeatLegalMemo
from engine.lost_cities_rivals import actions as A
from engine.lost_cities_rivals import components as C
from engine.lost_cities_rivals.hidden import resample
from engine.lost_cities_rivals.observe import (
    chance_label,
    chance_visibility,
    hidden_chance_label,
    observation,
)
from engine.lost_cities_rivals.phases import (
    BID,
    BOX,
    DEAL,
    KIND_OF_PHASE,
    NO_SEAT,
    OVER,
    PHASE_NAMES,
    REVEAL,
    TAKE,
    TURN,
)
from engine.lost_cities_rivals.scoring import expedition_score

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


class RivalsState(OneSeatLegalMemo):
    """One position. Fields are public for the observation code and tests; treat them as read-only.

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
        self._clear_auction()

    # -- value semantics --------------------------------------------------------------------

    def _key(self) -> tuple[Any, ...]:
        return _get_all(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RivalsState) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"RivalsState({PHASE_NAMES[self.phase]}, revealed={self.revealed}, turn={self.turn})"

    def _copy(self) -> RivalsState:
        """A new state with the same fields and derived fields, its memos empty: one line per
        slot (the hottest path of every apply; the compiled engine reads written-out fields fastest)."""
        new = RivalsState.__new__(RivalsState)
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

    def _clear_auction(self) -> None:
        self.high_bid = 0
        self.starter = self.high_bidder = self.to_act = NO_SEAT
        self.still_in = ()

    # -- node kind and chance ---------------------------------------------------------------

    def _settle_kind(self) -> RivalsState:
        """Set `kind` from the phase (after a change of phase); returns the state."""
        self.kind = KIND_OF_PHASE[self.phase]
        return self

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        return list(self._outcome_memo())  # a copy: the caller may change its list

    def _outcome_memo(self) -> list[tuple[int, float]]:
        if self._outcomes is None:
            self._outcomes = self._deal_outcomes() if self.phase == DEAL else self._reveal_outcomes()
        return self._outcomes

    # The base class's speed hooks (what sample_chance and the checks of apply_chance / apply
    # ask), answered from the memos, or for a reveal from the unseen counts, without a list.

    def _chance_distribution(self) -> tuple[list[int], list[float]]:
        outcomes = self._outcome_memo()
        return [o for o, _ in outcomes], list(accumulate(p for _, p in outcomes))

    def _is_chance_outcome(self, outcome: Any) -> bool:
        if self.phase == REVEAL and type(outcome) is int:
            return 0 <= outcome < C.NUM_KINDS and self.unseen[outcome] > 0
        return any(o == outcome for o, _ in self._outcome_memo())

    def _is_legal(self, seat: int, action: int) -> bool:
        return action in self._legal_memo(seat)

    def _reveal_outcomes(self) -> list[tuple[int, float]]:
        """(kind, copies unseen / cards unseen) for every unseen kind, from prebuilt pairs."""
        pairs = _reveal_pairs(C.DECK_SIZE - self.revealed)
        return [by_count[n] for by_count, n in zip(pairs, self.unseen) if n]

    def _apply_chance(self, outcome: int) -> RivalsState:
        new = self._copy()
        if self.phase == DEAL:
            new._deal_starting_wager(outcome)
        else:
            new._reveal(outcome)
        return new._settle_kind()

    def _chance_label(self, outcome: int) -> str:
        return chance_label(self, outcome)

    def _chance_visibility(self, outcome: int) -> frozenset[int] | None:
        return chance_visibility(self, outcome)

    def _hidden_chance_label(self) -> str:
        return hidden_chance_label(self)

    # -- dealing the starting wagers (rules §1.2 step 1, OUR CHOICE procedure) ---------------

    def wager_pool(self) -> list[int]:
        """Starting wagers per colour still in the shuffled part of the stack."""
        pool = [C.STARTING_WAGERS_PER_COLOUR] * C.NUM_COLOURS
        for colours in (*self.starting, self.wager_bottom):
            for colour in colours:
                pool[colour] -= 1
        return pool

    def _deal_outcomes(self) -> list[tuple[int, float]]:
        pool = self.wager_pool()
        total = sum(pool)
        if not total:  # only the cards put under the stack are left: the top one comes next
            return [(self.wager_bottom[0], 1.0)]
        return [(colour, n / total) for colour, n in enumerate(pool) if n]

    def _deal_starting_wager(self, colour: int) -> None:
        """Seat by seat, two each; a second card of the first card's colour goes under the stack."""
        if not sum(self.wager_pool()):
            self.wager_bottom = self.wager_bottom[1:]
        seat = self.seat_dealt_to()
        if self.starting[seat] == (colour,):
            self.wager_bottom += (colour,)
            return
        starting = list(self.starting)
        starting[seat] += (colour,)
        self.starting = tuple(starting)
        self.wagers = _bump(self.wagers, seat * C.NUM_COLOURS + colour)
        if seat == self.num_players - 1 and len(starting[seat]) == 2:
            self.phase = TURN

    def seat_dealt_to(self) -> int:
        """The seat the next starting wager is drawn for: seat by seat, two each."""
        return next(s for s, got in enumerate(self.starting) if len(got) < 2)

    # -- revealing a pile card and what follows (rules §2.6) -----------------------------------

    def _reveal(self, kind: int) -> None:
        self.unseen = _bump(self.unseen, kind, -1)
        self.display += (kind,)
        self.revealed += 1
        # After an auction the winner's left neighbour plays next, else the revealer's (§2.5).
        self.turn = self._next_seat(self.high_bidder if self.high_bidder != NO_SEAT else self.turn)
        self._clear_auction()
        self.phase = TURN
        if self.revealed % C.PILE_SIZE == 0:
            if self.revealed == C.DECK_SIZE:
                self.phase = OVER  # at once: no distribution, the centre scores nothing (A17)
            else:
                self._share_centre()

    def _share_centre(self) -> None:
        """Share the centre equally; the remainder stays in the centre (A15)."""
        share = self.centre // self.num_players
        self.coins = tuple(c + share for c in self.coins)
        self.centre -= share * self.num_players

    def _next_seat(self, seat: int) -> int:
        return (seat + 1) % self.num_players

    # -- decisions --------------------------------------------------------------------------

    def _acting_players(self) -> tuple[int, ...]:
        if self._acting is None:
            self._acting = (self.actor(),)
        return self._acting

    def actor(self) -> int:
        """The seat that decides now, or -1 at a chance or terminal node."""
        if self.phase == TURN:
            return self.turn
        if self.phase == BID:
            return self.to_act
        if self.phase in (TAKE, BOX):
            return self.high_bidder
        return NO_SEAT

    def _actions_of(self, seat: int) -> list[int]:
        if self.phase == TURN:
            return self._turn_actions(seat)
        if self.phase == BID:
            return [A.PASS, *range(A.bid_action(self.high_bid + 1), A.bid_action(self.coins[seat]) + 1)]
        if self.phase == TAKE:
            return self._place_actions(seat) + [A.END_TAKE]
        return sorted(A.BOX_BASE + k for k in set(self.display)) + [A.SKIP_BOX]

    def _turn_actions(self, seat: int) -> list[int]:
        coins = self.coins[seat]
        bids = list(range(A.bid_action(1), A.bid_action(coins) + 1)) if self.display else []
        forced = self.display_limit and len(self.display) >= self.display_limit and bids
        return bids if forced else [A.UNCOVER] + bids

    def _place_actions(self, seat: int) -> list[int]:
        """PLACE ids of the display cards `seat` may place: `can_place`, inlined for speed."""
        base = seat * C.NUM_COLOURS
        highest = [nums[-1] if nums else 0 for nums in self.numbers[base : base + C.NUM_COLOURS]]
        actions = []
        for kind in set(self.display):
            top, rank = highest[kind // 10], kind % 10  # top 0: no number placed yet
            if (rank and rank + 1 >= top) or (not rank and not top):
                actions.append(A.PLACE_BASE + kind)
        return sorted(actions)

    def can_place(self, seat: int, kind: int) -> bool:
        """Placement legality (§3): wagers only before numbers; numbers never below the highest."""
        slot = seat * C.NUM_COLOURS + C.colour_of(kind)
        numbers = self.numbers[slot]
        if C.is_wager(kind):
            return not numbers
        return not numbers or C.value_of(kind) >= numbers[-1]

    def _apply(self, actions: Mapping[int, int]) -> RivalsState:
        (seat, action), = actions.items()
        new = self._copy()
        if self.phase == TURN:
            new._turn(seat, action)
        elif self.phase == BID:
            new._bid(seat, action)
        elif self.phase == TAKE:
            new._take(seat, action)
        else:
            new._box(action)
        return new._settle_kind()

    def _turn(self, seat: int, action: int) -> None:
        if action == A.UNCOVER:
            self.phase = REVEAL
            return
        # Opening an auction is the opening bid; everybody, the starter included, is still in.
        self.phase = BID
        self.starter = self.high_bidder = seat
        self.high_bid = action - A.BID_BASE + 1
        self.still_in = tuple(range(self.num_players))
        self.to_act = self._next_seat(seat)

    def _bid(self, seat: int, action: int) -> None:
        if action == A.PASS:  # passing is final (A8)
            self.still_in = tuple(s for s in self.still_in if s != seat)
        else:
            self.high_bid = action - A.BID_BASE + 1
            self.high_bidder = seat
        if len(self.still_in) == 1:
            self._pay_winner()
            return
        # The next seat clockwise that is still in; the high bidder is never reached while an
        # opponent is still in, because everyone between acts first.
        self.to_act = min(self.still_in, key=lambda s: (s - seat - 1) % self.num_players)

    def _pay_winner(self) -> None:
        winner = self.high_bidder
        self.coins = _bump(self.coins, winner, -self.high_bid)
        self.centre += self.high_bid
        self.to_act = NO_SEAT
        self.phase = TAKE

    def _take(self, seat: int, action: int) -> None:
        if action == A.END_TAKE:
            self.phase = BOX
            return
        kind = action - A.PLACE_BASE
        self.display = _without(self.display, kind)
        slot = seat * C.NUM_COLOURS + C.colour_of(kind)
        before = expedition_score(self.wagers[slot], self.numbers[slot])
        if C.is_wager(kind):
            self.wagers = _bump(self.wagers, slot)
        else:
            numbers = list(self.numbers)
            numbers[slot] += (C.value_of(kind),)
            self.numbers = tuple(numbers)
        gained = expedition_score(self.wagers[slot], self.numbers[slot]) - before
        self.points = _bump(self.points, seat, gained)

    def _box(self, action: int) -> None:
        if action != A.SKIP_BOX:
            kind = action - A.BOX_BASE
            self.display = _without(self.display, kind)
            self.box += (kind,)
        self.phase = REVEAL  # the winner's compulsory reveal

    # -- scores -----------------------------------------------------------------------------

    def scores(self) -> list[int]:
        """Each seat's total now: expedition scores plus coins held (§4)."""
        return [points + coins for points, coins in zip(self.points, self.coins)]

    def count_points(self) -> None:
        """Set `points` from the expeditions (for a state built field by field)."""
        self.points = tuple(self.expedition_points(seat) for seat in range(self.num_players))

    def expedition_points(self, seat: int) -> int:
        """The sum of seat's expedition scores, counted from its expeditions."""
        base = seat * C.NUM_COLOURS
        return sum(
            expedition_score(self.wagers[base + c], self.numbers[base + c])
            for c in range(C.NUM_COLOURS)
        )

    def winners(self) -> list[int]:
        """The seats tied for the highest total (a shared victory, A23)."""
        scores = self.scores()
        return [seat for seat, score in enumerate(scores) if score == max(scores)]

    def _returns(self) -> list[float]:
        return [float(score) for score in self.scores()]

    # -- information --------------------------------------------------------------------------

    def _observation(self, seat: int) -> dict[str, Any]:
        return observation(self, seat)

    def _resample(self, known_to: frozenset[int], rng: random.Random) -> RivalsState:
        return resample(self, known_to, rng)


_get_all = attrgetter(*FIELDS)




@lru_cache(maxsize=C.DECK_SIZE)
def _reveal_pairs(total: int) -> tuple[tuple[tuple[int, float], ...], ...]:
    """For each kind, its outcome pair by copies unseen: `[kind][n] = (kind, n / total)`.

    A reveal node lists up to 50 pairs; making them once per deck size, not per node, is what
    keeps reveals cheap. The probabilities are the same divisions, so they are the same floats.
    """
    copies = range(max(C.DECK_COUNTS) + 1)
    return tuple(tuple((kind, n / total) for n in copies) for kind in range(C.NUM_KINDS))


def _bump(values: tuple[int, ...], index: int, by: int = 1) -> tuple[int, ...]:
    return values[:index] + (values[index] + by,) + values[index + 1 :]


def _without(cards: tuple[int, ...], kind: int) -> tuple[int, ...]:
    """`cards` with its first copy of `kind` removed (copies are interchangeable)."""
    index = cards.index(kind)
    return cards[:index] + cards[index + 1 :]
