"""Riga's phases (what happens at a node) and seasons, with their observation names.

Their own module so that the observation code can use them without importing the state machine.
"""

from __future__ import annotations

from typing import Final

from engine.core import NodeKind

# phases: what happens at this node
# Final: the compiled engine inlines each as a constant instead of reading a global.
START: Final = 0
FLIP: Final = 1
DRAW_TILE: Final = 2
SETUP_GOODS: Final = 3
SETUP_BUILDINGS: Final = 4
KEEP: Final = 5
SPRING_ROWS: Final = 6
SPRING_DISPLAY: Final = 7
TAKE: Final = 8
EXTRA: Final = 9
BUILD: Final = 10
DISCARD: Final = 11
OVER: Final = 12
CHANCE_PHASES: Final = frozenset(
    {START, FLIP, DRAW_TILE, SETUP_GOODS, SETUP_BUILDINGS, SPRING_ROWS, SPRING_DISPLAY, EXTRA}
)
GOODS_DRAW_PHASES: Final = frozenset({SETUP_GOODS, SPRING_ROWS, EXTRA})
PHASE_NAMES = (
    "start_player", "tile_flip", "tile_draw", "setup_goods", "setup_buildings", "keep_start_building",
    "spring_rows", "spring_display", "take", "extra_draw", "build", "discard", "game_over",
)  # fmt: skip
SETUP: Final = 0
SPRING: Final = 1
SUMMER: Final = 2
AUTUMN: Final = 3
WINTER: Final = 4
GAME_OVER: Final = 5
SEASON_NAMES = ("setup", "spring", "summer", "autumn", "winter", "game_over")
KIND_OF_PHASE: Final = tuple(
    NodeKind.TERMINAL if phase == OVER else NodeKind.CHANCE if phase in CHANCE_PHASES else NodeKind.DECISION
    for phase in range(len(PHASE_NAMES))
)
