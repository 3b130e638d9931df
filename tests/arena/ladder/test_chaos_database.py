"""Chaos in a running ladder, its database's part: PostgreSQL stopped under it and started again,
and the SQLite file's disk full and then freed. The ladder (a real `arena ladder run`) waits, says
so in one line, and goes on by itself once the database is back: the results it held in memory are
written, the matches that were under way are played again as planned, none twice, no bot blamed.

The outage lasts OUTAGE_SECONDS, not the 30 s an operator might see: the code path is the same
(the ladder tries again every DATABASE_RETRY_SECONDS whatever the length), and the slow suite's
time is bounded.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.store import Store
from tests.arena.ladder.test_chaos import STEP, Arena, assert_nothing_lost_doubled_or_blamed, wait
from tests.arena.postgres_server import PG_BIN, PostgresServer, _as_postgres, running_postgres
from tests.arena.store.test_full_disk import fill_up_beyond_an_empty_database

OUTAGE_SECONDS = 10
DOWN = "the database cannot be written or read"
BACK = "the database answers again"


def pg_ctl(server: PostgresServer, *args: str) -> None:
    data = server.folder / "data"
    options = f"'-p {server.port} -k {server.folder} -c listen_addresses=127.0.0.1 -c fsync=off'"
    if os.geteuid() != 0:
        options = options.strip("'")
    command = [str(PG_BIN / "pg_ctl"), "-D", str(data), "-l", str(server.folder / "log"), "-w", *args]
    if args[0] == "start":
        command += ["-o", options]
    subprocess.run(_as_postgres(command), check=True, capture_output=True, timeout=120)


def last_account(log: str) -> str:
    """The ladder's last one-line account in its log (a write may fit while the disk is full, the next not)."""
    return ([line for line in log.splitlines() if " UTC: " in line] or [""])[-1]


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A real 16 MB file system (tmpfs), unmounted afterwards: room, once freed, for SQLite's
    write-ahead log to reach its checkpoint (1,000 pages, 4 MB) and start again."""
    folder = tmp_path / "disk"
    folder.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(folder)], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "--lazy", str(folder)], check=True)


@pytest.fixture
def postgres() -> Iterator[PostgresServer]:
    """A private server: this test stops and starts it (the session's shared one stays up)."""
    with running_postgres() as server:
        yield server


@pytest.mark.slow
def test_postgres_stopped_under_a_running_ladder_and_started_again(tmp_path: Path, postgres: PostgresServer) -> None:
    arena = Arena(tmp_path, postgres.fresh_database())
    try:
        arena.launched_bots()
        arena.serve()
        ladder = arena.ladder("--local")
        arena.played(STEP, ladder)
        pg_ctl(postgres, "stop", "-m", "fast")  # the open connections are cut, mid-transaction or not
        wait(lambda: DOWN in arena.log("ladder.log"), "the ladder says the database is down", ladder)
        time.sleep(OUTAGE_SECONDS)
        assert ladder.poll() is None, "the ladder waits for its database"
        pg_ctl(postgres, "start")
        arena.store = Store(arena.url)  # the test's own connections were cut too
        wait(lambda: BACK in arena.log("ladder.log"), "the ladder says the database is back", ladder)
        arena.played(STEP, ladder)
        assert BACK in arena.store.ladders()[0].note
        arena.stop_ladder(ladder)
        assert_nothing_lost_doubled_or_blamed(arena.store, {})
    finally:
        arena.stop_all()


@pytest.mark.slow
def test_a_full_disk_under_a_running_ladder_then_freed(tmp_path: Path, disk: Path) -> None:
    arena = Arena(tmp_path, f"sqlite:///{disk / 'arena.db'}")
    try:
        ballast = fill_up_beyond_an_empty_database(disk, tmp_path)
        ladder = arena.ladder("--local", "--anchor", "heuristic")  # anchors alone: the disk is the point
        wait(lambda: DOWN in arena.log("ladder.log"), "the disk fills up", ladder)
        assert "full" in arena.log("ladder.log")
        assert ladder.poll() is None, "the ladder waits for room"
        time.sleep(OUTAGE_SECONDS)
        ballast.unlink()
        wait(lambda: BACK in last_account(arena.log("ladder.log")), "the ladder says the database is back", ladder)
        arena.played(STEP, ladder)
        arena.stop_ladder(ladder)
        checked = assert_nothing_lost_doubled_or_blamed(arena.store, {})
        assert checked == arena.store.count_matches(), "anchors alone: every match played again alike"
    finally:
        arena.stop_all()
