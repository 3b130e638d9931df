"""The games Arena knows, by id: `make("riviera", num_players=4, **options)`.

An explicit table (no registration side effects). Modules are imported on first use, so a
tool that only needs one game does not pay for loading the others.
"""

from __future__ import annotations

import importlib
from typing import Any

from engine.core import Game, GameInfo, UnknownGameError

GAMES: dict[str, str] = {
    # id: "module:GameClass"
    "riviera": "engine.riviera:Riviera",
    "gang_of_dice": "engine.gang_of_dice:GangOfDice",
    "lost_cities_rivals": "engine.lost_cities_rivals:LostCitiesRivals",
    "riga": "engine.riga:Riga",
}


def game_ids() -> list[str]:
    """The registered game ids, sorted."""
    return sorted(GAMES)


def game_class(game_id: str) -> type[Game]:
    """The Game subclass for an id; KeyError naming the valid ids when it is unknown."""
    if game_id not in GAMES:
        raise UnknownGameError(f"unknown game {game_id!r}; valid games: {', '.join(game_ids())}")
    module_name, class_name = GAMES[game_id].split(":")
    return getattr(importlib.import_module(module_name), class_name)  # type: ignore[no-any-return]


def info(game_id: str) -> GameInfo:
    """Static facts about a game (player counts, options, version)."""
    return game_class(game_id).info


def make(game_id: str, num_players: int, **options: Any) -> Game:
    """A configured game. KeyError for an unknown id, ValueError for a bad count or option."""
    return game_class(game_id)(num_players, **options)
