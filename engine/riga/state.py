"""The Riga state's data: a value whose fields hold ints, tuples or None; a change makes a shallow
copy and replaces whole tuples (copy on write), so `apply` never changes a state.

Its fields (FIELDS, DERIVED, MEMOS), copy, equality, hashing and pickling, and nothing of the
rules: the modules above it work on it (`queries.py` the read-only rules questions, `flow.py`
the transitions, `observe.py` the observation and labels, `hidden.py` the redraws), and
`contract.py`'s RigaState, the engine contract's State, subclasses it and answers each hook
with them. Nothing here imports them.
"""

from __future__ import annotations

from typing import Any

from engine.core import NodeKind, OneSeatLegalMemo
from engine.riga.phases import KIND_OF_PHASE, SEASON_NAMES

# The state's fields, once: equality, hashing and pickling go by FIELDS, `_copy` copies FIELDS
# and DERIVED and empties MEMOS, `__slots__` is the three, and the class annotations declare
# exactly these (for mypyc); tests/engine/test_state_fields.py checks that the lists agree, and
# that a new game sets every field.
FIELDS = (
    "num_players", "use_riga", "use_gm", "years",
    "phase", "season", "year", "start", "queue", "builds",
    "gdeck", "gdisc", "rows",
    "bpool", "bbottom", "dnew", "dold", "removed",
    "hgoods", "kgoods", "hbuild", "sbuild",
    "tableau", "used", "rsupply",
    "tiles", "flipped", "drawn",
    "pending", "need", "choice", "log",
)  # fmt: skip
# Copied along with the fields, not compared: the node kind, a plain slot rather than a property
# because the base class reads it several times per node; `_set_kind` sets it from the phase at
# the end of every step (and wherever a state is put together field by field).
# `paying`: the legal payments of the build being paid, carried from one payment to the next
# (BuildPayments; None when none is carried): a function of the fields, so never compared.
DERIVED = ("kind", "paying")
# Filled on first use and never changed after (a state is a value), not compared, not copied:
# (seat, legal actions) of the acting seat and the chance outcomes, each asked for twice per node
# (by the caller, then by the check in State.apply / apply_chance).
MEMOS = ("_legal", "_outcomes")


class BuildPayments:
    """The legal payments of a build being paid, kept on the state from one payment to the next
    (a build is paid one item per decision, and the hand does not change until it is complete):
    the `scoring.minimal_payments` that still extend what is paid, the city's item values and
    the build's cost. Each payment makes a new one (states share it, so it is never changed).

    It holds for one seat's hand, tableau and spent credits and one build's card and payment so
    far (`pending`), and keeps the very tuples: `fits` compares them by identity (a tuple never
    changes, so the same object is the same value; `pending` itself is not kept, because the
    compiled engine stores a fixed-size tuple unboxed and boxes a new one at every read); a
    state put together otherwise works them out again."""

    __slots__ = ("seat", "card", "paid", "hand", "tableau", "used", "values", "cost", "payments")

    def __init__(
        self,
        seat: int,
        card: int,
        paid: tuple[int, ...],
        hand: tuple[int, ...],
        tableau: tuple[int, ...],
        used: int,
        values: tuple[int, ...],
        cost: int,
        payments: tuple[tuple[int, ...], ...],
    ) -> None:
        self.seat = seat
        self.card = card
        self.paid = paid
        self.hand = hand
        self.tableau = tableau
        self.used = used
        self.values = values
        self.cost = cost
        self.payments = payments

    def fits(self, s: RigaData, seat: int) -> bool:
        """True when these are the payments of `seat` at `s` (a build being paid)."""
        pending = s.pending
        return (
            pending is not None
            and self.paid is pending[1]
            and self.card == pending[0]
            and self.seat == seat
            and self.hand is s.hgoods[seat]
            and self.tableau is s.tableau[seat]
            and self.used == s.used[seat]
        )


class RigaData(OneSeatLegalMemo):
    """The fields of one position of Riga (the State, contract.py's RigaState, subclasses it)."""

    __slots__ = FIELDS + DERIVED + MEMOS
    # The slots' types (mypyc compiles the class with them; see the rules file for meanings).
    num_players: int
    use_riga: bool
    use_gm: bool
    years: int
    phase: int
    season: int
    year: int
    start: int
    queue: tuple[int, ...]
    builds: int
    gdeck: tuple[int, ...]
    gdisc: tuple[int, ...]
    rows: tuple[tuple[int, ...], ...]
    bpool: tuple[int, ...]
    bbottom: tuple[tuple[int, int], ...]  # (card, seat of the player who put it there)
    dnew: tuple[int, ...]
    dold: tuple[int, ...]
    removed: tuple[int, ...]
    hgoods: tuple[tuple[int, ...], ...]
    kgoods: tuple[tuple[int, ...], ...]
    hbuild: tuple[tuple[int, ...], ...]
    sbuild: tuple[tuple[int, ...], ...]
    tableau: tuple[tuple[int, ...], ...]
    used: tuple[int, ...]
    rsupply: tuple[tuple[int, ...], ...]
    tiles: tuple[tuple[Any, ...], ...]
    flipped: tuple[int, ...]
    drawn: tuple[int, ...]
    pending: tuple[int, tuple[int, ...]] | None
    need: int
    choice: tuple[int, ...]
    log: tuple[tuple[Any, ...], ...]
    kind: NodeKind  # overrides State.kind
    paying: BuildPayments | None
    _outcomes: list[tuple[int, float]] | None

    # -- construction and value semantics ---------------------------------------------------

    def _blank(self) -> RigaData:
        """A new empty instance of the running class for `_copy` to fill in. contract.py's
        State answers it with a direct constructor call, which the compiled engine makes without
        looking `__new__` up (about half the cost of a copy)."""
        return type(self).__new__(type(self))

    def _copy(self) -> RigaData:
        """A new state with the same fields, its memos empty: one line per slot (the hottest
        path of every apply; the compiled engine reads written-out fields fastest)."""
        new = self._blank()  # the subclass: contract.py's RigaState
        new.num_players = self.num_players
        new.use_riga = self.use_riga
        new.use_gm = self.use_gm
        new.years = self.years
        new.phase = self.phase
        new.season = self.season
        new.year = self.year
        new.start = self.start
        new.queue = self.queue
        new.builds = self.builds
        new.gdeck = self.gdeck
        new.gdisc = self.gdisc
        new.rows = self.rows
        new.bpool = self.bpool
        new.bbottom = self.bbottom
        new.dnew = self.dnew
        new.dold = self.dold
        new.removed = self.removed
        new.hgoods = self.hgoods
        new.kgoods = self.kgoods
        new.hbuild = self.hbuild
        new.sbuild = self.sbuild
        new.tableau = self.tableau
        new.used = self.used
        new.rsupply = self.rsupply
        new.tiles = self.tiles
        new.flipped = self.flipped
        new.drawn = self.drawn
        new.pending = self.pending
        new.need = self.need
        new.choice = self.choice
        new.log = self.log
        new.kind = self.kind
        new.paying = self.paying
        new._legal = None
        new._outcomes = None
        return new

    def _values(self) -> tuple[Any, ...]:
        """The fields in FIELDS order: what equality and hashing go by."""
        return (
            self.num_players, self.use_riga, self.use_gm, self.years, self.phase,
            self.season, self.year, self.start, self.queue, self.builds, self.gdeck,
            self.gdisc, self.rows, self.bpool, self.bbottom, self.dnew, self.dold,
            self.removed, self.hgoods, self.kgoods, self.hbuild, self.sbuild, self.tableau,
            self.used, self.rsupply, self.tiles, self.flipped, self.drawn, self.pending,
            self.need, self.choice, self.log
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RigaData):
            return NotImplemented  # a C state (c_state.pyx) answers for the pair
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in FIELDS}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self._legal = self._outcomes = None
        self.paying = None
        self._set_kind()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(year={self.year}, season={SEASON_NAMES[self.season]}, phase={self.phase})"

    # -- the derived field and view ----------------------------------------------------------

    def _set_kind(self) -> RigaData:
        """Set `kind` (CHANCE, DECISION or TERMINAL) from the phase; returns the state."""
        self.kind = KIND_OF_PHASE[self.phase]
        return self

    @property
    def active(self) -> int:
        """The seat at the head of the current queue (-1 when nobody is queued)."""
        return self.queue[0] if self.queue else -1

