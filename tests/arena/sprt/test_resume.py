"""An SPRT whose driver is killed with SIGKILL, or whose disk fills up, resumes to the same counts
as an uninterrupted run; a test's state round-trips through SQLite and PostgreSQL."""

from __future__ import annotations

import math
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from arena.match.executor import LocalExecutor
from arena.sprt.driver import play_sprt, start_sprt
from arena.sprt.pairs import SprtConfig
from arena.store import Store
from tests.arena.postgres_server import postgres_server, store_on_both  # noqa: F401 - fixtures
from tests.arena.store.test_full_disk import (  # noqa: F401
    assert_stopped_as_said,
    fill_up_beyond_an_empty_database,
    small_disk,
)
from tests.arena.tournament.test_resume import arena, wait_for_matches

# a bot against itself at the default bounds: no verdict within the cap, so every pair is played
CONFIG = SprtConfig("gang_of_dice", "random", "random#2", max_pairs=40, seed=21)
RUN = ["sprt", "--game", "gang_of_dice", "--a", "random", "--b", "random#2", "--max-pairs", "40", "--seed", "21"]


def test_resume_after_kill_9_gives_the_counts_of_an_uninterrupted_run(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'killed.db'}"
    driver = subprocess.Popen([sys.executable, "-m", "arena.cli", *RUN, "--db", url, "--local", "--quiet"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    store = Store(url)
    try:
        wait_for_matches(store, 25, driver)
        driver.send_signal(signal.SIGKILL)
        driver.wait(30)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert driver.returncode == -signal.SIGKILL
    [killed] = store.sprts()
    assert killed.tournament.status == "running" and 25 <= killed.tournament.done_matches < 80, "killed mid-run"

    resumed = arena("sprt", "--resume", str(killed.id), "--db", url, "--local", "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    after = store.sprt(killed.id, history=True)

    uninterrupted_store = Store(f"sqlite:///{tmp_path / 'whole.db'}")
    whole = play_sprt(uninterrupted_store, start_sprt(uninterrupted_store, CONFIG), LocalExecutor())
    whole_history = uninterrupted_store.sprt(whole.id, history=True)
    assert after is not None and whole_history is not None
    assert after.state == whole.state and after.state.pairs == 40
    assert after.history == whole_history.history
    assert [m.match_index for m in store.matches(tournament_id=killed.id, limit=1000)] == list(range(80))
    assert after.tournament.status == "finished"


def test_a_test_and_its_llr_history_round_trip_through_the_database(store: Store) -> None:
    config = SprtConfig("gang_of_dice", "heuristic", "random", elo1=100.0, seed=8)
    test_id = start_sprt(store, config)
    fresh = store.sprt(test_id)
    assert fresh is not None and fresh.state.low == -math.inf and fresh.state.high == math.inf  # nothing yet
    played = play_sprt(store, test_id, LocalExecutor())
    again = store.sprt(test_id, history=True)
    assert again is not None and again.state == played.state and played.state.verdict == "H1"
    assert [p for p, _ in again.history] == list(range(1, played.state.pairs + 1))
    assert [t.id for t in store.sprts()] == [test_id] and store.count_sprts() == 1
    assert store.sprt(10_000) is None


def test_a_full_disk_interrupts_the_test_and_resume_ends_it_with_the_whole_runs_counts(
    small_disk: Path, tmp_path: Path  # noqa: F811
) -> None:
    url = f"sqlite:///{small_disk / 'arena.db'}"
    # the 80 games take about 90 kB (records compressed): room for about 30 of them
    ballast = fill_up_beyond_an_empty_database(small_disk, tmp_path, room=35 * 1024)
    run = arena(*RUN, "--local", "--quiet", "--db", url)
    assert run.returncode == 2, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "full" in run.stderr, run.stderr
    assert f"arena sprt --resume 1 --db {url}" in run.stderr
    [stopped] = Store(url, reader=True).sprts()
    assert 0 < stopped.tournament.done_matches < 80
    assert_stopped_as_said(stopped.tournament.status, run.stderr, "SPRT test 1")

    ballast.unlink()
    resumed = arena("sprt", "--resume", "1", "--local", "--quiet", "--db", url)
    assert resumed.returncode == 0, resumed.stderr
    whole_store = Store(f"sqlite:///{tmp_path / 'whole.db'}")
    whole = play_sprt(whole_store, start_sprt(whole_store, CONFIG), LocalExecutor())
    after = Store(url, reader=True).sprt(1)
    assert after is not None and after.state == whole.state and after.tournament.status == "finished"
