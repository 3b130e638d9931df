"""What Arena knows about a game, in one place: `GameDescription`.

Each game exports one, `DESCRIPTION` in `engine/<game>/game.py`, and every table of the arena
(engine.registry, the heuristic bots, the observation names, the OpenSpiel environment, the
dashboard's board) reads it, so a new game is its own folders plus one line that registers its
description (docs/architecture.md, "Adding a fifth game").

The engine imports only the standard library, so what belongs to a higher layer is named, not
imported: the heuristic bot as a "module:Class" string (bots/), the board as a path under the
dashboard's static folder (dashboards/static/). tests/test_architecture.py checks that each names
a thing of its own layer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core import Game
from engine.info import GameInfo, mypyc_attr


@mypyc_attr(native_class=False)  # compiled, a plain class: pickle and copy set its frozen fields
@dataclass(frozen=True)
class GameDescription:
    """One game: its rules (the Game class) and the facts the layers above need about it."""

    game: type[Game]
    # The largest chance outcome id + 1 (the "Chance nodes" of the game's docstring): OpenSpiel
    # needs it before it makes a game. 0: not stated, and the OpenSpiel environment refuses it.
    max_chance_outcomes: int = 0
    # The named string values of the observations, by place ("phase", "status[]", "events[].type"):
    # what the observations' JSON Schemas give an `enum` (arena/observation_names.py).
    observation_names: Mapping[str, Sequence[str]] = field(default_factory=dict)
    # (option, value) under which a game with simultaneous choices has none, one seat acting at a
    # time (OpenSpiel then gets a sequential game); None: no such option.
    turn_based_option: tuple[str, Any] | None = None
    # Its heuristic bot, "module:Class" in bots/ (bots/heuristic/); "": it has none.
    heuristic: str = ""
    # Its board on the dashboard: a script (and a style sheet) under dashboards/static/ that
    # registers a renderer with ArenaGames; "": the replay shows the observation's fields only.
    board_script: str = ""
    board_style: str = ""

    @property
    def info(self) -> GameInfo:
        """The game's static facts (id, name, player counts, options)."""
        return self.game.info

    @property
    def id(self) -> str:
        return self.game.info.id

    @property
    def name(self) -> str:
        return self.game.info.name
