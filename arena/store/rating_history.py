"""A ruleset's rating history: points (`rating_point`: a position, with the id of the newest match
then) and entrants' ratings at them (`rating_history` rows), written a point at a time, read as charts.

A point is a position in rating order (the number of rated matches - 1). A full rerate stores every
entrant's rating there; a live update only the entrants whose rating changed since the last write
(arena.rating.LiveRate: beyond the chart's precision), so an update after a few matches writes a
few rows however large the field. An entrant's value at a point where it has no row is its value
at its last row before it: `carried` fills the charts so, and they show the same curves as when
every point held every entrant.

Thinning the history (arena.rating.history_drops) removes points; an entrant's row at a dropped
point that is its last before the next kept point moves on to that point, so the value every chart
shows at each kept point stays as it was. The newest point, when it goes, is the one the new point
replaces: it moves on to the new position itself (one row of `rating_point`), its entrants' rows
staying where they are but for those the new point rewrites (migration 0022: moving its rows cost
a live update at 10k bots 52-91 ms).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import delete, insert, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.dml import Insert
from sqlmodel import Session

from arena.store.bulk import execute_many
from arena.store.tables import RatingHistoryRow, RatingPointRow

# an entrant's row at a dropped point moves on to the next kept one unless it has a row there
CARRY = text("""
    UPDATE rating_history SET point_id = :kept
    WHERE point_id = :dropped AND NOT EXISTS (
        SELECT 1 FROM rating_history AS h WHERE h.point_id = :kept AND h.entrant = rating_history.entrant)
""")
# PostgreSQL's: the kept point's entrants read once (a hashed subplan), not probed per row. As the
# correlated NOT EXISTS, when both points were newer than its statistics (a live update's newest
# ones), the planner took each for one row and compared every row of one with every row of the
# other: 50 million comparisons at 10,000 entrants, 3.5-6.6 s instead of 6 ms (BENCHMARKS.md,
# "PostgreSQL at 1M / 10k"). `entrant` is never NULL, so NOT IN means NOT EXISTS. SQLite keeps
# CARRY: its probe is one key lookup.
CARRY_HASHED = text("""
    UPDATE rating_history SET point_id = :kept
    WHERE point_id = :dropped AND entrant NOT IN (SELECT h.entrant FROM rating_history AS h WHERE h.point_id = :kept)
""")
POINTS = RatingPointRow.__table__  # type: ignore[attr-defined]
ROWS = RatingHistoryRow.__table__  # type: ignore[attr-defined]


def history_points(session: Session, ruleset: str) -> list[tuple[int, int]]:
    """(position, match id) of every stored point of a ruleset, in order."""
    return [(position, match_id) for _, position, match_id in _points(session, ruleset)]


def _points(session: Session, ruleset: str) -> list[tuple[int, int, int]]:
    """(point id, position, match id) of every stored point of a ruleset, in order."""
    query = (select(POINTS.c.id, POINTS.c.position, POINTS.c.match_id)
             .where(POINTS.c.ruleset == ruleset).order_by(POINTS.c.position))
    return [(int(i), int(p), int(m)) for i, p, m in session.execute(query)]


def entrant_points(session: Session, ruleset: str, entrants: list[str]) -> dict[str, list[tuple[int, float]]]:
    """Each of `entrants`' stored (position, elo) points of a ruleset, in order (by
    ix_rating_history_entrant: the entrants' rows, each point's position by its key)."""
    query = (select(ROWS.c.entrant, POINTS.c.position, ROWS.c.elo)
             .join(POINTS, POINTS.c.id == ROWS.c.point_id)
             .where(POINTS.c.ruleset == ruleset, ROWS.c.entrant.in_(entrants))
             .order_by(ROWS.c.entrant, POINTS.c.position))
    points: dict[str, list[tuple[int, float]]] = {name: [] for name in entrants}
    for entrant, position, elo in session.execute(query):
        points[entrant].append((int(position), float(elo)))
    return points


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


def replace_history(session: Session, ruleset: str, history: Iterable[tuple[int, int, str, float]]) -> None:
    """Replace a ruleset's whole history with the rows of `history` (position, match id, entrant, elo)."""
    stale = [point_id for point_id, _, _ in _points(session, ruleset)]
    for start in range(0, len(stale), 500):
        session.execute(delete(ROWS).where(ROWS.c.point_id.in_(stale[start:start + 500])))
    session.execute(delete(POINTS).where(POINTS.c.ruleset == ruleset))
    history = list(history)
    matches = {position: match_id for position, match_id, _, _ in reversed(history)}  # each point's first
    if matches:
        points = [dict(ruleset=ruleset, position=p, match_id=m) for p, m in sorted(matches.items())]
        session.execute(insert(POINTS), points)
    ids = {position: point_id for point_id, position, _ in _points(session, ruleset)}
    rows = [dict(point_id=ids[position], entrant=entrant, elo=elo) for position, _, entrant, elo in history]
    execute_many(session, ROWS, insert(ROWS), rows)


def write_point(session: Session, ruleset: str, point: tuple[int, int], elos: dict[str, float], every: bool,
                drop: Iterable[int]) -> None:
    """Store `elos` (entrant -> elo) at `point` (position, match id), replacing those entrants' rows
    there (every row there when `every` and the point is the newest again: the whole field's), then
    thin out the points at the positions in `drop` (the newest among them becomes the new point)."""
    position, match_id = point
    dropped = set(drop)
    stored = _points(session, ruleset)
    if stored and stored[-1][1] in dropped:  # the newest goes: it becomes the new point
        point_id, was, _ = stored[-1]
        dropped.discard(was)
        session.execute(update(POINTS).where(POINTS.c.id == point_id).values(position=position, match_id=match_id))
        if every and was == position:  # the same point again (nothing new): the whole field replaces its rows
            session.execute(delete(ROWS).where(ROWS.c.point_id == point_id))
    else:
        point_id = session.execute(insert(POINTS).values(ruleset=ruleset, position=position, match_id=match_id)
                                   .returning(POINTS.c.id)).scalar_one()
    rows = [dict(point_id=point_id, entrant=e, elo=v) for e, v in elos.items()]
    execute_many(session, ROWS, _upsert(session), rows)  # through the driver: ~3,300 rows a live update at 10k bots
    _thin(session, ruleset, sorted(dropped))


def _upsert(session: Session) -> Insert:
    """An insert of rating_history rows that overwrites the elo of a row already at its key."""
    statement = (postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert)(ROWS)
    return statement.on_conflict_do_update(index_elements=["point_id", "entrant"], set_={"elo": statement.excluded.elo})


def _thin(session: Session, ruleset: str, dropped: list[int]) -> None:
    """Remove the points at the positions `dropped`, newest first, each row that is its entrant's
    last before the next kept point moved on to it."""
    if not dropped:
        return
    points = _points(session, ruleset)
    ids = {position: point_id for point_id, position, _ in points}
    gone = set(dropped)
    kept = [position for _, position, _ in points if position not in gone]
    carry = CARRY_HASHED if session.get_bind().dialect.name == "postgresql" else CARRY
    for position in sorted(gone & set(ids), reverse=True):
        after = [p for p in kept if p > position]
        if after:
            session.execute(carry, {"kept": ids[after[0]], "dropped": ids[position]})
        session.execute(delete(ROWS).where(ROWS.c.point_id == ids[position]))
        session.execute(delete(POINTS).where(POINTS.c.id == ids[position]))
