"""The Gang of Dice state machine (rules §2): rounds, turns, rolls, resolution.

A state is a value with flat fields (ints and tuples) copied on write. The live faces of the
player whose turn it is are kept in `cur` (counts by face code) and written into the per-seat
`faces` tuple when the turn ends, so a die roll copies one 6-tuple and not the whole table.
Every die is a chance node, so most nodes of a game are dice: a copy is one assignment per
field, and sampling reads precomputed tables.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from engine.core import NodeKind, State, mypyc_attr, uniform_sums
from engine.gang_of_dice import actions as A
from engine.gang_of_dice.components import (
    BLACK,
    BONUS,
    BRIGHT_CARDS,
    BRIGHT_ROUNDS,
    CARDS,
    DARK_CARDS,
    FACES,
    NO_FACES,
    ROUNDS,
    YELLOW,
    Card,
    score,
    triggered,
)
from engine.gang_of_dice.hidden import resample
from engine.gang_of_dice.observe import (
    chance_label,
    chance_visibility,
    hidden_chance_label,
    observation,
)
from engine.gang_of_dice.phases import (
    BUSTED,
    CARD,
    DECIDE,
    OUT,
    OVER,
    PHASE_KINDS,
    PHASE_NAMES,
    PICK,
    ROLL,
    STAKE,
    STATUS_NAMES,
    VALID,
    WAITING,
)

DIE_OUTCOMES = [(face, 1 / 6) for face in range(6)]  # face code: 0 = G, 1..5 = value
DIE_FACES = tuple(face for face, _ in DIE_OUTCOMES)
DIE_DISTRIBUTION = (DIE_FACES, tuple(accumulate(p for _, p in DIE_OUTCOMES)))  # sample_chance's


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


class GangOfDiceState(State):
    """One position of a game of Gang of Dice (see the package docstring for the protocol)."""

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

    @classmethod
    def initial(cls, cfg: Config) -> GangOfDiceState:
        """Round 1 about to reveal its card; seat 0 starts (seating is random, rules §1.1)."""
        s = GangOfDiceState.__new__(GangOfDiceState)
        n = cfg.num_players
        s.cfg, s.num_players, s.phase = cfg, n, CARD
        s.round, s.cards, s.pools = 0, (), (cfg.start_pool,) * n
        s.active, s.pot, s.start_seat = (True,) * n, 0, 0
        s.cur, s.cur_rolls, s.picked, s.pick_face, s.to_roll = NO_FACES, 0, None, 0, 0
        s.history = ()
        s._begin_round(1)
        s.kind = PHASE_KINDS[s.phase]
        return s

    # -- value semantics --------------------------------------------------------------------

    def _copy(self) -> GangOfDiceState:
        """A shallow copy; callers replace fields (all immutable) instead of mutating them.

        Field by field, FIELDS and DERIVED (the compiled engine has no `__dict__` to copy at
        once)."""
        s = GangOfDiceState.__new__(GangOfDiceState)
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
        return isinstance(other, GangOfDiceState) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"GangOfDiceState(round={self.round}, phase={PHASE_NAMES[self.phase]}, "
                f"pools={self.pools}, pot={self.pot}, cur={self.cur})")

    # -- derived facts ----------------------------------------------------------------------

    # `kind` is a field, PHASE_KINDS[phase], stored where a state is made (initial,
    # hidden.sample_state) or a transition ends (_apply, _apply_chance): every node is asked its
    # kind several times, and a property would cost a call each time.
    kind: NodeKind = NodeKind.CHANCE

    @property
    def card(self) -> Card | None:
        """The warning card of the current round (None before it is revealed)."""
        return CARDS[self.cards[-1] - 1] if len(self.cards) == self.round else None

    @property
    def seat_to_act(self) -> int | None:
        """The seat whose turn it is (also while its dice are rolling), else None."""
        return self.order[self.turn] if self.phase in (STAKE, DECIDE, PICK, ROLL) else None

    def _last_face_with_dice(self) -> int:
        return [f for f in FACES if self.cur[f]][-1]

    # -- chance -----------------------------------------------------------------------------

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase == ROLL:
            return list(DIE_OUTCOMES)
        left = self._cards_left()
        return [(c, 1 / len(left)) for c in left]

    def _chance_distribution(self) -> tuple[tuple[int, ...], tuple[float, ...]]:
        if self.phase == ROLL:
            return DIE_DISTRIBUTION
        left = self._cards_left()
        return left, uniform_sums(len(left))

    def _is_chance_outcome(self, outcome: Any) -> bool:
        return outcome in (DIE_FACES if self.phase == ROLL else self._cards_left())

    def _cards_left(self) -> tuple[int, ...]:
        """The card numbers this round's card may be: its pile less the cards already revealed."""
        return tuple(c for c in self._card_pile() if c not in self.cards)

    def _card_pile(self) -> tuple[int, ...]:
        """Card numbers the current round's card can come from."""
        if self.cfg.deck_mode == "uniform":
            return tuple(card.number for card in CARDS)
        return BRIGHT_CARDS if self.round <= BRIGHT_ROUNDS else DARK_CARDS

    def _apply_chance(self, outcome: int) -> GangOfDiceState:
        # Most nodes of a game are single dice: a die that is not the last of its roll leaves
        # the phase (and so the kind) as it is.
        s = self._copy()
        if self.phase == CARD:
            s.cards = self.cards + (outcome,)
            s.phase, s.kind = STAKE, PHASE_KINDS[STAKE]
            return s
        cur = self.cur
        s.cur = cur[:outcome] + (cur[outcome] + 1,) + cur[outcome + 1:]
        s.to_roll = to_roll = self.to_roll - 1
        if to_roll == 0:
            s._roll_landed()
            s.kind = PHASE_KINDS[s.phase]
        return s

    def _chance_label(self, outcome: int) -> str:
        return chance_label(self, outcome)

    def _chance_visibility(self, outcome: int) -> frozenset[int] | None:
        return chance_visibility(self, outcome)

    def _hidden_chance_label(self) -> str:
        return hidden_chance_label(self)

    # -- decisions --------------------------------------------------------------------------

    def _acting_players(self) -> tuple[int, ...]:
        return (self.order[self.turn],)

    def _legal_actions(self, seat: int) -> list[int]:
        return list(self._legal_range(seat))

    def _is_legal(self, seat: int, action: int) -> bool:
        return action in self._legal_range(seat)  # `in range` answers without building a list

    def _legal_range(self, seat: int) -> range:
        if self.phase == STAKE:
            return range(A.STAKE_BASE, A.STAKE_BASE + self.pools[seat])
        if self.phase == DECIDE:
            return range(A.STOP, A.REROLL + 1)
        face = self.pick_face
        # The re-roll set may not be empty: at the last face shown, 0 is only legal if
        # something was picked already (an empty re-roll is STOP, rules §6 A15).
        low = 1 if face == self._last_face_with_dice() and not any(self.picked) else 0  # type: ignore[arg-type]
        base = A.pick_action(face, 0)
        return range(base + low, base + self.cur[face] + 1)

    def _apply(self, actions: Mapping[int, int]) -> GangOfDiceState:
        action = actions[self.order[self.turn]]
        s = self._copy()
        if self.phase == STAKE:
            s._stake(action - A.STAKE_BASE + 1)
        elif self.phase == DECIDE:
            if action == A.STOP:
                s._end_turn()
            else:
                # REROLL is only offered with dice on the table: some face shows one.
                s.picked, s.pick_face, s.phase = NO_FACES, self._next_face(-1), PICK  # type: ignore[assignment]
        else:
            s._pick(action - A.pick_action(self.pick_face, 0))
        s.kind = PHASE_KINDS[s.phase]
        return s

    # -- the flow (methods below mutate a fresh copy) ----------------------------------------

    def _stake(self, n: int) -> None:
        seat = self.order[self.turn]
        pools, stakes = list(self.pools), list(self.stakes)
        pools[seat] -= n
        stakes[seat] = n
        self.pools, self.stakes = tuple(pools), tuple(stakes)
        self.cur, self.cur_rolls, self.to_roll, self.phase = NO_FACES, 0, n, ROLL

    def _next_face(self, after: int) -> int | None:
        """The next face (in FACES order) after position `after` that some die shows."""
        for i in range(after + 1, len(FACES)):
            if self.cur[FACES[i]]:
                return FACES[i]
        return None

    def _pick(self, k: int) -> None:
        picked = list(self.picked)  # type: ignore[arg-type]
        picked[self.pick_face] = k
        self.picked = tuple(picked)
        face = self._next_face(FACES.index(self.pick_face))
        if face is not None:
            self.pick_face = face
            return
        self.cur = tuple(c - p for c, p in zip(self.cur, self.picked))
        self.to_roll, self.pick_face, self.phase = sum(self.picked), 0, ROLL

    def _roll_landed(self) -> None:
        """All dice of a roll are down: log it, then the yellow check (rules §2.3)."""
        seat, card = self.order[self.turn], self.card
        self.cur_rolls += 1
        self.log = self.log + ((seat, self.cur_rolls, self.picked, self.cur),)
        self.picked = None
        # The round's card is revealed before any die is rolled.
        if card.colour == YELLOW and triggered(card, self.cur, self.cfg.g_distinct):  # type: ignore[union-attr,arg-type]
            self._close_turn(BUSTED)
        elif self.cur_rolls == 3:
            self._end_turn()
        else:
            self.phase = DECIDE

    def _end_turn(self) -> None:
        """STOP or the last re-roll: the black check on the final faces (rules §2.3 T3)."""
        card = self.card
        bust = card.colour == BLACK and triggered(card, self.cur, self.cfg.g_distinct)  # type: ignore[union-attr,arg-type]
        self._close_turn(BUSTED if bust else VALID)

    def _close_turn(self, result: int) -> None:
        seat = self.order[self.turn]
        self.faces = _put(self.faces, seat, self.cur)
        self.rolls = _put(self.rolls, seat, self.cur_rolls)
        self.status = _put(self.status, seat, result)
        self.cur, self.cur_rolls, self.turn = NO_FACES, 0, self.turn + 1
        if self.turn < len(self.order):
            self.phase = STAKE
        else:
            self._resolve_round()

    def winner(self) -> int | None:
        """The best VALID seat of this round: score, then dice rolled, then turn order (§2.5)."""
        valid = [seat for seat in self.order if self.status[seat] == VALID]
        if not valid:
            return None
        return max(valid, key=lambda seat: (score(self.faces[seat]), self.stakes[seat],  # type: ignore[arg-type]
                                            -self.order.index(seat)))

    def _resolve_round(self) -> None:
        table = self.pot + sum(self.stakes)
        winner = self.winner()
        pools = list(self.pools)
        if winner is not None:
            pools[winner] += table
        self.pools, self.pot = tuple(pools), 0 if winner is not None else table
        out = [s for s in range(self.num_players) if self.active[s] and self.pools[s] == 0]
        self.active = tuple(a and s not in out for s, a in enumerate(self.active))
        over = self.round == ROUNDS or sum(self.active) <= 1
        discarded = self.pot if over else 0  # nobody owns dice left on the table at the end
        self.history = self.history + (self._summary(winner, table, out, discarded),)
        if over:
            self.pot, self.phase = 0, OVER
            return
        self.start_seat = self._next_start(winner)
        self._begin_round(self.round + 1)

    def _summary(self, winner: int | None, table: int, out: list[int], discarded: int) -> tuple[tuple[str, Any], ...]:
        """The public record of the round just resolved, as (field, value) pairs."""
        return (
            ("round", self.round), ("card", self.card.id), ("start_player", self.start_seat),  # type: ignore[union-attr]
            ("turn_order", self.order), ("stakes", self.stakes), ("faces", self.faces),
            ("rolls", self.rolls), ("status", tuple(STATUS_NAMES[x] for x in self.status)),
            ("winner", winner), ("dice_won", table if winner is not None else 0),
            ("carried_over", 0 if winner is not None or discarded else self.pot),
            ("discarded", discarded), ("eliminated", tuple(out)),
        )

    def _next_start(self, winner: int | None) -> int:
        rule = self.cfg.start_rule
        if rule == "winner_starts" and winner is not None:
            return winner
        if rule == "fixed":
            return self._first_active_from(0)
        return self._first_active_from(self.start_seat + 1)

    def _first_active_from(self, seat: int) -> int:
        n = self.num_players
        return next((seat + i) % n for i in range(n) if self.active[(seat + i) % n])

    def _begin_round(self, r: int) -> None:
        n = self.num_players
        self.round, self.pot = r, self.pot + BONUS.get(r, 0)
        self.order = tuple(s for s in ((self.start_seat + i) % n for i in range(n)) if self.active[s])
        self.turn, self.stakes, self.faces = 0, (0,) * n, (None,) * n
        self.rolls = (0,) * n
        self.status = tuple(WAITING if a else OUT for a in self.active)
        self.log, self.phase = (), CARD

    # -- results ----------------------------------------------------------------------------

    def _returns(self) -> list[float]:
        return [float(p) for p in self.pools]

    def _resample(self, known_to: frozenset[int], rng: random.Random) -> GangOfDiceState:
        return resample(self, known_to, rng)

    def _observation(self, seat: int) -> dict[str, Any]:
        return observation(self, seat)


def _put(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1:]
