"""Ratings as plain JSON and text, the same for the `arena` command and the dashboards.

`arena leaderboard --json`, `arena tournament show --json` and the dashboard's pages and API write
a rated bot the same way: an unknown end of its 95 % interval is null in JSON and '?' in text.
"""

from __future__ import annotations

import math
from typing import Any

from arena.rating import rate_tournament
from arena.store import LeaderboardRow, Store, TournamentInfo


def row_json(row: LeaderboardRow) -> dict[str, Any]:
    """A leaderboard row as plain JSON (an unknown end of the interval is null)."""
    return {
        "place": row.place, "bot": row.entrant, "game": row.game_id, "ruleset": row.ruleset,
        "elo": row.elo, "low95": finite(row.low), "high95": finite(row.high),
        "games": row.games, "wins": row.wins, "win_rate": round(row.win_rate, 4),
        "strikes": row.strikes, "forfeits": row.forfeits, "provisional": row.provisional,
        "suspended": row.suspended,  # why the ladder stopped seating this version, or null
    }


def tournament_standings(store: Store, info: TournamentInfo) -> list[dict[str, Any]]:
    """Elo over this tournament's matches only (the leaderboard covers every stored match)."""
    return [
        {"place": i + 1, "bot": e.entrant, "elo": e.elo, "low95": finite(e.low), "high95": finite(e.high),
         "games": e.games, "wins": e.wins, "strikes": e.strikes, "forfeits": e.forfeits}
        for i, e in enumerate(rate_tournament(store, info.id, info.ruleset))
    ]


def finite(value: float) -> float | None:
    # unrounded, like the Elo: a page or table printing a whole number from a value rounded to
    # one decimal first (1867.46 -> 1867.5) would show 1868 where the store's rating is 1867
    return None if math.isinf(value) or math.isnan(value) else value


def interval_end(value: float | None) -> str:
    """One end of a 95 % interval as a whole number; an unknown end (None or infinite) is '?'."""
    return "?" if value is None or math.isinf(value) else f"{value:.0f}"
