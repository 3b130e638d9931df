"""Resume after the driver is killed with SIGKILL mid-run: exactly the planned matches, none twice."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.store import Store
from arena.tournament.schedule import TournamentConfig, schedule
from engine import registry

ENTRANTS = ",".join(f"random#{i}" for i in range(1, 9))


def quick_game() -> str:
    games = registry.game_ids()
    if not games:
        pytest.skip("no game registered yet")
    return "gang_of_dice" if "gang_of_dice" in games else games[0]


def arena(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=timeout)


def wait_for_matches(store: Store, at_least: int, process: subprocess.Popen[str], timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while store.count_matches() < at_least:
        assert process.poll() is None, f"the driver ended early: {process.communicate()}"
        assert time.monotonic() < deadline, "the driver stored too few matches in time"
        time.sleep(0.05)


@pytest.mark.parametrize("where", ["--local", pytest.param("ray", marks=pytest.mark.slow)])
def test_resume_after_kill_9_plays_exactly_the_missing_matches(tmp_path: Path, where: str) -> None:
    game = quick_game()
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    run = ["tournament", "run", "--game", game, "--bots", ENTRANTS, "--rounds", "4", "--seed", "11",
           "--db", url, "--quiet", *(["--local"] if where == "--local" else ["--workers", "2"])]
    driver = subprocess.Popen([sys.executable, "-m", "arena.cli", *run], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    store = Store(url)
    try:
        wait_for_matches(store, 30, driver)
        driver.send_signal(signal.SIGKILL)
        driver.wait(30)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert driver.returncode == -signal.SIGKILL
    [info] = store.tournaments()
    before = {m.key: (m.seed, [s.rank for s in m.seats]) for m in store.matches(limit=100_000)}
    assert 30 <= len(before) < info.total_matches, "killed mid-run"

    resumed = arena("tournament", "resume", str(info.id), "--db", url, "--quiet", "--local")
    assert resumed.returncode == 0, resumed.stderr
    assert "finished" in resumed.stdout

    config = TournamentConfig.from_json(info.config)
    plan = schedule(config)
    after = store.matches(tournament_id=info.id, limit=100_000)
    assert [m.match_index for m in after] == [m.index for m in plan], "every planned match, once, nothing else"
    assert [m.seed for m in after] == [m.seed for m in plan]
    assert all(before[m.key] == (m.seed, [s.rank for s in m.seats]) for m in after if m.key in before)
    final = store.tournament(info.id)
    assert final is not None and final.status == "finished" and final.done_matches == len(plan)
    again = arena("tournament", "resume", str(info.id), "--db", url)
    assert again.returncode == 0 and "already finished" in again.stdout
    assert store.count_matches() == len(plan)
