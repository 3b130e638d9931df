"""Riga's phases (what happens at a node) and seasons, with their observation names.

Their own module so that the observation code can use them without importing the state machine.
"""

from __future__ import annotations

from engine.core import NodeKind

# phases: what happens at this node
(START, FLIP, DRAW_TILE, SETUP_GOODS, SETUP_BUILDINGS, KEEP,
 SPRING_ROWS, SPRING_DISPLAY, TAKE, EXTRA, BUILD, DISCARD, OVER) = range(13)  # fmt: skip
CHANCE_PHASES = frozenset({START, FLIP, DRAW_TILE, SETUP_GOODS, SETUP_BUILDINGS, SPRING_ROWS, SPRING_DISPLAY, EXTRA})
GOODS_DRAW_PHASES = frozenset({SETUP_GOODS, SPRING_ROWS, EXTRA})
PHASE_NAMES = (
    "start_player", "tile_flip", "tile_draw", "setup_goods", "setup_buildings", "keep_start_building",
    "spring_rows", "spring_display", "take", "extra_draw", "build", "discard", "game_over",
)  # fmt: skip
SETUP, SPRING, SUMMER, AUTUMN, WINTER, GAME_OVER = range(6)
SEASON_NAMES = ("setup", "spring", "summer", "autumn", "winter", "game_over")
KIND_OF_PHASE = tuple(
    NodeKind.TERMINAL if phase == OVER else NodeKind.CHANCE if phase in CHANCE_PHASES else NodeKind.DECISION
    for phase in range(len(PHASE_NAMES))
)
