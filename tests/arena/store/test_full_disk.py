"""A disk that fills up during a tournament: one line that says resume will continue, the
tournament left `interrupted`, and resume after freeing space plays exactly the missing matches."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.errors import StoreError
from arena.store import Store
from arena.tournament.driver import interrupt, start_tournament, stopped_note
from arena.tournament.schedule import TournamentConfig

ROOT = Path(__file__).resolve().parents[3]
GAME = ["--game", "gang_of_dice", "--bots", "random#1,random#2,random#3", "--rounds", "40", "--seed", "7"]
TOTAL = 240  # 3 pairs x 2 seat rotations x 40 rounds; a stored match costs about 1.5 kB
# what the disk has left for matches beyond twice an empty database (creating one writes it to
# the write-ahead log too): about 100 matches
ROOM = 150 * 1024


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 4 MB file system (tmpfs), unmounted afterwards."""
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)], check=True)
    try:
        yield disk
    finally:
        subprocess.run(["umount", "--lazy", str(disk)], check=True)


def fill_up(disk: Path, leave: int) -> Path:
    """A ballast file that leaves `leave` bytes free on the disk."""
    ballast = disk / "ballast"
    free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    with ballast.open("wb") as out:
        out.write(b"\0" * (free - leave))
    return ballast


def fill_up_beyond_an_empty_database(disk: Path, scratch: Path, room: int = ROOM) -> Path:
    """A ballast that leaves `room` bytes for matches beyond twice an empty database's size."""
    empty = scratch / "empty.db"
    Store(f"sqlite:///{empty}").engine.dispose()
    return fill_up(disk, 2 * empty.stat().st_size + room)


def assert_stopped_as_said(status: str, stderr: str, what: str) -> None:
    """Stopped by a full disk: marked `interrupted`, or, when even that write did not fit (the
    disk filled at a page boundary), left `running` and the error line says so."""
    if status == "interrupted":
        assert f"{what} is interrupted" in stderr, stderr
    else:
        assert status == "running" and f"{what} stopped (the database could not even mark it" in stderr, stderr


def outcomes(url: str) -> list[tuple[int, int, str, tuple[int | None, ...]]]:
    store = Store(url, reader=True)
    return [(m.match_index, m.seed, m.status, tuple(s.rank for s in m.seats)) for m in store.matches(limit=TOTAL + 1)]


def test_a_full_disk_interrupts_the_tournament_and_resume_completes_it_exactly(small_disk: Path,
                                                                              tmp_path: Path) -> None:
    url = f"sqlite:///{small_disk / 'arena.db'}"
    ballast = fill_up_beyond_an_empty_database(small_disk, tmp_path)
    run = arena("tournament", "run", *GAME, "--local", "--quiet", "--db", url)
    assert run.returncode == 2, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "full" in run.stderr and f"arena tournament resume 1 --db {url}" in run.stderr
    [stopped] = Store(url, reader=True).tournaments()
    assert 0 < stopped.done_matches < TOTAL, stopped
    assert_stopped_as_said(stopped.status, run.stderr, "tournament 1")

    ballast.unlink()  # free the space
    resume = arena("tournament", "resume", "1", "--local", "--quiet", "--db", url)
    assert resume.returncode == 0, resume.stderr
    [finished] = Store(url, reader=True).tournaments()
    assert finished.status == "finished" and finished.done_matches == TOTAL
    uninterrupted = f"sqlite:///{tmp_path / 'whole.db'}"
    assert arena("tournament", "run", *GAME, "--local", "--quiet", "--db", uninterrupted).returncode == 0
    assert outcomes(url) == outcomes(uninterrupted), "the same matches, each once, as a run never stopped"


def test_a_status_the_disk_refuses_leaves_the_tournament_running_and_the_note_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    tournament_id = start_tournament(store, TournamentConfig("gang_of_dice", 2, ("random#1", "random#2")))
    store.set_tournament_status(tournament_id, "running")

    def refused(*_: object) -> None:
        raise StoreError("no space left for database (database or disk is full)")

    monkeypatch.setattr(store, "set_tournament_status", refused)
    interrupt(store, tournament_id, flush=lambda: refused())  # neither refusal escapes: the caller raises its own
    assert store.tournament(tournament_id).status == "running"
    assert stopped_note(store, tournament_id, "tournament 1").startswith("tournament 1 stopped (the database could not")
    monkeypatch.undo()
    interrupt(store, tournament_id, flush=lambda: None)
    assert stopped_note(store, tournament_id, "tournament 1") == "tournament 1 is interrupted"
