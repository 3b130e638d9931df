"""RigaState, the State of the engine contract (engine.core): the data of state.py with each hook
answered by the rules above it (queries, flow, observe, hidden) and the memos of state.py.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from itertools import accumulate
from typing import Any

from engine.core import uniform_sums
from engine.riga import flow, queries
from engine.riga.hidden import resample
from engine.riga.observe import (
    action_visibility,
    chance_label,
    chance_visibility,
    hidden_action_label,
    hidden_chance_label,
    observation,
)  # fmt: skip
from engine.riga.phases import GOODS_DRAW_PHASES, SETUP_BUILDINGS, SPRING_DISPLAY
from engine.riga.state import RigaData

# The draw tables of goods decks seen so far (a deck is 4 counts: a few thousand in all), by the
# deck's number `_deck_key` (a list index: a dict of 4-tuples hashed and compared the tuple at
# every draw, 2 % of a playout).
_GOODS_TABLES: list[tuple[tuple[int, ...], tuple[float, ...]] | None] = [None] * (1 << 16)


def _deck_key(gdeck: tuple[int, ...]) -> int:
    """The deck's counts as the digits of a base-16 number (-1 when one does not fit: no deck of
    the rules, whose counts stay within t.DECK_COUNTS, 8 to 14)."""
    key = 0
    for count in gdeck:
        if not 0 <= count < 16:
            return -1
        key = key << 4 | count
    return key if len(gdeck) == 4 else -1


def goods_distribution(gdeck: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """`_chance_distribution` of a goods draw from `gdeck`: the goods in it and the running sums
    of `queries.chance_outcomes`' odds, the very floats, computed once per deck."""
    key = _deck_key(gdeck)
    table = _GOODS_TABLES[key] if key >= 0 else None
    if table is None:
        outcomes = queries.goods_outcomes(gdeck)
        table = (tuple(o for o, _ in outcomes), tuple(accumulate(p for _, p in outcomes)))
        if key >= 0:
            _GOODS_TABLES[key] = table
    return table


class RigaState(RigaData):
    """One position of Riga; see the package docstring for actions and observations."""

    __slots__ = ()  # the data's slots only (without, the Python engine's states get a __dict__)

    def _blank(self) -> RigaData:
        # A direct constructor call (native when compiled); a subclass of this State gets its own.
        return RigaState() if type(self) is RigaState else type(self).__new__(type(self))

    @classmethod
    def initial(cls, num_players: int, use_riga: bool, use_gm: bool) -> RigaState:
        """A new game, before the start player is drawn."""
        s = RigaState.__new__(RigaState)
        flow.set_up(s, num_players, use_riga, use_gm)
        return s

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        return list(self._outcome_memo())  # a copy: the caller may change its list

    def _outcome_memo(self) -> list[tuple[int, float]]:
        if self._outcomes is None:
            self._outcomes = queries.chance_outcomes(self)
        return self._outcomes

    # The base class's speed hooks (what sample_chance and the checks of apply_chance / apply
    # ask), answered from the memos, or for a goods or building draw from the deck, without a list.

    def _chance_distribution(self) -> tuple[Sequence[int], Sequence[float]]:
        # Most chance nodes draw goods or buildings: their tables depend on the deck alone, so
        # they come from a table per deck (goods) or uniform_sums (buildings), not a new list.
        phase = self.phase
        if phase in GOODS_DRAW_PHASES:
            return goods_distribution(self.gdeck)
        if phase in (SETUP_BUILDINGS, SPRING_DISPLAY):
            return self.bpool, uniform_sums(len(self.bpool))
        outcomes = self._outcome_memo()
        return [o for o, _ in outcomes], list(accumulate(p for _, p in outcomes))

    def _is_chance_outcome(self, outcome: Any) -> bool:
        if self.phase in GOODS_DRAW_PHASES and type(outcome) is int:
            return 0 <= outcome < len(self.gdeck) and self.gdeck[outcome] > 0
        if self.phase in (SETUP_BUILDINGS, SPRING_DISPLAY):
            return outcome in self.bpool  # the outcomes are the cards of the shuffled part
        return any(o == outcome for o, _ in self._outcome_memo())

    def _is_legal(self, seat: int, action: int) -> bool:
        return action in self._legal_memo(seat)

    def _apply_chance(self, outcome: int) -> RigaData:
        s = self._copy()
        flow.apply_chance(s, outcome)
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

    # -- decisions --------------------------------------------------------------------------

    def _acting_players(self) -> tuple[int, ...]:
        return (self.queue[0],)

    def _actions_of(self, seat: int) -> list[int]:
        return queries.legal_actions(self, seat)

    def _apply(self, actions: Mapping[int, int]) -> RigaData:
        seat, action = next(iter(actions.items()))
        s = self._copy()
        flow.apply_action(s, seat, action)
        return s

    # -- results ----------------------------------------------------------------------------

    def _returns(self) -> list[float]:
        return [float(total) for total in queries.totals(self)]

    def _ranks(self) -> list[int]:
        return queries.ranks(self)

    def _observation(self, seat: int) -> dict[str, Any]:
        return observation(self, seat)

    def _resample(self, known_to: frozenset[int], rng: random.Random) -> RigaData:
        return resample(self, known_to, rng)
