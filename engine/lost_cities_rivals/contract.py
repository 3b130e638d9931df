"""RivalsState, the State of the engine contract (engine.core): the data of state.py with each
hook answered by the rules above it (queries, flow, observe, hidden) and the memos of state.py.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from itertools import accumulate
from typing import Any

from engine.lost_cities_rivals import actions as A
from engine.lost_cities_rivals import components as C
from engine.lost_cities_rivals import flow, queries
from engine.lost_cities_rivals.hidden import resample
from engine.lost_cities_rivals.observe import (
    chance_label,
    chance_visibility,
    hidden_chance_label,
    observation,
)  # fmt: skip
from engine.lost_cities_rivals.phases import (
    BID,
    DEAL,
    REVEAL,
    TAKE,
    TURN,
)  # fmt: skip
from engine.lost_cities_rivals.state import RivalsData


class RivalsState(RivalsData):
    """One position of Lost Cities: Rivals (see the package docstring for the protocol)."""

    __slots__ = ()  # the data's slots only (without, the Python engine's states get a __dict__)

    def _blank(self) -> RivalsData:
        # A direct constructor call (native when compiled); a subclass of this State gets its own.
        return RivalsState() if type(self) is RivalsState else type(self).__new__(type(self))

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        return list(self._outcome_memo())  # a copy: the caller may change its list

    def _outcome_memo(self) -> list[tuple[int, float]]:
        if self._outcomes is None:
            self._outcomes = queries.deal_outcomes(self) if self.phase == DEAL else queries.reveal_outcomes(self)
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

    def _apply_chance(self, outcome: int) -> RivalsData:
        new = self._copy()
        if self.phase == DEAL:
            flow.deal_starting_wager(new, outcome)
        else:
            flow.reveal(new, outcome)
        return new._settle_kind()

    def _chance_label(self, outcome: int) -> str:
        return chance_label(self, outcome)

    def _chance_visibility(self, outcome: int) -> frozenset[int] | None:
        return chance_visibility(self, outcome)

    def _hidden_chance_label(self) -> str:
        return hidden_chance_label(self)

    # -- decisions --------------------------------------------------------------------------

    def _acting_players(self) -> tuple[int, ...]:
        if self._acting is None:
            self._acting = (queries.actor(self),)
        return self._acting

    def _actions_of(self, seat: int) -> list[int]:
        if self.phase == TURN:
            return queries.turn_actions(self, seat)
        if self.phase == BID:
            return [A.PASS, *range(A.bid_action(self.high_bid + 1), A.bid_action(self.coins[seat]) + 1)]
        if self.phase == TAKE:
            return queries.place_actions(self, seat) + [A.END_TAKE]
        return sorted(A.BOX_BASE + k for k in set(self.display)) + [A.SKIP_BOX]

    def _apply(self, actions: Mapping[int, int]) -> RivalsData:
        (seat, action), = actions.items()
        new = self._copy()
        if self.phase == TURN:
            flow.play_turn(new, seat, action)
        elif self.phase == BID:
            flow.bid(new, seat, action)
        elif self.phase == TAKE:
            flow.take(new, seat, action)
        else:
            flow.box_card(new, action)
        return new._settle_kind()

    def _returns(self) -> list[float]:
        return [float(score) for score in queries.scores(self)]

    # -- information --------------------------------------------------------------------------

    def _observation(self, seat: int) -> dict[str, Any]:
        return observation(self, seat)

    def _resample(self, known_to: frozenset[int], rng: random.Random) -> RivalsData:
        return resample(self, known_to, rng)
