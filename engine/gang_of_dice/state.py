"""The data of a Gang of Dice position (rules §2): rounds, turns, rolls.

A state is a value with flat fields (ints and tuples) copied on write. The live faces of the
player whose turn it is are kept in `cur` (counts by face code) and written into the per-seat
`faces` tuple when the turn ends, so a die roll copies one 6-tuple and not the whole table.
Every die is a chance node, so most nodes of a game are dice: a copy is one assignment per
field.

Its fields (FIELDS, DERIVED, MEMOS), copy, equality and hashing, and nothing of the rules: the
modules above it work on it (`queries.py` the read-only rules questions, `flow.py` the
transitions, `observe.py` the observation and labels, `hidden.py` the rebuild from an
observation), and `contract.py`'s GangOfDiceState, the engine contract's State, subclasses it
and answers each hook with them. Nothing here imports them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core import NodeKind, State, mypyc_attr
from engine.gang_of_dice.phases import (
    PHASE_NAMES,
)  # fmt: skip


@mypyc_attr(native_class=False)  # compiled, a plain class: pickle and copy set its frozen fields
@dataclass(frozen=True)
class Config:
    """The fixed ruleset of one game (player count and resolved options)."""

    num_players: int
    start_pool: int
    deck_mode: str  # "uniform" | "two_deck"
    hide_pools: bool
    g_distinct: bool
    start_rule: str  # "rotate" | "winner_starts" | "fixed"
    options: tuple[tuple[str, Any], ...]  # every resolved option, for the observation


# The state's fields, once: equality and hashing go by FIELDS, `_copy` copies FIELDS and DERIVED,
# and the class annotations declare exactly these (for mypyc; num_players is State's);
# tests/engine/test_state_fields.py checks that the lists agree, and that a new game sets every
# field.
FIELDS = (
    "cfg", "num_players", "phase", "round", "cards", "pools", "active", "pot", "start_seat",
    "order", "turn", "stakes", "faces", "rolls", "status", "cur", "cur_rolls", "picked",
    "pick_face", "to_roll", "log", "history",
)  # fmt: skip
# Copied, not compared: the node kind, PHASE_KINDS[phase] (see `kind` below).
DERIVED = ("kind",)
MEMOS = ()  # none: nothing is filled on first use


class GangOfDiceData(State):
    """The fields of one position (the State, contract.py's GangOfDiceState, subclasses it)."""

    cfg: Config
    phase: int
    round: int  # 1..12
    cards: tuple[int, ...]  # card number revealed in each round so far
    pools: tuple[int, ...]  # dice each seat owns and has not staked
    active: tuple[bool, ...]  # False once a seat is eliminated
    pot: int  # dice on the table owned by nobody (bonus and carry-over)
    start_seat: int
    order: tuple[int, ...]  # this round's turn order
    turn: int  # index into `order` of the seat to act (len(order) once all have played)
    stakes: tuple[int, ...]
    faces: tuple[tuple[int, ...] | None, ...]  # final faces of seats that have played
    rolls: tuple[int, ...]  # rolls made (1..3) by seats that have played
    status: tuple[int, ...]
    cur: tuple[int, ...]  # faces of the seat to act
    cur_rolls: int
    picked: tuple[int, ...] | None  # dice chosen for re-roll so far, by face code
    pick_face: int  # face whose re-roll count is being chosen
    to_roll: int  # dice still to land in the current roll
    log: tuple[tuple[Any, ...], ...]  # this round: (seat, roll, rerolled or None, faces)
    history: tuple[tuple[tuple[str, Any], ...], ...]  # public summary of each resolved round

    # -- value semantics --------------------------------------------------------------------

    def _blank(self) -> GangOfDiceData:
        """A new empty instance of the running class for `_copy` to fill in. contract.py's
        State answers it with a direct constructor call, which the compiled engine makes without
        looking `__new__` up (about half the cost of a copy)."""
        return type(self).__new__(type(self))

    def _copy(self) -> GangOfDiceData:
        """A shallow copy; callers replace fields (all immutable) instead of mutating them.

        Field by field, FIELDS and DERIVED (the compiled engine has no `__dict__` to copy at
        once)."""
        s = self._blank()  # the subclass: contract.py's GangOfDiceState
        s.cfg = self.cfg
        s.num_players = self.num_players
        s.phase = self.phase
        s.round = self.round
        s.cards = self.cards
        s.pools = self.pools
        s.active = self.active
        s.pot = self.pot
        s.start_seat = self.start_seat
        s.order = self.order
        s.turn = self.turn
        s.stakes = self.stakes
        s.faces = self.faces
        s.rolls = self.rolls
        s.status = self.status
        s.cur = self.cur
        s.cur_rolls = self.cur_rolls
        s.picked = self.picked
        s.pick_face = self.pick_face
        s.to_roll = self.to_roll
        s.log = self.log
        s.history = self.history
        s.kind = self.kind
        return s

    def _key(self) -> tuple[Any, ...]:
        """The FIELDS in order (written out: the compiled engine reads them fastest so)."""
        return (
            self.cfg, self.num_players, self.phase, self.round, self.cards, self.pools,
            self.active, self.pot, self.start_seat, self.order, self.turn, self.stakes,
            self.faces, self.rolls, self.status, self.cur, self.cur_rolls, self.picked,
            self.pick_face, self.to_roll, self.log, self.history
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GangOfDiceData):
            return NotImplemented  # a C state (c_state.pyx) answers for the pair
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(round={self.round}, phase={PHASE_NAMES[self.phase]}, "
                f"pools={self.pools}, pot={self.pot}, cur={self.cur})")

    # -- the derived field -------------------------------------------------------------------

    # `kind` is a field, PHASE_KINDS[phase], stored where a state is made (initial,
    # hidden.sample_state) or a transition ends (_apply, _apply_chance): every node is asked its
    # kind several times, and a property would cost a call each time.
    kind: NodeKind = NodeKind.CHANCE
