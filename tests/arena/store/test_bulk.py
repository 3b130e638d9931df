"""`execute_many` (the driver's executemany) stores exactly what SQLAlchemy's executemany stores,
datetimes with and without microseconds and NULLs included, on SQLite and PostgreSQL; an upsert
through it adds as the aggregates do."""

from __future__ import annotations

import struct
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Table, insert, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, select

from arena.store import Store
from arena.store.bulk import execute_many
from arena.store.pg_arrays import Float8Array, Int8Array, packed
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


def test_returning_gives_each_new_rows_values(fresh_url: str) -> None:  # noqa: F811
    """An INSERT with RETURNING (the new matches' ids): its rows, one per row inserted, on both backends."""
    store = Store(fresh_url)
    rows = [dict(r, entrant=f"ret{n}") for n, r in enumerate(entrant_rows("returning") * 2)]
    with Session(store.engine) as session:
        returned = execute_many(session, ENTRANTS, insert(ENTRANTS).returning(ENTRANTS.c.entrant, ENTRANTS.c.matches),
                                rows)
        session.commit()
    assert sorted(returned) == sorted((row["entrant"], row["matches"]) for row in rows)


def test_numbers_packed_for_postgresql_come_back_exact(fresh_url: str) -> None:  # noqa: F811
    """Columns of ints and floats go to PostgreSQL packed by numpy (arena/store/pg_arrays.py): the
    extremes of 64 bits (a BIGINT column) and of 32 (an INTEGER one, cast from the packed int8 array),
    negative numbers are stored as given."""
    store = Store(fresh_url)
    rows = [dict(r, entrant=f"n{n}", last_match_id=(1 << 31) - 1 - n, rated_win_shares=value, matches=-n)
            for n, (r, value) in enumerate(zip(entrant_rows("x") * 2, [0, 1, -(1 << 63), (1 << 63) - 1, 7, -7],
                                               strict=True))]
    with Session(store.engine) as session:
        execute_many(session, ENTRANTS, insert(ENTRANTS), [dict(r, ruleset="packed") for r in rows])
        session.commit()
        found = session.exec(select(EntrantStatsRow.entrant, EntrantStatsRow.last_match_id,
                                    EntrantStatsRow.rated_win_shares, EntrantStatsRow.matches)
                             .where(EntrantStatsRow.ruleset == "packed").order_by(EntrantStatsRow.entrant)).all()
    assert [tuple(row) for row in found] == [(r["entrant"], r["last_match_id"], r["rated_win_shares"], r["matches"])
                                             for r in sorted(rows, key=lambda r: r["entrant"])]


def test_only_whole_columns_of_numbers_are_packed() -> None:
    assert isinstance(packed([1, 2, -3]), Int8Array)
    assert isinstance(packed([1.5, 2, -3.0]), Float8Array)
    for left_to_psycopg in ([], [1, None], [True, False], [1, 1 << 63], [-(1 << 63) - 1], ["a"], [1, "a"]):
        assert packed(left_to_psycopg) is left_to_psycopg


def test_a_packed_array_is_postgresqls_binary_array() -> None:
    data = packed([1, -2]).data
    assert data[:20] == struct.pack(">iiiii", 1, 0, 20, 2, 1)  # one dimension, no NULLs, int8, 2 long, from 1
    assert data[20:] == struct.pack(">iqiq", 8, 1, 8, -2)
    assert packed([0.5]).data[20:] == struct.pack(">id", 8, 0.5)
