"""A private PostgreSQL server on 127.0.0.1 for the store tests, started once per test session.

Debian's PostgreSQL 15 (installed by scripts/system-deps.sh). `initdb` refuses to run as root, so
as root the server runs as the `postgres` user in a throwaway folder; each test gets a fresh
database on it. Import the fixture with `from tests.arena.postgres_server import postgres_server`.
"""

from __future__ import annotations

import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.store import Store

PG_BIN = Path("/usr/lib/postgresql/15/bin")
_names = itertools.count()
NOT_INSTALLED = "PostgreSQL 15 is not installed: run `bash scripts/system-deps.sh` (as root)"


def _as_postgres(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    return ["su", "postgres", "-c", " ".join(command)]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresServer:
    def __init__(self, folder: Path, port: int) -> None:
        self.folder, self.port = folder, port

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def fresh_database(self) -> str:
        """A new empty database; returns its SQLAlchemy URL."""
        import psycopg

        name = f"arena_test_{os.getpid()}_{next(_names)}"
        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{self.port}/postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


@contextmanager
def running_postgres(kept: Path | None = None) -> Iterator[PostgresServer]:
    """A private server in a temporary folder, stopped and removed on exit (the fixture's, and
    bench/scale.py's). With `kept`, its data lives in that folder (one the `postgres` user can reach
    when run as root) and stays after the stop; a folder that already holds a server's data (an
    earlier run's) is started again, not initialised."""
    if not (PG_BIN / "initdb").exists():
        raise RuntimeError(NOT_INSTALLED)
    folder = Path(tempfile.mkdtemp(prefix="arena-pg-")) if kept is None else kept.resolve()
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    port = _free_port()
    data = folder / "data"

    def run(*args: object) -> None:
        subprocess.run(_as_postgres([str(a) for a in args]), check=True, capture_output=True, timeout=60)

    if not (data / "PG_VERSION").exists():
        run(PG_BIN / "initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync")
    options = f"'-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off'"
    if os.geteuid() != 0:
        options = options.strip("'")
    run(PG_BIN / "pg_ctl", "-D", data, "-l", folder / "log", "-w", "-o", options, "start")
    try:
        yield PostgresServer(folder, port)
    finally:
        if (data / "postmaster.pid").exists():  # a chaos test may have stopped it and failed before the start
            run(PG_BIN / "pg_ctl", "-D", data, "-m", "fast", "-w", "stop")
        if kept is None:
            shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    if not (PG_BIN / "initdb").exists():
        pytest.fail(NOT_INSTALLED)
    with running_postgres() as server:
        yield server


@pytest.fixture(name="store", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_on_both(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    """A fresh store on SQLite and, marked `postgres`, on PostgreSQL. A test module imports it with
    `postgres_server` (`from tests.arena.postgres_server import postgres_server, store_on_both`); its
    tests ask for `store`."""
    if request.param == "sqlite":
        return Store(f"sqlite:///{tmp_path / 'arena.db'}")
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return Store(server.fresh_database())
