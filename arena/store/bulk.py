"""Many rows in one statement through the database driver's own executemany.

SQLAlchemy's executemany turns every row's dict into the driver's parameters one by one (its
compiled-parameter machinery, and the ORM's bulk path for a mapped class): at 10k bots a batch of
100 Riga matches writes ~1,500 rows (seats, entrant and pair aggregates), and that per-row work
cost the writer about as much as SQLite's own inserts (profile: BENCHMARKS.md, "Fewer bytes and
faster writes"). Here the statement is compiled once per call for the dialect, each column's bind
processor (e.g. SQLite's DATETIME text) looked up once, and the rows handed to the driver as
tuples (qmark: SQLite) or dicts (pyformat: psycopg): the same SQL and the same stored values.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table
from sqlalchemy.sql.dml import Insert
from sqlmodel import Session


def execute_many(session: Session, table: Table, statement: Insert, rows: list[dict[str, Any]]) -> None:
    """`statement` (an INSERT into `table`, perhaps an upsert) once per row of `rows` (all with the
    same keys: the columns inserted), in the session's transaction."""
    if not rows:
        return
    connection = session.connection()
    dialect = connection.dialect
    names = list(rows[0])
    compiled = statement.compile(dialect=dialect, column_keys=names)
    processors = {name: table.c[name].type._cached_bind_processor(dialect) for name in names}
    if compiled.positional:
        steps = [(name, processors[name]) for name in compiled.positiontup or ()]
        parameters: list[Any] = [tuple(row[name] if process is None else process(row[name]) for name, process in steps)
                                 for row in rows]
    else:
        active = {name: process for name, process in processors.items() if process is not None}
        parameters = [row if not active else {**row, **{n: p(row[n]) for n, p in active.items()}} for row in rows]
    connection.exec_driver_sql(str(compiled), parameters)
