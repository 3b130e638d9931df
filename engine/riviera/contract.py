"""RivieraState, the State of the engine contract (engine.core): the data of state.py with each
hook answered by the rules above it (queries, flow, observe, hidden). This module only
dispatches: node kind, chance outcomes, acting seats, the legal-action memo, and which
transition an action triggers.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from functools import cache
from itertools import accumulate, repeat
from typing import Any, Final

from engine.core import uniform_sums
from engine.riviera import flow, queries
from engine.riviera.components import bits
from engine.riviera.hidden import resample
from engine.riviera.observe import (
    action_visibility,
    chance_label,
    chance_visibility,
    hidden_action_label,
    hidden_chance_label,
    observation,
    voided_chance_steps,
)  # fmt: skip
from engine.riviera.phases import ADJUST_DICE, BONUS, CHOOSE, DEAL, IN, ROLL, STOP_OR_MORE
from engine.riviera.state import KIND_BY_PHASE, RivieraData, Rules

_DIE_OUTCOMES: Final = tuple((face, 1 / 6) for face in range(1, 7))
# sample_chance's tables (core.State._chance_distribution): most nodes of a game are dice and
# dealt cards, so the running sums are computed once, not per node.
_DIE_FACES: Final = tuple(face for face, _ in _DIE_OUTCOMES)
_DIE_DISTRIBUTION: Final = (_DIE_FACES, tuple(accumulate(p for _, p in _DIE_OUTCOMES)))


@cache
def _in_seats(status: tuple[int, ...]) -> tuple[int, ...]:
    """The seats still IN: the acting seats of a simultaneous phase (asked several times a node)."""
    return tuple(p for p, x in enumerate(status) if x == IN)


class RivieraState(RivieraData):
    """One position of a game of Riviera (see the package docstring for the protocol)."""

    def __init__(self, rules: Rules | None = None) -> None:
        """A new game with `rules`, dealt up to its first chance node; without, a blank state
        for `copy` and pickle to fill in."""
        super().__init__(rules)
        if rules is not None:
            flow.start_game(self)
            self.settle_kind()

    def _blank(self) -> RivieraData:
        # A direct constructor call (native when compiled); a subclass of this State gets its own.
        return RivieraState() if type(self) is RivieraState else type(self).__new__(type(self))

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase == ROLL:
            return list(_DIE_OUTCOMES)
        options = flow.chance_options(self)
        return list(zip(options, repeat(1.0 / len(options))))

    def _chance_distribution(self) -> tuple[Sequence[int], Sequence[float]]:
        if self.phase == ROLL:
            return _DIE_DISTRIBUTION
        options = self.deck if self.phase == DEAL else flow.chance_options(self)
        return options, uniform_sums(len(options))

    def _is_chance_outcome(self, outcome: Any) -> bool:
        if self.phase == ROLL:
            return outcome in _DIE_FACES
        if self.phase == DEAL and type(outcome) is int:  # the deck is sorted: bisect, not scan
            deck = self.deck
            i = bisect_left(deck, outcome)
            return i < len(deck) and deck[i] == outcome
        return super()._is_chance_outcome(outcome)

    def _apply_chance(self, outcome: int) -> RivieraData:
        s = self.copy()
        if s.phase == DEAL:  # most nodes of a game: straight to the deal, no dispatch
            flow.deal_card(s, outcome)
        else:
            flow.apply_chance(s, outcome)
        s.kind = KIND_BY_PHASE[s.phase]
        return s

    def _chance_label(self, outcome: int) -> str:
        return chance_label(self, outcome)

    def _chance_visibility(self, outcome: int) -> frozenset[int] | None:
        return chance_visibility(self, outcome)

    def _hidden_chance_label(self) -> str:
        return hidden_chance_label(self)

    def _action_visibility(self, seat: int, action: int) -> frozenset[int] | None:
        return action_visibility(self, seat, action)

    def _hidden_action_label(self, seat: int) -> str:
        return hidden_action_label(self, seat)

    def _voided_chance_steps(self, outcome: int) -> int:
        return voided_chance_steps(self, self._apply_chance(outcome))

    # -- decisions ----------------------------------------------------------------------------

    def _acting_players(self) -> tuple[int, ...]:
        phase = self.phase
        if phase == ADJUST_DICE:
            return self.adjusters[:1]
        if phase == BONUS:
            return tuple(bits(self.eligible))
        if phase in (CHOOSE, STOP_OR_MORE) and not self.rules.sequential:
            return _in_seats(self.status)
        return self.queue[:1]

    def _legal_actions(self, seat: int) -> list[int]:
        return list(self._memo_legal(seat))  # a copy: the caller may change its list

    def _is_legal(self, seat: int, action: int) -> bool:
        return action in self._memo_legal(seat)

    def _memo_legal(self, seat: int) -> tuple[int, ...]:
        memo = self._legal
        if memo is None:
            memo = self._legal = {}
        legal = memo.get(seat)
        if legal is None:
            legal = memo[seat] = tuple(queries.legal_actions(self, seat))
        return legal

    def _apply(self, actions: Mapping[int, int]) -> RivieraData:
        s = self.copy()
        flow.apply_actions(s, actions)
        s.kind = KIND_BY_PHASE[s.phase]
        return s

    # -- results ------------------------------------------------------------------------------

    def _returns(self) -> list[float]:
        return queries.returns(self)

    def _observation(self, seat: int) -> dict[str, Any]:
        return observation(self, seat)

    def _resample(self, known_to: frozenset[int], rng: random.Random) -> RivieraData:
        return resample(self, known_to, rng)
