"""A ruleset's rating history: points (`rating_point`: a position, with the id of the newest match
then) and entrants' ratings at them (`rating_history` rows), written a point at a time, read as charts.

A point is a position in rating order (the number of rated matches - 1). A full rerate stores every
entrant's rating there; a live update only the entrants whose rating changed since the last write
(arena.rating.LiveRate: beyond the chart's precision), so an update after a few matches writes a
few rows however large the field. An entrant's value at a point where it has no row is its value
at its last row before it: `carried` fills the charts so, and they show the same curves as when
every point held every entrant.

An entrant's newest value is its rating (`rating.elo`), written at the point that was the newest
then (`rating.point_id`), and it is not also a row: a live update writes each changed rating once.
When a rating is written again at a newer point, its value at the older one becomes that point's
row first (`keep_older_values`: only the entrants written, so a live update writes at most as many
rows as before, and no point is written whole at once when a newer one follows). So the newest
point has no rows, and an older one has a row for each entrant written at it since written again
(migration 0025: a live update's second write, the history's upsert, was a third of its time at
1M matches / 10k bots on PostgreSQL, BENCHMARKS.md).

Thinning the history (arena.rating.history_drops) removes points; an entrant's value at a dropped
point that is its last before the next kept point (its row there, or its rating written there)
moves on to that point, so the value every chart shows at each kept point stays as it was (onto
the newest point, which has no rows, by marking its rating as written there). The newest point,
when it goes, is the one the new point replaces: it moves on to the new position itself (one row of
`rating_point`, migration 0022).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from sqlalchemy import String, any_, bindparam, delete, func, insert, select, text, update
from sqlalchemy.dialects import postgresql
from sqlmodel import Session

from arena.store.bulk import execute_many
from arena.store.tables import RatingHistoryRow, RatingPointRow, RatingRow

# an entrant's row at a dropped point moves on to the next kept one unless it has a value there (a
# row, or its rating written at it)
CARRY = text("""
    UPDATE rating_history SET point_id = :kept
    WHERE point_id = :dropped AND NOT EXISTS (
        SELECT 1 FROM rating_history AS h WHERE h.point_id = :kept AND h.entrant = rating_history.entrant
    ) AND NOT EXISTS (
        SELECT 1 FROM rating AS r
        WHERE r.ruleset = :ruleset AND r.entrant = rating_history.entrant AND r.point_id = :kept)
""")
# PostgreSQL's: the kept point's entrants read once (a hashed subplan), not probed per row. As the
# correlated NOT EXISTS, when both points were newer than its statistics (a live update's newest
# ones), the planner took each for one row and compared every row of one with every row of the
# other: 50 million comparisons at 10,000 entrants, 3.5-6.6 s instead of 6 ms (BENCHMARKS.md,
# "PostgreSQL at 1M / 10k"). `entrant` is never NULL, so NOT IN means NOT EXISTS. SQLite keeps
# CARRY: its probe is one key lookup.
CARRY_HASHED = text("""
    UPDATE rating_history SET point_id = :kept
    WHERE point_id = :dropped
      AND entrant NOT IN (SELECT h.entrant FROM rating_history AS h WHERE h.point_id = :kept)
      AND entrant NOT IN (SELECT r.entrant FROM rating AS r WHERE r.ruleset = :ruleset AND r.point_id = :kept)
""")
# onto the newest point, which has no rows: the entrant's rating (that value) is marked as written there
CARRY_TO_NEWEST = text("""
    UPDATE rating SET point_id = :kept
    WHERE ruleset = :ruleset AND (point_id IS NULL OR point_id != :kept)
      AND entrant IN (SELECT h.entrant FROM rating_history AS h WHERE h.point_id = :dropped)
""")
# ratings written at a dropped point: their value is their last before the next kept point
MOVE_RATINGS = text("UPDATE rating SET point_id = :kept WHERE ruleset = :ruleset AND point_id = :dropped")
POINTS = RatingPointRow.__table__  # type: ignore[attr-defined]
ROWS = RatingHistoryRow.__table__  # type: ignore[attr-defined]
RATINGS = RatingRow.__table__  # type: ignore[attr-defined]


def history_points(session: Session, ruleset: str) -> list[tuple[int, int]]:
    """(position, match id) of every stored point of a ruleset, in order."""
    return [(position, match_id) for _, position, match_id in _points(session, ruleset)]


def _points(session: Session, ruleset: str) -> list[tuple[int, int, int]]:
    """(point id, position, match id) of every stored point of a ruleset, in order."""
    query = (select(POINTS.c.id, POINTS.c.position, POINTS.c.match_id)
             .where(POINTS.c.ruleset == ruleset).order_by(POINTS.c.position))
    return [(int(i), int(p), int(m)) for i, p, m in session.execute(query)]


def entrant_points(session: Session, ruleset: str, entrants: list[str]) -> dict[str, list[tuple[int, float]]]:
    """Each of `entrants`' stored (position, elo) points of a ruleset, in order: its rows (by
    ix_rating_history_entrant: the entrants' rows, each point's position by its key), then its
    rating at the point it was written at."""
    query = (select(ROWS.c.entrant, POINTS.c.position, ROWS.c.elo)
             .join(POINTS, POINTS.c.id == ROWS.c.point_id)
             .where(POINTS.c.ruleset == ruleset, ROWS.c.entrant.in_(entrants))
             .order_by(ROWS.c.entrant, POINTS.c.position))
    points: dict[str, list[tuple[int, float]]] = {name: [] for name in entrants}
    for entrant, position, elo in session.execute(query):
        points[entrant].append((int(position), float(elo)))
    ratings = (select(RATINGS.c.entrant, POINTS.c.position, RATINGS.c.elo)
               .join(POINTS, POINTS.c.id == RATINGS.c.point_id)
               .where(RATINGS.c.ruleset == ruleset, RATINGS.c.entrant.in_(entrants)))
    for entrant, position, elo in session.execute(ratings):  # after its rows: they are older
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


def replace_history(session: Session, ruleset: str,
                    history: Iterable[tuple[int, int, str, float]]) -> tuple[int, set[str]] | None:
    """Replace a ruleset's whole history with the rows of `history` (position, match id, entrant,
    elo) but those at its newest point, whose values are the ratings': that point's id and the
    entrants with a row there (their ratings are written at it), or None for no history."""
    stale = [point_id for point_id, _, _ in _points(session, ruleset)]
    for start in range(0, len(stale), 500):
        session.execute(delete(ROWS).where(ROWS.c.point_id.in_(stale[start:start + 500])))
    session.execute(delete(POINTS).where(POINTS.c.ruleset == ruleset))
    history = list(history)
    matches = {position: match_id for position, match_id, _, _ in reversed(history)}  # each point's first
    if not matches:
        return None
    session.execute(insert(POINTS), [dict(ruleset=ruleset, position=p, match_id=m) for p, m in sorted(matches.items())])
    ids = {position: point_id for point_id, position, _ in _points(session, ruleset)}
    newest = max(matches)
    rows = [dict(point_id=ids[position], entrant=entrant, elo=elo)
            for position, _, entrant, elo in history if position != newest]
    execute_many(session, ROWS, insert(ROWS), rows)
    return ids[newest], {entrant for position, _, entrant, _ in history if position == newest}


def write_point(session: Session, ruleset: str, point: tuple[int, int], drop: Iterable[int]) -> int:
    """Make `point` (position, match id) the ruleset's newest point (the newest so far moves on to
    it when its position is in `drop`), then thin out the points at the positions in `drop`.
    Returns the point's id: the ratings written now are written at it (`keep_older_values`)."""
    position, match_id = point
    dropped = set(drop)
    stored = _points(session, ruleset)
    if stored and stored[-1][1] in dropped:  # the newest goes: it becomes the new point
        point_id, was, _ = stored[-1]
        dropped.discard(was)
        session.execute(update(POINTS).where(POINTS.c.id == point_id).values(position=position, match_id=match_id))
    else:
        point_id = session.execute(insert(POINTS).values(ruleset=ruleset, position=position, match_id=match_id)
                                   .returning(POINTS.c.id)).scalar_one()
    _thin(session, ruleset, sorted(dropped), point_id)
    return int(point_id)


def keep_older_values(session: Session, ruleset: str, point_id: int, entrants: list[str] | None) -> None:
    """Before the ratings of `entrants` (None: every entrant of the ruleset) are written at point
    `point_id`: those written at an older point become that point's rows, their values there."""
    source = select(RATINGS.c.point_id, RATINGS.c.entrant, RATINGS.c.elo).where(
        RATINGS.c.ruleset == ruleset, RATINGS.c.point_id.is_not(None), RATINGS.c.point_id != point_id)
    if entrants is not None:  # the names as one value (an array; a JSON list): a parameter each cost ~20 ms at 3,300
        if session.get_bind().dialect.name == "postgresql":
            names = bindparam("names", entrants, type_=postgresql.ARRAY(String))
            source = source.where(RATINGS.c.entrant == any_(names))
        else:
            listed = func.json_each(json.dumps(entrants)).table_valued("value")
            source = source.where(RATINGS.c.entrant.in_(select(listed.c.value)))
    session.execute(insert(ROWS).from_select(["point_id", "entrant", "elo"], source))


def _thin(session: Session, ruleset: str, dropped: list[int], newest: int) -> None:
    """Remove the points at the positions `dropped`, newest first, each value that is its entrant's
    last before the next kept point moved on to it (a rating written at the dropped point, or a row;
    onto the `newest` point, which has no rows, the entrant's rating marked as written there)."""
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
            moved = {"ruleset": ruleset, "kept": ids[after[0]], "dropped": ids[position]}
            session.execute(MOVE_RATINGS, moved)
            session.execute(CARRY_TO_NEWEST if moved["kept"] == newest else carry, moved)
        session.execute(delete(ROWS).where(ROWS.c.point_id == ids[position]))
        session.execute(delete(POINTS).where(POINTS.c.id == ids[position]))
