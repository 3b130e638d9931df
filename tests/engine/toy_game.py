"""A tiny hidden-information game used to test the engine contract itself (not registered).

Each seat is dealt one card from 1..5 (one chance node per card), then all seats decide at once
to fold (0) or show (1). Among the seats that show, the highest card scores 1; folding scores 0;
showing a card that is not the highest scores -1.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any

from engine.core import Game, GameInfo, NodeKind, OptionSpec, State

CARDS = (1, 2, 3, 4, 5)
FOLD, SHOW = 0, 1


class ToyGame(Game):
    info = GameInfo(
        id="toy",
        name="Toy showdown",
        version="1",
        min_players=2,
        max_players=4,
        simultaneous=True,
        hidden_info=True,
        num_actions=2,
        max_decisions=1,
        options={"show_bonus": OptionSpec(default=0, choices=(0, 1), doc="extra point for a winner")},
    )

    def initial_state(self) -> ToyState:
        return ToyState(num_players=self.num_players, bonus=self.options["show_bonus"])

    def action_label(self, action: int) -> str:
        return ("fold", "show")[action]

    def sample_state(self, observation: dict[str, Any], rng: random.Random) -> ToyState:
        state = ToyState(self.num_players, self.options["show_bonus"])
        seat, dealt = observation["seat"], observation["dealt"]
        shown = observation.get("shown") or [None] * dealt
        known = {observation["my_card"], *shown}
        pool = [c for c in CARDS if c not in known]
        rng.shuffle(pool)
        cards = tuple(
            observation["my_card"] if s == seat else shown[s] or pool.pop() for s in range(dealt)
        )
        return replace(state, cards=cards, choices=tuple(observation.get("choices", ())))


@dataclass(frozen=True)
class ToyState(State):
    # field(): the compiled State (engine.implementation) has a `num_players` descriptor, which
    # dataclass would otherwise take for this field's default.
    num_players: int = field()
    bonus: int
    cards: tuple[int, ...] = ()
    choices: tuple[int, ...] = ()

    def __setstate__(self, fields: dict[str, Any]) -> None:
        # copy and pickle: the compiled State restores fields with setattr, which a frozen
        # dataclass refuses; object.__setattr__ is what Python's own restore amounts to.
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    @property
    def kind(self) -> NodeKind:
        if len(self.cards) < self.num_players:
            return NodeKind.CHANCE
        return NodeKind.DECISION if not self.choices else NodeKind.TERMINAL

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        left = [c for c in CARDS if c not in self.cards]
        return [(c, 1 / len(left)) for c in left]

    def _apply_chance(self, outcome: int) -> ToyState:
        return replace(self, cards=self.cards + (outcome,))

    def _chance_label(self, outcome: int) -> str:
        return f"dealt {outcome} to seat {len(self.cards)}"

    def _chance_visibility(self, outcome: int) -> frozenset[int] | None:
        return frozenset({len(self.cards)})

    def _hidden_chance_label(self) -> str:
        return f"dealt a card to seat {len(self.cards)}"

    def _acting_players(self) -> tuple[int, ...]:
        return tuple(range(self.num_players))

    def _legal_actions(self, seat: int) -> list[int]:
        return [FOLD, SHOW]

    def _apply(self, actions: dict[int, int]) -> ToyState:
        return replace(self, choices=tuple(actions[s] for s in range(self.num_players)))

    def _observation(self, seat: int) -> dict[str, Any]:
        obs: dict[str, Any] = {"seat": seat, "dealt": len(self.cards),
                               "my_card": self.cards[seat] if seat < len(self.cards) else None}
        if self.choices:
            obs["choices"] = list(self.choices)
            obs["shown"] = [c if a == SHOW else None for c, a in zip(self.cards, self.choices)]
        return obs

    def _returns(self) -> list[float]:
        shown = [c for c, a in zip(self.cards, self.choices) if a == SHOW]
        best = max(shown, default=0)
        return [
            0.0 if a == FOLD else (1.0 + self.bonus if c == best else -1.0)
            for c, a in zip(self.cards, self.choices)
        ]

    def _resample(self, known_to: frozenset[int], rng: random.Random) -> ToyState:
        if self.choices:  # all shown or folded cards are public at the end only if shown
            hidden = [s for s in range(len(self.cards)) if s not in known_to and self.choices[s] == FOLD]
        else:
            hidden = [s for s in range(len(self.cards)) if s not in known_to]
        pool = [c for c in CARDS if c not in self.cards] + [self.cards[s] for s in hidden]
        rng.shuffle(pool)
        cards = list(self.cards)
        for seat in hidden:
            cards[seat] = pool.pop()
        return replace(self, cards=tuple(cards))
