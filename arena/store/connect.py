"""Opening a database: the URLs that work, SQLite files, the schema brought to HEAD, and a one-line
UsageError for whatever stands in the way (never a traceback).

A new SQLite file is created readable and writable by its owner only (SQLite gives its -wal and
-shm files the database file's mode); an existing file keeps the mode its owner gave it. A reader
(`arena leaderboard`, `arena tournament list|show`, the dashboard) of a file it may not write, or
in a folder it may not write, opens it read-only and never migrates it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, InterfaceError, NoSuchModuleError, OperationalError

from arena.errors import StoreError, UsageError
from arena.store import migrations

DEFAULT_DB_URL = "sqlite:///arena.db"
URL_HELP = "use sqlite:///path.db or postgresql+psycopg://user@host:port/dbname"
BACKENDS = ("sqlite", "postgresql")


def default_db_url() -> str:
    """`$ARENA_DB` when set, else `arena.db` in the current folder."""
    return os.environ.get("ARENA_DB", DEFAULT_DB_URL)


def sqlite_file(url: str) -> Path | None:
    """The file of an SQLite URL (None for another database or an in-memory one)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return None
    if not parsed.drivername.startswith("sqlite") or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


def open_engine(url: str, *, reader: bool = False, create: bool = True) -> Engine:
    """Connect and bring the schema to HEAD; a UsageError that says what is wrong when that fails.

    `reader`: open an SQLite file this process may not write read-only (see the module docstring).
    `create=False`: a missing SQLite file is an error instead of a new, empty database.
    """
    path = sqlite_file(url)
    read_only = reader and path is not None and path.exists() and not _writable(path)
    if path is not None and not read_only:
        _prepare_file(path, url, create)
    engine = _engine(url, path if read_only else None)
    try:
        _migrate_when_unlocked(engine, path if read_only else None)
    except DBAPIError as error:
        engine.dispose()
        raise UsageError(explain(url, error)) from None
    return engine


def is_read_only(engine: Engine) -> bool:
    """Whether `open_engine` opened this database read-only."""
    return engine.dialect.name == "sqlite" and engine.url.query.get("mode") == "ro"


# What a database that is down, unreachable or full raises (reads: SQLAlchemy's errors as they come;
# writes: StoreError): a caller that outlives an outage (the ladder) waits and tries again on these.
OUTAGE_ERRORS: tuple[type[Exception], ...] = (StoreError, OperationalError, InterfaceError)


def explain(url: str, error: DBAPIError) -> str:
    """One line for a database error: what is wrong with which database."""
    message = str(error.orig).splitlines()[0] if error.orig is not None else str(error).splitlines()[0]
    where = sqlite_file(url) or _shown(url)
    if "file is not a database" in message:
        return (f"{where} is not an SQLite database ({message}); "
                "give --db the path of an arena database or of a new file")
    if "disk is full" in message or "no space left" in message.lower():
        return f"no space left for database {where} ({message})"
    if "readonly" in message or "read-only" in message:
        return f"database {where} is read-only ({message}); writing needs write access to the file and its folder"
    return f"cannot open database {_shown(url)!r} ({type(error.orig or error).__name__}: {message}); {URL_HELP}"


def _shown(url: str) -> str:
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def _writable(path: Path) -> bool:
    # SQLite writes a -wal and a -shm file beside the database, so the folder must be writable too
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def _prepare_file(path: Path, url: str, create: bool) -> None:
    if path.exists():
        if not _writable(path):
            what = "file" if not os.access(path, os.W_OK) else f"folder {path.parent} of the file"
            raise UsageError(f"database {path} is read-only (its {what} may not be written): this command writes; "
                             "`arena leaderboard`, `arena tournament list|show` and the dashboard can read it")
        return
    if not create:
        raise UsageError(f"no database at {path}; check --db or $ARENA_DB (it is {_shown(url)!r})")
    try:  # before SQLite creates it with the umask's mode (usually readable by everyone)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass  # another process created it first
    except OSError as error:
        raise UsageError(f"cannot create database {path} ({error.strerror}); {URL_HELP}") from None


# How long an SQLite connection waits for another process's lock (Python's default is 5 s): a
# first open waits for the process that is migrating the new file, which on a loaded machine can
# take longer than that ("database is locked" otherwise).
SQLITE_CONNECT = {"timeout": 60.0}


def _engine(url: str, read_only: Path | None) -> Engine:
    try:
        backend = make_url(url).get_backend_name()
        if backend not in BACKENDS:
            raise UsageError(f"cannot open database {_shown(url)!r}: {backend!r} databases are not supported; "
                             f"{URL_HELP}")
        if read_only is not None:
            return create_engine(_read_only_url(read_only), connect_args=SQLITE_CONNECT)
        # A server restarted under a running arena leaves its pooled connections dead: each is
        # tried before use (one round trip) and replaced, instead of failing the first call after.
        engine = (create_engine(url, connect_args=SQLITE_CONNECT) if backend == "sqlite"
                  else create_engine(url, pool_pre_ping=True))
    except (ArgumentError, NoSuchModuleError, ImportError, ValueError) as error:
        raise UsageError(
            f"cannot open database {_shown(url)!r} ({type(error).__name__}: {str(error).splitlines()[0]}); {URL_HELP}"
        ) from None
    if backend == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _read_only_url(path: Path) -> str:
    uri = f"sqlite:///file:{quote(str(path.resolve()))}?mode=ro&uri=true"
    shm = path.with_name(path.name + "-shm")
    if not os.access(path.parent, os.W_OK) and not shm.exists():
        # a WAL database needs its -shm file, which a read-only folder cannot hold; with no -shm
        # there is no writer either (the last one to close removes it), so the file cannot change
        uri += "&immutable=1"
    return uri


def _migrate_when_unlocked(engine: Engine, read_only: Path | None) -> None:
    """Migrate, trying again while another process holds SQLite's lock. SQLite answers "database is
    locked" at once, without waiting out the busy timeout, when two connections both want to turn
    a read into a write (it would deadlock otherwise): processes opening a new file together do."""
    deadline = time.monotonic() + SQLITE_CONNECT["timeout"]
    while True:
        try:
            return _migrate(engine, read_only)
        except OperationalError as error:
            if "database is locked" not in str(error.orig) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _migrate(engine: Engine, read_only: Path | None) -> None:
    revision = migrations.revision(engine)
    if revision == migrations.HEAD:
        return
    if read_only is not None:
        raise UsageError(
            f"database {read_only} is read-only and its schema is older than this arena's "
            f"(revision {revision or 'from before migrations'}, this arena needs {migrations.HEAD}); "
            "run any `arena` command that writes on it once, with write access, to upgrade it"
        )
    migrations.upgrade(engine)


WAL_CHECKPOINT_PAGES = 20_000


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    # WAL: readers (the dashboard) never block the driver; NORMAL sync is still crash-safe in WAL
    # mode (a kill -9 loses nothing committed), and foreign keys are off by default in SQLite.
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    # A checkpoint (the WAL copied into the file, with an fsync) every 20,000 pages, not SQLite's
    # 1,000: at 10k bots a batch of matches dirties hundreds of pages all over the entrant and pair
    # indexes, so the writer checkpointed every few commits; the WAL now grows to ~80 MB before one
    # (issue #33: commits 3.0-3.7 s -> 2.1 s per 4,000 matches written at 10k bots, BENCHMARKS.md)
    cursor.execute(f"PRAGMA wal_autocheckpoint={WAL_CHECKPOINT_PAGES}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()

