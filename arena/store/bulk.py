"""Many rows in one statement through the database driver's own executemany.

SQLAlchemy's executemany turns every row's dict into the driver's parameters one by one (its
compiled-parameter machinery, and the ORM's bulk path for a mapped class): at 10k bots a batch of
100 Riga matches writes ~1,500 rows (seats, entrant and pair aggregates), and that per-row work
cost the writer about as much as SQLite's own inserts (profile: BENCHMARKS.md, "Fewer bytes and
faster writes"). Here the statement is compiled once per call for the dialect, each column's bind
processor (e.g. SQLite's DATETIME text) looked up once, and the rows handed to the driver as
tuples (qmark: SQLite): the same SQL and the same stored values. On PostgreSQL even the driver's
executemany costs per row (psycopg sends each row as a statement of the pipeline, ~20 µs of its
Python each), so there the rows go as one array per column in a single statement:
`INSERT ... SELECT * FROM unnest(%(a)b::TYPE[], ...)`, each column cast to its own type. The
arrays go in binary (`%b`): as text, psycopg quoted every element through a regular expression,
~20 ms of a live update's 3,300 ratings at 10k bots (BENCHMARKS.md). An INSERT with RETURNING
(the new matches' ids) goes the same way there; elsewhere through SQLAlchemy's own executemany,
which renders it as multi-row VALUES (on PostgreSQL one statement of 2,000 parameters per 100
matches, which psycopg parsed, ~3 ms of every batch of 100, and dumped one by one). A column with
one value in every row (a live update's ruleset, game and time in each of its 3,300 ratings) is
sent once and repeated by the server.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from sqlalchemy import Table
from sqlalchemy.sql.dml import Insert
from sqlmodel import Session

from arena.store.pg_arrays import packed

ROWS = "arena rows"  # the statement's parameter that holds its row count (no column has a space)


def execute_many(session: Session, table: Table, statement: Insert,
                 rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """`statement` (an INSERT into `table`, perhaps an upsert) once per row of `rows` (all with the
    same keys: the columns inserted), in the session's transaction; the rows its RETURNING clause
    returns (in no particular order), if it has one."""
    if not rows:
        return []
    connection = session.connection()
    dialect = connection.dialect
    returning = bool(statement.returning_column_descriptions)
    if returning and dialect.name != "postgresql":  # the driver's executemany returns no rows
        return [tuple(row) for row in session.execute(statement, rows)]
    names = list(rows[0])
    compiled = statement.compile(dialect=dialect, column_keys=names, for_executemany=True)
    processors = {name: table.c[name].type._cached_bind_processor(dialect) for name in names}
    if dialect.name == "postgresql":
        columns = {name: [row[name] for row in rows] for name in names}
        for name, process in processors.items():
            if process is not None:
                columns[name] = [process(value) for value in columns[name]]
        same = {name for name, values in columns.items() if values.count(values[0]) == len(rows)}
        parameters = {name: values[0] if name in same else packed(values) for name, values in columns.items()}
        parameters[ROWS] = len(rows)
        result = connection.exec_driver_sql(_from_arrays(str(compiled), table, dialect, same), parameters)
        return [tuple(row) for row in result] if returning else []
    if compiled.positional:
        order = list(compiled.positiontup or ())
        values = list(map(itemgetter(*order), rows)) if len(order) > 1 else [(row[order[0]],) for row in rows]
        processed = [(place, processors[name]) for place, name in enumerate(order) if processors[name] is not None]
        if processed:  # only the columns with a bind processor (SQLite: datetimes, floats) go through one
            values = _processed(values, processed)
        connection.exec_driver_sql(str(compiled), values)
    else:  # another driver: SQLAlchemy's own executemany
        session.execute(statement, rows)
    return []


def _processed(rows: list[tuple[Any, ...]], processed: list[tuple[int, Any]]) -> list[tuple[Any, ...]]:
    """`rows` with the values at the given places put through their bind processors, a column at a
    time (map and zip: no Python call per row but the processor's own)."""
    columns = list(zip(*rows, strict=True))
    for place, process in processed:
        columns[place] = tuple(map(process, columns[place]))
    return list(zip(*columns, strict=True))


def _from_arrays(sql: str, table: Table, dialect: Any, same: set[str]) -> str:
    """The INSERT's `VALUES (...)` replaced by the rows of one array per column (PostgreSQL), in the
    order of its column list; a column in `same` (one value in every row) sent once and repeated
    by the server (`array_fill`)."""
    names = [name.strip('"') for name in sql[sql.index("(") + 1:sql.index(")")].split(", ")]
    start = sql.index(" VALUES (")
    depth, end = 0, start + len(" VALUES ")
    while True:  # to the parenthesis that closes VALUES (its casts have none, but stay safe)
        depth += {"(": 1, ")": -1}.get(sql[end], 0)
        if depth == 0:
            break
        end += 1
    types = {name: table.c[name].type.compile(dialect=dialect) for name in names}
    arrays = ", ".join(f"array_fill(%({name})s::{types[name]}, ARRAY[%({ROWS})s::INTEGER])" if name in same
                       else f"%({name})b::{types[name]}[]" for name in names)
    return f"{sql[:start]} SELECT * FROM unnest({arrays}){sql[end + 1:]}"
