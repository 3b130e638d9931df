"""The games Arena knows, by id: `make("riviera", num_players=4, **options)`.

Each game is one line: its id and where its `GameDescription` is ("module:DESCRIPTION",
engine/description.py). The games of this repository are listed in BUILT_IN; a game from another
package registers itself with one entry point in its own pyproject.toml, no edit here:

    [project.entry-points."arena.games"]
    my_game = "my_package.my_game:DESCRIPTION"

`GAMES` is both, read once at import from the installed distributions (so a Ray worker, a bot
process or the CLI in the same environment knows the same games), and is not changed afterwards.
Descriptions are imported on first use, so a tool that only needs one game does not pay for
loading the others. `load(ref)` resolves a reference without consulting the table: a match job
carries its game's reference, and a worker plays it from that.
"""

from __future__ import annotations

import warnings
from functools import cache
from importlib.metadata import entry_points
from pkgutil import resolve_name
from typing import Any

from engine.core import Game, GameInfo, UnknownGameError
from engine.description import GameDescription

ENTRY_POINT_GROUP = "arena.games"

BUILT_IN: dict[str, str] = {
    # id: "module:DESCRIPTION"
    "riviera": "engine.riviera:DESCRIPTION",
    "gang_of_dice": "engine.gang_of_dice:DESCRIPTION",
    "lost_cities_rivals": "engine.lost_cities_rivals:DESCRIPTION",
    "riga": "engine.riga:DESCRIPTION",
}


def installed() -> dict[str, str]:
    """The games registered by entry point (group "arena.games"), by id; a built-in id is kept built-in."""
    found: dict[str, str] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name in BUILT_IN:
            warnings.warn(f"entry point {point.name}={point.value!r} ({ENTRY_POINT_GROUP}) is ignored: "
                          f"{point.name!r} is a built-in game", stacklevel=2)
        else:
            found[point.name] = point.value
    return found


GAMES: dict[str, str] = {**BUILT_IN, **installed()}


def game_ids() -> list[str]:
    """The registered game ids, sorted."""
    return sorted(GAMES)


def ref(game_id: str) -> str:
    """Where a game's description is ("module:DESCRIPTION"); KeyError naming the valid ids."""
    if game_id not in GAMES:
        raise UnknownGameError(f"unknown game {game_id!r}; valid games: {', '.join(game_ids())}")
    return GAMES[game_id]


@cache
def load(game_ref: str) -> GameDescription:
    """The description a reference names ("module:NAME": a GameDescription, or a bare Game class,
    described with nothing more); ValueError when it names something else."""
    try:
        found = resolve_name(game_ref)
    except (ValueError, ImportError, AttributeError) as error:
        raise ValueError(f"game reference {game_ref!r} does not load ({error}); "
                         "give 'module:DESCRIPTION' naming a GameDescription") from error
    if isinstance(found, GameDescription):
        return found
    if isinstance(found, type) and issubclass(found, Game):
        return GameDescription(found)
    raise ValueError(f"game reference {game_ref!r} names a {type(found).__name__}, not a GameDescription")


def describe(game_id: str) -> GameDescription:
    """A registered game's description; KeyError for an unknown id, ValueError when its line is wrong."""
    description = load(ref(game_id))
    if description.id != game_id:
        raise ValueError(f"game {game_id!r} is registered as {GAMES[game_id]!r}, which describes "
                         f"{description.id!r}: the registered id must be the game's info.id")
    return description


def descriptions() -> list[GameDescription]:
    """Every registered game's description, by id."""
    return [describe(game_id) for game_id in game_ids()]


def game_class(game_id: str) -> type[Game]:
    """The Game subclass for an id; KeyError naming the valid ids when it is unknown."""
    return describe(game_id).game


def info(game_id: str) -> GameInfo:
    """Static facts about a game (player counts, options, version)."""
    return game_class(game_id).info


def make(game_id: str, num_players: int, **options: Any) -> Game:
    """A configured game. KeyError for an unknown id, ValueError for a bad count or option."""
    return game_class(game_id)(num_players, **options)
