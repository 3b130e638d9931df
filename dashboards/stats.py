"""The small statistics the dashboard shows beside the ratings."""

from __future__ import annotations

import math


def los(ahead: float, behind: float) -> float | None:
    """Likelihood of superiority: P(A stronger than B) from A finishing ahead `ahead` times and
    behind `behind` times (ties carry no information), by the normal approximation
    0.5 * (1 + erf((W - L) / sqrt(2 (W + L)))). None when they never finished apart.
    """
    if ahead + behind == 0:
        return None
    return 0.5 * (1 + math.erf((ahead - behind) / math.sqrt(2 * (ahead + behind))))


def downsample(points: list[tuple[int, float]], limit: int = 400) -> list[tuple[int, float]]:
    """At most `limit` points spread evenly over the series, always keeping the last one."""
    if len(points) <= limit:
        return points
    step = len(points) / (limit - 1)
    picked = [points[int(i * step)] for i in range(limit - 1)]
    return [*picked, points[-1]]
