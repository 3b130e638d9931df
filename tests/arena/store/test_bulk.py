"""`execute_many` (the driver's executemany) stores exactly what SQLAlchemy's executemany stores,
datetimes with and without microseconds and NULLs included, on SQLite and PostgreSQL; an upsert
through it adds as the aggregates do."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Table, insert, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, select

from arena.store import Store
from arena.store.bulk import execute_many
from arena.store.tables import EntrantStatsRow
from tests.arena.postgres_server import postgres_server  # noqa: F401
from tests.arena.store.test_migrations import fresh_url  # noqa: F401
from tests.arena.store.test_store import new_tournament, result

ENTRANTS: Table = EntrantStatsRow.__table__  # type: ignore[attr-defined]


def entrant_rows(ruleset: str) -> list[dict[str, Any]]:
    return [dict(ruleset=ruleset, entrant=f"bot{n}", matches=n, strikes=0, forfeits=1, last_match_id=7,
                 last_played=datetime(2026, 12, 5, 1, 2, 3, 456789 * (n % 2), tzinfo=UTC), version_id=3,
                 rated_games=n, rated_win_shares=720720 * n, rated_strikes=0, rated_forfeits=0) for n in range(3)]


def stored(store: Store, ruleset: str) -> list[tuple[Any, ...]]:
    with store.engine.connect() as connection:  # as the database holds them, no type processing
        return [tuple(row)[1:] for row in connection.exec_driver_sql(
            f"SELECT * FROM entrant_stats WHERE ruleset = '{ruleset}' ORDER BY entrant")]


def test_rows_are_stored_as_sqlalchemy_stores_them(fresh_url: str) -> None:  # noqa: F811
    store = Store(fresh_url)
    with Session(store.engine) as session:
        session.execute(insert(ENTRANTS), entrant_rows("by_sqlalchemy"))
        execute_many(session, ENTRANTS, insert(ENTRANTS), entrant_rows("by_driver"))
        session.commit()
    assert stored(store, "by_driver") == stored(store, "by_sqlalchemy") and len(stored(store, "by_driver")) == 3
    with Session(store.engine) as session:
        back = {row.entrant: row.last_played
                for row in session.exec(select(EntrantStatsRow).where(EntrantStatsRow.ruleset == "by_driver"))}
    assert back["bot1"].replace(tzinfo=UTC) == entrant_rows("x")[1]["last_played"]


def test_an_upsert_adds_and_seats_keep_their_nulls(fresh_url: str) -> None:  # noqa: F811
    store = Store(fresh_url)
    with Session(store.engine) as session:
        dialect = session.get_bind().dialect.name
        statement = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(ENTRANTS)
        upsert = statement.on_conflict_do_update(index_elements=["ruleset", "entrant"],
                                                 set_={"matches": ENTRANTS.c.matches + statement.excluded.matches})
        execute_many(session, ENTRANTS, upsert, entrant_rows("r"))
        execute_many(session, ENTRANTS, upsert, entrant_rows("r"))
        session.commit()
    assert [row[1] for row in stored(store, "r")] == [0, 2, 4]
    store.record_matches([result(new_tournament(store), 0, ("a", "b"), (1, 2), aborted="worker died")])
    with store.engine.connect() as connection:
        seats = connection.execute(text("SELECT entrant, rank, score FROM seat ORDER BY seat")).all()
    assert [tuple(s) for s in seats] == [("a", None, 1.0), ("b", None, 0.0)]
