"""GangOfDiceState, the State of the engine contract (engine.core): the data of state.py with each
hook answered by the rules above it (queries, flow, observe, hidden). Sampling reads precomputed
tables: most nodes of a game are dice.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from itertools import accumulate
from typing import Any, Final

from engine.core import uniform_sums
from engine.gang_of_dice import actions as A
from engine.gang_of_dice import flow, queries
from engine.gang_of_dice.components import (
    NO_FACES,
)  # fmt: skip
from engine.gang_of_dice.hidden import resample
from engine.gang_of_dice.observe import (
    chance_label,
    chance_visibility,
    hidden_chance_label,
    observation,
)  # fmt: skip
from engine.gang_of_dice.phases import (
    CARD,
    DECIDE,
    PHASE_KINDS,
    PICK,
    ROLL,
    STAKE,
)  # fmt: skip
from engine.gang_of_dice.state import Config, GangOfDiceData

DIE_OUTCOMES: Final = [(face, 1 / 6) for face in range(6)]  # face code: 0 = G, 1..5 = value
DIE_FACES: Final = tuple(face for face, _ in DIE_OUTCOMES)
DIE_DISTRIBUTION: Final = (DIE_FACES, tuple(accumulate(p for _, p in DIE_OUTCOMES)))  # sample_chance's


class GangOfDiceState(GangOfDiceData):
    """One position of a game of Gang of Dice (see the package docstring for the protocol)."""

    def _blank(self) -> GangOfDiceData:
        # A direct constructor call (native when compiled); a subclass of this State gets its own.
        return GangOfDiceState() if type(self) is GangOfDiceState else type(self).__new__(type(self))

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
        flow.begin_round(s, 1)
        s.kind = PHASE_KINDS[s.phase]
        return s

    # -- chance -----------------------------------------------------------------------------

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase == ROLL:
            return list(DIE_OUTCOMES)
        left = queries.cards_left(self)
        return [(c, 1 / len(left)) for c in left]

    def _chance_distribution(self) -> tuple[tuple[int, ...], tuple[float, ...]]:
        if self.phase == ROLL:
            return DIE_DISTRIBUTION
        left = queries.cards_left(self)
        return left, uniform_sums(len(left))

    def _is_chance_outcome(self, outcome: Any) -> bool:
        return outcome in (DIE_FACES if self.phase == ROLL else queries.cards_left(self))

    def _apply_chance(self, outcome: int) -> GangOfDiceData:
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
            flow.roll_landed(s)
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
        low = 1 if face == queries.last_face_with_dice(self) and not any(self.picked) else 0  # type: ignore[arg-type]
        base = A.pick_action(face, 0)
        return range(base + low, base + self.cur[face] + 1)

    def _apply(self, actions: Mapping[int, int]) -> GangOfDiceData:
        action = actions[self.order[self.turn]]
        s = self._copy()
        if self.phase == STAKE:
            flow.stake(s, action - A.STAKE_BASE + 1)
        elif self.phase == DECIDE:
            if action == A.STOP:
                flow.end_turn(s)
            else:
                # REROLL is only offered with dice on the table: some face shows one.
                s.picked, s.pick_face, s.phase = NO_FACES, queries.next_face(self, -1), PICK  # type: ignore[assignment]
        else:
            flow.pick(s, action - A.pick_action(self.pick_face, 0))
        s.kind = PHASE_KINDS[s.phase]
        return s

    # -- results ----------------------------------------------------------------------------

    def _returns(self) -> list[float]:
        return [float(p) for p in self.pools]

    def _resample(self, known_to: frozenset[int], rng: random.Random) -> GangOfDiceData:
        return resample(self, known_to, rng)

    def _observation(self, seat: int) -> dict[str, Any]:
        return observation(self, seat)
