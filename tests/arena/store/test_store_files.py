"""Database files that are not what a command expects: not a database, read-only, in a read-only
folder, missing, of an unsupported kind. Each is one line of error, or (for readers) just works;
and a new SQLite database is readable by its owner only."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from arena.cli import main
from arena.store import Store
from tests.arena.store.test_store import new_tournament, result

ROOT = Path(__file__).resolve().parents[3]
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
RUN = ["tournament", "run", "--game", "gang_of_dice", "--bots", "random#1,random#2", "--local", "--quiet"]


def one_line_error(capsys: pytest.CaptureFixture[str], args: list[str]) -> str:
    """Run `arena ARGS` in this process; it must fail with status 2 and one line on stderr."""
    status = main(args)
    err = capsys.readouterr().err
    assert status == 2, err
    assert len(err.strip().splitlines()) == 1 and err.startswith("arena: error: "), err
    return err


def filled(path: Path) -> str:
    """A database with one tournament of four matches of the toy ruleset, never rated."""
    url = f"sqlite:///{path}"
    store = Store(url)
    tid = new_tournament(store)
    store.record_matches([result(tid, i, ("a", "b", "c"), (1, 2, 3)) for i in range(4)])
    store.engine.dispose()
    return url


@pytest.mark.parametrize("command", [["leaderboard"], ["tournament", "list"], RUN])
def test_a_file_that_is_not_a_database_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   command: list[str]) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 100)
    err = one_line_error(capsys, [*command, "--db", f"sqlite:///{path}"])
    assert "is not an SQLite database" in err
    assert path.read_text() == "these are my notes, not a database\n" * 100, "the file is left alone"


@pytest.mark.parametrize("url", ["mysql://arena@127.0.0.1/arena", "oracle://x/y", "postgresql+asyncpg://x@127.0.0.1/y"])
def test_an_unsupported_database_is_one_line_that_says_what_is_supported(
    capsys: pytest.CaptureFixture[str], url: str
) -> None:
    err = one_line_error(capsys, ["tournament", "list", "--db", url])
    assert "cannot open database" in err and "use sqlite:///path.db or postgresql+psycopg://" in err


@pytest.fixture
def shared_folder() -> Iterator[Path]:
    """A folder that other users may enter (pytest's tmp_path is the owner's only)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-shared-"))
    folder.chmod(0o755)
    yield folder
    subprocess.run(["rm", "-rf", str(folder)], check=True)


def arena_as_nobody(*args: str) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` as an unprivileged user (root may write any file, whatever its mode)."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([*NOBODY, sys.executable, "-m", "arena.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_a_read_only_database_file_is_one_line_for_writers_and_readable_by_readers(shared_folder: Path) -> None:
    url = filled(shared_folder / "arena.db")
    os.chmod(shared_folder / "arena.db", 0o644)  # the owner's, readable by others
    shared_folder.chmod(0o777)  # the folder is not what stops the writer here
    before = (shared_folder / "arena.db").read_bytes()
    run = arena_as_nobody(*RUN, "--db", url)
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "is read-only" in run.stderr and "arena.db" in run.stderr
    board = arena_as_nobody("leaderboard", "--ruleset", "toy@1", "--json", "--db", url)
    assert board.returncode == 0, board.stderr
    assert [r["bot"] for r in json.loads(board.stdout)["toy@1"]] == ["a", "b", "c"]
    assert (shared_folder / "arena.db").read_bytes() == before


@pytest.fixture
def read_only_folder(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """(writable folder, the same folder mounted read-only): read-only even for root."""
    source, view = tmp_path / "source", tmp_path / "view"
    source.mkdir()
    view.mkdir()
    subprocess.run(["mount", "--bind", str(source), str(view)], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(view)], check=True)
        yield source, view
    finally:
        subprocess.run(["umount", "--lazy", str(view)], check=True)  # this process may still hold the file open


def test_readers_work_in_a_read_only_folder(read_only_folder: tuple[Path, Path],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    source, view = read_only_folder
    filled(source / "arena.db")
    assert sorted(p.name for p in source.iterdir()) == ["arena.db"], "no -wal or -shm left behind"
    url = f"sqlite:///{view / 'arena.db'}"
    assert main(["leaderboard", "--ruleset", "toy@1", "--json", "--db", url]) == 0
    out = capsys.readouterr()
    assert [r["bot"] for r in json.loads(out.out)["toy@1"]] == ["a", "b", "c"]
    assert "not stored" in out.err, "the ratings were computed, and it says they could not be kept"
    assert main(["tournament", "list", "--db", url]) == 0
    assert "running" in capsys.readouterr().out
    assert main(["tournament", "show", "1", "--json", "--db", url]) == 0
    assert json.loads(capsys.readouterr().out)["done_matches"] == 4
    assert dashboard_answers(url, "/api/tournaments/1")["done_matches"] == 4
    err = one_line_error(capsys, [*RUN, "--db", url])
    assert "read-only" in err


def dashboard_answers(url: str, path: str) -> dict[str, object]:
    """Start `arena dashboard` on the database, GET one API path, stop it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "arena.cli", "dashboard", "--db", url, "--port", str(port)],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as answer:
                    return json.loads(answer.read())  # type: ignore[no-any-return]
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(server.communicate()[1]) from None
                time.sleep(0.2)
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_resume_on_a_missing_database_file_is_one_line_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "typo.db"
    err = one_line_error(capsys, ["tournament", "resume", "1", "--local", "--db", f"sqlite:///{path}"])
    assert f"no database at {path}" in err
    assert not path.exists()


def test_a_new_database_and_its_wal_and_shm_are_readable_by_their_owner_only(tmp_path: Path) -> None:
    previous = os.umask(0o022)  # the usual umask, which would leave the files readable by everyone
    try:
        store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
        store.record_match(result(new_tournament(store), 0))
        names = ["arena.db", "arena.db-wal", "arena.db-shm"]
        assert {n: stat.S_IMODE((tmp_path / n).stat().st_mode) for n in names} == dict.fromkeys(names, 0o600)
    finally:
        os.umask(previous)


def test_an_existing_database_keeps_the_mode_its_owner_gave_it(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    Store(f"sqlite:///{path}").engine.dispose()
    path.chmod(0o640)  # shared with a group on purpose, e.g. for a dashboard's user
    Store(f"sqlite:///{path}").bots()
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_read_only_database_older_than_the_arena_is_one_line_for_readers(
    read_only_folder: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    source, view = read_only_folder
    store = Store(filled(source / "arena.db"))
    with store.engine.begin() as connection:  # as made before migrations
        connection.execute(text("DROP TABLE alembic_version"))
    store.engine.dispose()
    err = one_line_error(capsys, ["tournament", "list", "--db", f"sqlite:///{view / 'arena.db'}"])
    assert "is read-only and its schema is older than this arena's" in err
