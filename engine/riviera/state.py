"""The Riviera state's data: a flat value object, copied once per step and changed only on the copy.

Its fields (FIELDS, DERIVED, MEMOS), copy, equality and hashing, and nothing of the rules: the
modules above it work on it (`queries.py` the read-only rules questions, `flow.py` the phase
transitions, `observe.py` the observation, labels and visibility, `hidden.py` the redraw of
hidden cards), and `contract.py`'s RivieraState, the engine contract's State, subclasses it and
answers each hook with them. Nothing here imports them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from engine.core import NodeKind, State, mypyc_attr
from engine.riviera.phases import CHANCE_PHASES, GAME_OVER, IN, REMOVED_DRAW

KIND_BY_PHASE: Final = tuple(
    NodeKind.CHANCE if phase in CHANCE_PHASES
    else NodeKind.TERMINAL if phase == GAME_OVER
    else NodeKind.DECISION
    for phase in range(GAME_OVER + 1)
)


@mypyc_attr(native_class=False)  # compiled, a plain class: pickle and copy set its frozen fields
@dataclass(frozen=True)
class Rules:
    """The options of one configured game, resolved to what the state machine needs."""

    num_players: int
    sequential: bool  # playMode == "sequential"
    reroll: bool  # rerollBustingFirstRolls
    max_rerolls: int  # maxAutoRerolls
    require_in: bool  # deferredPowersRequireOwnerInRound
    removed: int  # colour to remove: -1 drawn by chance, -2 none (5-6 players), else 0..4
    start: int  # first Holder: -1 drawn by chance, else a seat
    max_same: int  # maxSameColourInHand
    winning_score: int
    max_rounds: int  # the effective round cap (always finite, see game.py)


# The state's fields, once: equality compares FIELDS, `copy` copies FIELDS and DERIVED and
# empties MEMOS, and the class annotations below declare exactly these (for mypyc);
# tests/engine/test_state_fields.py checks that the four lists agree, and that a new game sets
# every field.
FIELDS = (
    "num_players", "rules", "phase", "removed", "in_use", "holder", "scores", "lc_used",
    "round_no", "turn_no", "hands", "columns", "status", "discard", "dice", "gold_on", "reserved",
    "modified", "rerolls", "adjusters", "played", "eligible", "queue", "pend_gold", "pend_res",
    "pend_adj", "target", "picked", "taken", "draws_left", "known", "known_disc", "events",
    "winners", "slam", "colours", "in_deck", "deck",
)  # fmt: skip
# Copied, not compared: the node kind, set from the phase by `settle_kind` (a field, not a
# property: every node is asked its kind several times, a property costs a call each).
DERIVED = ("kind",)
# Neither copied nor compared: `_legal` memoises `_legal_actions` per seat (a state is a value,
# so they never change): `apply` checks each action against the list its caller has just listed.
MEMOS = ("_legal",)


class RivieraData(State):
    """The fields of one position (the State, contract.py's RivieraState, subclasses it). Every
    field is an int, a bool or a tuple, so copies are cheap and `==` exact.

    Per seat p; masks are ints with one bit per card, seat or die.
    """

    num_players: int
    rules: Rules
    phase: int
    removed: int  # colour or -1
    in_use: int  # card mask of the colours in use
    holder: int  # the Start token, -1 before it is drawn
    scores: tuple[int, ...]
    lc_used: tuple[bool, ...]
    round_no: int
    turn_no: int
    hands: tuple[tuple[int, ...], ...]  # sorted card tuples
    columns: tuple[tuple[int, ...], ...]  # play order
    status: tuple[int, ...]  # IN / STOPPED / CRASHED
    discard: int  # card mask
    dice: tuple[int, ...]  # 6 values, index 5 = gold, 0 = not rolled
    gold_on: bool
    reserved: tuple[int, ...]  # 5 seat masks
    modified: int  # die mask
    rerolls: int
    adjusters: tuple[int, ...]  # seats left to adjust
    played: tuple[tuple[int, ...], ...]  # cards played this turn per seat
    eligible: int  # bonus seat mask
    queue: tuple[int, ...]  # seats still to act in a one-at-a-time phase
    pend_gold: int  # deferred 11 owners
    pend_res: tuple[int, ...]  # deferred 2 owners per colour
    pend_adj: int  # deferred 9 owners
    target: int
    picked: tuple[int, ...]  # cards the power owner chose to give or discard
    taken: tuple[int, ...]  # cards drawn at random from the swap target
    draws_left: int
    known: tuple[int, ...]  # n*n card masks: known[s*n+q] = cards s knows q holds
    known_disc: tuple[int, ...]  # cards each seat knows are in the discard pile
    events: tuple[tuple[Any, ...], ...]  # this turn's public log
    winners: int  # seat mask when the game is over
    slam: bool
    colours: tuple[int, ...]
    in_deck: tuple[int, ...]  # every card in use, sorted
    deck: tuple[int, ...]  # cards not yet dealt (sorted), during the deal only
    kind: NodeKind = NodeKind.CHANCE
    _legal: dict[int, tuple[int, ...]] | None

    def __init__(self, rules: Rules | None = None) -> None:
        """The fields of a new game with `rules` (before `flow.start_game`); without, a blank state
        for `copy` and pickle to fill in."""
        self._legal = None
        if rules is None:
            return
        n = rules.num_players
        self.num_players = n
        self.rules = rules
        self.phase = REMOVED_DRAW
        self.removed = -1
        self.in_use = 0
        self.holder = -1
        self.scores = (0,) * n
        self.lc_used = (False,) * n
        self.round_no = 0
        self.turn_no = 0
        self.hands = ((),) * n
        self.columns = ((),) * n
        self.status = (IN,) * n
        self.discard = 0
        self.dice = (0,) * 6
        self.gold_on = False
        self.reserved = (0,) * 5
        self.modified = 0
        self.rerolls = 0
        self.adjusters = ()
        self.played = ((),) * n
        self.eligible = 0
        self.queue = ()
        self.pend_gold = 0
        self.pend_res = (0,) * 5
        self.pend_adj = 0
        self.target = -1
        self.picked = ()
        self.taken = ()
        self.draws_left = 0
        self.known = (0,) * (n * n)
        self.known_disc = (0,) * n
        self.events = ()
        self.winners = 0
        self.slam = False
        self.colours = ()
        self.in_deck = ()
        self.deck = ()

    # -- value semantics ----------------------------------------------------------------------

    def _blank(self) -> RivieraData:
        """A new empty instance of the running class for `copy` to fill in. contract.py's
        State answers it with a direct constructor call, which the compiled engine makes without
        looking `__new__` up (about half the cost of a copy)."""
        return type(self).__new__(type(self))

    def copy(self) -> RivieraData:
        """A shallow copy; callers replace fields (all immutable) instead of mutating them.

        Field by field, FIELDS and DERIVED, MEMOS emptied (the compiled engine has no `__dict__`
        to copy at once); a blank state, not one `__init__` deals."""
        new = self._blank()  # the subclass: contract.py's RivieraState
        new.num_players = self.num_players
        new.rules = self.rules
        new.phase = self.phase
        new.removed = self.removed
        new.in_use = self.in_use
        new.holder = self.holder
        new.scores = self.scores
        new.lc_used = self.lc_used
        new.round_no = self.round_no
        new.turn_no = self.turn_no
        new.hands = self.hands
        new.columns = self.columns
        new.status = self.status
        new.discard = self.discard
        new.dice = self.dice
        new.gold_on = self.gold_on
        new.reserved = self.reserved
        new.modified = self.modified
        new.rerolls = self.rerolls
        new.adjusters = self.adjusters
        new.played = self.played
        new.eligible = self.eligible
        new.queue = self.queue
        new.pend_gold = self.pend_gold
        new.pend_res = self.pend_res
        new.pend_adj = self.pend_adj
        new.target = self.target
        new.picked = self.picked
        new.taken = self.taken
        new.draws_left = self.draws_left
        new.known = self.known
        new.known_disc = self.known_disc
        new.events = self.events
        new.winners = self.winners
        new.slam = self.slam
        new.colours = self.colours
        new.in_deck = self.in_deck
        new.deck = self.deck
        new.kind = self.kind
        new._legal = None
        return new

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RivieraData):
            return NotImplemented  # a C state (c_state.pyx) answers for the pair
        return self._values() == other._values()

    def _values(self) -> tuple[Any, ...]:
        """The FIELDS, for equality (written out: the compiled engine has no `__dict__`)."""
        return (
            self.num_players, self.rules, self.phase, self.removed, self.in_use,
            self.holder, self.scores, self.lc_used, self.round_no, self.turn_no, self.hands,
            self.columns, self.status, self.discard, self.dice, self.gold_on, self.reserved,
            self.modified, self.rerolls, self.adjusters, self.played, self.eligible,
            self.queue, self.pend_gold, self.pend_res, self.pend_adj, self.target,
            self.picked, self.taken, self.draws_left, self.known, self.known_disc,
            self.events, self.winners, self.slam, self.colours, self.in_deck, self.deck
        )

    __hash__ = None  # type: ignore[assignment]

    # -- the derived field ---------------------------------------------------------------------

    def settle_kind(self) -> None:
        """Set `kind` from `phase`: call it after changing the phase outside a transition."""
        self.kind = KIND_BY_PHASE[self.phase]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(phase={self.phase}, round={self.round_no}, turn={self.turn_no})"

