"""Schema migrations with Alembic: every database is brought to the newest revision when opened.

`upgrade` runs the revisions in versions/ on one database inside a single transaction that holds
a lock for the whole upgrade (SQLite: BEGIN EXCLUSIVE; PostgreSQL: an advisory lock), so several
processes opening the same new database at once create it once: the others wait, then find it
up to date. Opening a database that is already at HEAD reads one row and imports no Alembic
(importing it costs about 0.2 s, which the dashboard and every worker would feel).

How to add a revision (a change to arena/store/tables.py):
  1. `.venv/bin/alembic -c arena/store/migrations/alembic.ini revision --rev-id 0002 -m "add x"`
     writes versions/0002_add_x.py with `down_revision` = the current head; fill in upgrade()
     and downgrade() with `op.add_column(...)`, `op.create_table(...)` and so on, written out in
     full (never imported from tables.py: a revision is frozen once released). On SQLite, change
     or drop a column inside `with op.batch_alter_table("table") as batch:`.
  2. Set HEAD below to the new revision id.
  3. tests/arena/store/test_migrations.py checks that a migrated database matches tables.py exactly,
     that HEAD is Alembic's head, and that an existing database is upgraded in place.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

from arena.errors import UsageError

HEAD = "0025"  # the newest revision in versions/ (a test checks it is Alembic's head)
SCRIPTS = Path(__file__).parent
# any fixed 64-bit number: the key of the PostgreSQL advisory lock held during an upgrade
PG_UPGRADE_LOCK = 0x4152454E41  # "ARENA"


def revision(engine: Engine) -> str | None:
    """The revision a database is at; None for a new one or one made before migrations."""
    try:
        with engine.connect() as connection:
            return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except DBAPIError as error:
        if _no_version_table(error):
            return None
        raise


def _no_version_table(error: DBAPIError) -> bool:
    message = str(error.orig).lower()
    return "no such table" in message or ("alembic_version" in message and "does not exist" in message)


def upgrade(engine: Engine) -> None:
    """Run every revision the database lacks, one process at a time."""
    from alembic import command
    from alembic.config import Config
    from alembic.util import CommandError

    locking = _locking_engine(engine)
    try:
        with locking.begin() as connection:
            _lock(connection)
            config = Config()
            config.set_main_option("script_location", str(SCRIPTS))
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
    except CommandError as error:  # e.g. a revision from a newer arena than this one
        database = engine.url.render_as_string(hide_password=True)
        raise UsageError(f"cannot upgrade the schema of {database!r} ({error}); "
                         "was it made by a newer arena?") from None
    finally:
        if locking is not engine:
            locking.dispose()


def _locking_engine(engine: Engine) -> Engine:
    """An engine whose transactions are real: pysqlite otherwise runs DDL outside any transaction
    (the SQLAlchemy docs' recipe), and one whose BEGIN takes the write lock at once."""
    if engine.dialect.name != "sqlite":
        return engine
    locking = create_engine(engine.url, poolclass=NullPool, connect_args={"timeout": 60.0})  # as connect.py's
    event.listen(locking, "connect", _autocommit_driver)
    event.listen(locking, "begin", lambda connection: connection.exec_driver_sql("BEGIN EXCLUSIVE"))
    return locking


def _autocommit_driver(dbapi_connection: object, _record: object) -> None:
    dbapi_connection.isolation_level = None  # type: ignore[attr-defined]


def _lock(connection: Connection) -> None:
    if connection.dialect.name == "postgresql":
        # released when the transaction ends
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_UPGRADE_LOCK})
