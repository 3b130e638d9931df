"""kill -9 of a running ladder, then a restart: no stored match lost or changed, none twice, and the
matches it had planned but not stored are played with their seats and seeds (the check of
tests/arena/tournament/test_resume.py for a ladder)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from arena.store import Store
from tests.arena.tournament.test_resume import wait_for_matches

GAME = "gang_of_dice"


def ladder_process(url: str, *where: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "arena.cli", "ladder", "run", "--game", GAME, "--anchor", "random",
               "--anchor", "heuristic", "--db", url, *where]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.slow
@pytest.mark.parametrize("where", [("--local",), ("--workers", "2")], ids=["local", "ray"])
def test_kill_9_and_restart_loses_and_duplicates_nothing(tmp_path: Path, where: tuple[str, ...]) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    store = Store(url)
    first = ladder_process(url, *where)
    try:
        wait_for_matches(store, 40, first)
        first.send_signal(signal.SIGKILL)
        first.wait(30)
    finally:
        if first.poll() is None:
            first.kill()
    [info] = store.ladders()
    before = {m.key: (m.seed, [(s.entrant, s.rank) for s in m.seats]) for m in store.matches(limit=100_000)}
    planned = {m.index: m for m in store.pending_ladder_matches(info.id)}

    second = ladder_process(url, *where)
    try:
        wait_for_matches(store, len(before) + 40, second)
        stopped = arena("ladder", "stop", "--game", GAME, "--db", url)
        assert stopped.returncode == 0, stopped.stderr
        out, err = second.communicate(timeout=120)
    finally:
        if second.poll() is None:
            second.kill()
    assert second.returncode == 0, err
    after = store.matches(tournament_id=info.id, limit=100_000)
    keys = [m.key for m in after]
    assert len(keys) == len(set(keys)) == store.count_matches()
    assert all(before[m.key] == (m.seed, [(s.entrant, s.rank) for s in m.seats]) for m in after if m.key in before)
    assert set(before) <= set(keys), "no stored match lost"
    for match in after:
        if match.match_index in planned:  # planned before the kill, played after it as planned
            assert (match.seed, tuple(s.entrant for s in match.seats)) == \
                   (planned[match.match_index].seed, planned[match.match_index].seats)
    assert [m.match_index for m in after] == list(range(len(after))), "every planned match played, no gap"
    assert not store.pending_ladder_matches(info.id), "a stopped ladder leaves nothing planned unplayed"
    final = store.tournament(info.id)
    assert final is not None and final.status == "stopped"
