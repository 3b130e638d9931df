"""Head-to-head records: how two entrants did at the finished tables of a ruleset they shared, from
the pair aggregates (pair_stats, kept as matches are written; its entrants are numbers, named by
the `entrant` table: migration 0021)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import aliased
from sqlmodel import Session, col

from arena.store.database import Store
from arena.store.tables import EntrantRow, PairStatsRow, select_columns


@dataclass(frozen=True)
class PairRecord:
    """Two entrants' results at the tables they shared: who finished ahead of whom."""

    a: str
    b: str
    matches: int
    a_ahead: int
    b_ahead: int
    ties: int


def pair_records(store: Store, ruleset: str, pairs: list[tuple[str, str]] | None = None,
                 ) -> dict[tuple[str, str], PairRecord]:
    """Pairs of entrants that shared a finished table of a ruleset, keyed (a, b) with a < b: every
    pair, or those of `pairs` (each in either order) that met.

    A k-player table counts once for each pair seated at it; the one ranked better is ahead.
    """
    first, second = aliased(EntrantRow), aliased(EntrantRow)
    query = (select_columns(first.name, second.name, PairStatsRow.matches, PairStatsRow.a_ahead,
                            PairStatsRow.b_ahead, PairStatsRow.ties)
             .join(first, col(first.id) == PairStatsRow.a).join(second, col(second.id) == PairStatsRow.b)
             .where(col(PairStatsRow.ruleset) == ruleset, col(PairStatsRow.matches) > 0))
    found: list[Any] = []
    with Session(store.engine) as session:
        if pairs is None:
            found = list(session.exec(query))
        wanted = sorted({(min(a, b), max(a, b)) for a, b in pairs or []})
        for start in range(0, len(wanted), 400):
            found += _wanted_pairs(session, ruleset, wanted[start:start + 400])
    return {(a, b): PairRecord(a, b, *counts) for a, b, *counts in sorted(found)}


def _wanted_pairs(session: Session, ruleset: str, wanted: list[tuple[str, str]]) -> list[Any]:
    """A key lookup of each wanted pair (its names' numbers first), joined to them as a list of
    rows, in the driver's own SQL: an IN of row values makes SQLite read every pair of the ruleset,
    and binding a thousand parameters through SQLAlchemy costs more than the lookups take. SQLite
    gets them as VALUES; PostgreSQL as two arrays, since psycopg parses a statement longer than 4 kB
    anew at each call (its cache's limit): a VALUES of 400 pairs cost it ~10 ms a leaderboard page."""
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        mark, rows = "%s", "SELECT * FROM unnest(%s::VARCHAR[], %s::VARCHAR[])"
        names: tuple[Any, ...] = ([a for a, _ in wanted], [b for _, b in wanted])
    else:
        mark = "?" if connection.dialect.paramstyle == "qmark" else "%s"
        rows = "VALUES " + ", ".join([f"({mark}, {mark})"] * len(wanted))
        names = tuple(name for pair in wanted for name in pair)
    sql = (f"WITH wanted (a, b) AS ({rows}) "
           "SELECT wanted.a, wanted.b, p.matches, p.a_ahead, p.b_ahead, p.ties FROM wanted "
           "JOIN entrant AS ea ON ea.name = wanted.a JOIN entrant AS eb ON eb.name = wanted.b "
           f"JOIN pair_stats AS p ON p.ruleset = {mark} AND p.a = ea.id AND p.b = eb.id WHERE p.matches > 0")
    return list(connection.exec_driver_sql(sql, (*names, ruleset)))


def head_to_head(store: Store, ruleset: str, a: str, b: str) -> PairRecord:
    """`a` against `b` at the finished tables of a ruleset where both sat (zeros when none)."""
    first, second = sorted((a, b))
    found = pair_records(store, ruleset, [(a, b)]).get((first, second))
    if found is None:
        return PairRecord(a, b, 0, 0, 0, 0)
    if first == a:
        return found
    return PairRecord(a, b, found.matches, found.b_ahead, found.a_ahead, found.ties)
