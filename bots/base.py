"""The shape every built-in bot follows.

A bot is made for one seat of one configured game and gets its own seeded generator, so a match
is reproducible from its seed. It sees only what its seat sees: `act` receives the seat's
observation and the legal action ids, never the engine state.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import Any

from engine.core import Game


class Bot(ABC):
    """A built-in bot. Subclasses set `name` and implement `act`; parameters come as keywords."""

    name: str = ""

    def __init__(self, game: Game, seat: int, rng: random.Random, **params: Any) -> None:
        if params:
            raise ValueError(f"bot {self.name!r} takes no parameter {sorted(params)[0]!r}")
        self.game = game
        self.seat = seat
        self.rng = rng

    @abstractmethod
    def act(self, observation: dict[str, Any], legal_actions: list[int]) -> int:
        """Pick one of `legal_actions` from what this seat sees."""
