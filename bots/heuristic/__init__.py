"""The `heuristic` built-in bot: one hand-written rule-based player per game, chosen by game id.

Each game's heuristic lives in its own module here (`bots/heuristic/<game>.py`), named by its game's
description (`heuristic` in engine/<game>/game.py, engine/description.py), decides from the
observation alone (the fields and action ids documented in the engine module's docstring), and
explains its rules in its docstring. A module may also define `estimate_returns(observation)`, its
guess of every seat's final returns from one seat's view, which lets ISMCTS cut its playouts
short. `heuristic` is the middle rung of the ladder random < heuristic < ismcts (docs/bots.md).
"""

from __future__ import annotations

import random
from pkgutil import resolve_name
from types import ModuleType
from typing import Any

from bots.base import Bot
from engine import registry
from engine.core import Game


def heuristics() -> dict[str, str]:
    """Every game's heuristic, "module:Class", from the game descriptions (`heuristic`), by game id."""
    return {d.id: d.heuristic for d in registry.descriptions() if d.heuristic}


def _heuristic_ref(game_id: str) -> str:
    found = registry.describe(game_id).heuristic if game_id in registry.GAMES else ""
    if not found:
        have = ", ".join(sorted(heuristics())) or "none"
        raise ValueError(f"no heuristic bot for game {game_id!r}; games with one: {have}")
    return found


def has_heuristic(game_id: str) -> bool:
    """Whether a registered game's description names a heuristic bot."""
    return game_id in registry.GAMES and bool(registry.describe(game_id).heuristic)


def heuristic_module(game_id: str) -> ModuleType:
    """The module holding a game's heuristic (it may also define `estimate_returns(observation)`)."""
    return resolve_name(_heuristic_ref(game_id).split(":")[0])  # type: ignore[no-any-return]


def heuristic_class(game_id: str) -> type[Bot]:
    """The heuristic Bot class of a game; ValueError naming the games that have one."""
    return resolve_name(_heuristic_ref(game_id))  # type: ignore[no-any-return]


class HeuristicBot(Bot):
    """Plays the game's own heuristic (by `game.info.id`); takes no parameters."""

    name = "heuristic"

    def __init__(self, game: Game, seat: int, rng: random.Random, **params: Any) -> None:
        super().__init__(game, seat, rng, **params)
        self.player = heuristic_class(game.info.id)(game, seat, rng)

    def act(self, observation: dict[str, Any], legal_actions: list[int]) -> int:
        return self.player.act(observation, legal_actions)
