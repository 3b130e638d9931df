"""Scoring arithmetic of Lost Cities: Rivals (rules §4): an expedition's points."""

from __future__ import annotations

from engine.lost_cities_rivals.components import footprints

BONUS_MIN_NUMBERS = 4
BONUS_POINTS = 8


def expedition_score(wagers: int, numbers: tuple[int, ...]) -> int:
    """(1 + wagers) x footprints, plus 8 for at least four number cards (never multiplied)."""
    score = (1 + wagers) * sum(footprints(n) for n in numbers)
    return score + (BONUS_POINTS if len(numbers) >= BONUS_MIN_NUMBERS else 0)
