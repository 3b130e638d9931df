"""The `heuristic` built-in bot: one hand-written rule-based player per game, chosen by game id.

Each game's heuristic lives in its own module here (`bots/heuristic/<game>.py`), decides from the
observation alone (the fields and action ids documented in the engine module's docstring), and
explains its rules in its docstring. A module may also define `estimate_returns(observation)`, its
guess of every seat's final returns from one seat's view, which lets ISMCTS cut its playouts short. `heuristic` is the middle rung of the ladder
random < heuristic < ismcts (docs/bots.md).
"""

from __future__ import annotations

import importlib
import random
from types import ModuleType
from typing import Any

from bots.base import Bot
from engine.core import Game

HEURISTICS: dict[str, str] = {
    "gang_of_dice": "bots.heuristic.gang_of_dice:GangOfDiceHeuristic",
    "lost_cities_rivals": "bots.heuristic.lost_cities_rivals:RivalsHeuristic",
    "riga": "bots.heuristic.riga:RigaHeuristic",
    "riviera": "bots.heuristic.riviera:RivieraHeuristic",
}


def heuristic_module(game_id: str) -> ModuleType:
    """The module holding a game's heuristic (it may also define `estimate_returns(observation)`)."""
    if game_id not in HEURISTICS:
        have = ", ".join(sorted(HEURISTICS)) or "none"
        raise ValueError(f"no heuristic bot for game {game_id!r}; games with one: {have}")
    return importlib.import_module(HEURISTICS[game_id].split(":")[0])


def heuristic_class(game_id: str) -> type[Bot]:
    """The heuristic Bot class of a game; ValueError naming the games that have one."""
    class_name = HEURISTICS.get(game_id, ":").split(":")[1]
    return getattr(heuristic_module(game_id), class_name)  # type: ignore[no-any-return]


class HeuristicBot(Bot):
    """Plays the game's own heuristic (by `game.info.id`); takes no parameters."""

    name = "heuristic"

    def __init__(self, game: Game, seat: int, rng: random.Random, **params: Any) -> None:
        super().__init__(game, seat, rng, **params)
        self.player = heuristic_class(game.info.id)(game, seat, rng)

    def act(self, observation: dict[str, Any], legal_actions: list[int]) -> int:
        return self.player.act(observation, legal_actions)
