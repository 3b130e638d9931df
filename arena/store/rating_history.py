"""A ruleset's rating history (`rating_history` rows): written a point at a time, read as charts.

A point is a position in rating order (the number of rated matches - 1, with the id of the newest
match then). A full rerate stores every entrant's rating there; a live update only the entrants
whose rating changed since the last write (arena.rating.LiveRate: beyond the chart's precision),
so an update after a few matches writes a few rows however large the field. An entrant's value at
a point where it has no row is its value at its last row before it: `carried` fills the charts so,
and they show the same curves as when every point held every entrant.

Thinning the history (arena.rating.history_drops) removes positions; an entrant's row at a dropped
position that is its last before the next kept position moves on to that position, so the value
every chart shows at each kept position stays as it was.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import delete, insert, text
from sqlmodel import Session, col

from arena.store.bulk import execute_many
from arena.store.tables import RatingHistoryRow

# the distinct positions of a ruleset in one index seek each (a loose index scan on
# ix_rating_history_position), with the match id of each: a ruleset keeps at most a few hundred
# positions, but its rows number positions x entrants
POSITIONS = text("""
    WITH RECURSIVE at(position) AS (
        SELECT MIN(position) FROM rating_history WHERE ruleset = :ruleset
        UNION ALL
        SELECT (SELECT MIN(h.position) FROM rating_history AS h WHERE h.ruleset = :ruleset AND h.position > at.position)
        FROM at WHERE at.position IS NOT NULL
    )
    SELECT at.position, (SELECT h.match_id FROM rating_history AS h
                         WHERE h.ruleset = :ruleset AND h.position = at.position LIMIT 1)
    FROM at WHERE at.position IS NOT NULL ORDER BY at.position
""")
# an entrant's row at a dropped position moves on to the next kept one unless it has a row there
CARRY = text("""
    UPDATE rating_history SET position = :kept, match_id = :match_id
    WHERE ruleset = :ruleset AND position = :dropped AND NOT EXISTS (
        SELECT 1 FROM rating_history AS h
        WHERE h.ruleset = :ruleset AND h.entrant = rating_history.entrant AND h.position = :kept)
""")
# PostgreSQL's: the kept point's entrants read once (a hashed subplan), not probed per row. As the
# correlated NOT EXISTS, when both points were newer than its statistics (a live update's newest
# ones), the planner took each for one row and compared every row of one with every row of the
# other: 50 million comparisons at 10,000 entrants, 3.5-6.6 s instead of 6 ms (BENCHMARKS.md,
# "PostgreSQL at 1M / 10k"). `entrant` is never NULL, so NOT IN means NOT EXISTS. SQLite keeps
# CARRY: it would read the ruleset's whole history for the list.
CARRY_HASHED = text("""
    UPDATE rating_history SET position = :kept, match_id = :match_id
    WHERE ruleset = :ruleset AND position = :dropped AND entrant NOT IN (
        SELECT h.entrant FROM rating_history AS h WHERE h.ruleset = :ruleset AND h.position = :kept)
""")


def history_points(session: Session, ruleset: str) -> list[tuple[int, int]]:
    """(position, match id) of every stored point of a ruleset, in order."""
    return [(int(p), int(m)) for p, m in session.execute(POSITIONS, {"ruleset": ruleset})]


def carried(points: Sequence[tuple[int, float]], positions: Sequence[int]) -> list[tuple[int, float]]:
    """An entrant's stored (position, elo) points, filled in at every position of the ruleset from
    its first on with its last value before it."""
    filled: list[tuple[int, float]] = []
    i, value = 0, None
    for position in positions:
        while i < len(points) and points[i][0] <= position:
            value = points[i][1]
            i += 1
        if value is not None:
            filled.append((position, value))
    return filled


def write_point(session: Session, ruleset: str, point: tuple[int, int], elos: dict[str, float], every: bool,
                drop: Iterable[int]) -> None:
    """Store `elos` (entrant -> elo) at `point`, replacing those entrants' rows there (every row
    there when `every`: the whole field's point), then thin out the positions in `drop`."""
    position, match_id = point
    table = RatingHistoryRow.__table__  # type: ignore[attr-defined]
    here = [col(RatingHistoryRow.ruleset) == ruleset, col(RatingHistoryRow.position) == position]
    if every:
        session.execute(delete(table).where(*here))
    else:
        names = sorted(elos)
        for start in range(0, len(names), 500):
            session.execute(delete(table).where(*here, col(RatingHistoryRow.entrant).in_(names[start:start + 500])))
    rows = [dict(ruleset=ruleset, position=position, match_id=match_id, entrant=e, elo=v) for e, v in elos.items()]
    execute_many(session, table, insert(table), rows)  # through the driver: ~3,300 rows a live update at 10k bots
    _thin(session, ruleset, sorted(set(drop) - {position}))


def _thin(session: Session, ruleset: str, dropped: list[int]) -> None:
    """Remove the points at `dropped`, newest first, each row that is its entrant's last before
    the next kept position moved on to it."""
    if not dropped:
        return
    points = dict(history_points(session, ruleset))
    kept = sorted(set(points) - set(dropped))
    table = RatingHistoryRow.__table__  # type: ignore[attr-defined]
    carry = CARRY_HASHED if session.get_bind().dialect.name == "postgresql" else CARRY
    for position in sorted(dropped, reverse=True):
        after = [p for p in kept if p > position]
        if after:
            session.execute(carry, {"kept": after[0], "match_id": points[after[0]], "ruleset": ruleset,
                                    "dropped": position})
        session.execute(delete(table).where(col(RatingHistoryRow.ruleset) == ruleset,
                                            col(RatingHistoryRow.position) == position))
