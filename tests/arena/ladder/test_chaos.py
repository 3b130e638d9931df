"""Chaos in a running ladder: every part of the arena killed while matches are in flight, as an
operator runs them (real processes: `arena serve`, `arena ladder run` on a local Ray, `arena
dashboard`, the kit's bots launched by the gateway in their sandbox, one kit bot that dials in).

One ladder run takes, in turn: the gateway's kill -9 (then a restart), the gateway's orderly stop
for an upgrade (SIGTERM, then a restart), the dashboard's kill -9 (then a restart), the kill -9 of
a Ray worker playing a match, and the ladder's own kill -9 (then a restart). After each the ladder
plays on, and at the end: every match key once, indexes without a gap, every planned match played,
nothing stored aborted, no seat blamed (every termination normal, no strike), the dialling bot
reconnected by itself, and each fault told in one line in the ladder's log and on its page.
The run is made on SQLite and on PostgreSQL (the session's server: its own outage is
test_chaos_database.py's).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.gateway_access import gateway_answers
from arena.ladder.field import LadderConfig
from arena.match.executor import play_job
from arena.match.record import MatchRecord
from arena.store import Store
from arena.tournament.driver import match_job
from arena.tournament.schedule import PlannedMatch, bot_spec
from bots import is_builtin
from tests.arena.gateway_fixtures import HOST_KEY, ROOT, SDK_BOT
from tests.arena.postgres_server import PostgresServer, postgres_server  # noqa: F401
from tests.bots.test_sdk import free_port
from tests.bots.test_sdk_kill9 import CONNECTED, serve, wait_for_lines

GAME = "gang_of_dice"
STEP = 15  # matches stored after each fault before the next one
# a second anchor beside `random`: their matches with each other are played by built-in bots only,
# which `assert_results_as_without_faults` can play again (on two Ray workers, as by default)
BOTH_ANCHORS = ("--anchor", "heuristic", "--workers", "2")


class Arena:
    """The processes of one arena on loopback, started and killed as an operator would."""

    def __init__(self, tmp_path: Path, url: str | None = None) -> None:
        self.tmp = tmp_path
        self.url = url or f"sqlite:///{tmp_path / 'arena.db'}"
        self.env = {**os.environ, "ARENA_DB": self.url, "ARENA_HOST_KEY": HOST_KEY}
        self.store = Store(self.url)
        self.port, self.web = free_port(), free_port()
        self.gateway = f"127.0.0.1:{self.port}"
        self.started: list[subprocess.Popen[str]] = []

    def start(self, *args: str, log: str) -> subprocess.Popen[str]:
        with (self.tmp / log).open("a") as out:
            process = subprocess.Popen([sys.executable, *args], env=self.env, cwd=ROOT, stdout=out,
                                       stderr=subprocess.STDOUT, text=True)
        self.started.append(process)
        return process

    def serve(self) -> subprocess.Popen[str]:
        process = serve(self.env, self.port)
        self.started.append(process)
        return process

    def ladder(self, *where: str) -> subprocess.Popen[str]:
        return self.start("-m", "arena.cli", "ladder", "run", "--game", GAME, "--anchor", "random", "--gateway",
                          self.gateway, *(where or ("--workers", "2")), log="ladder.log")

    def played(self, more: int, ladder: subprocess.Popen[str]) -> None:
        """Wait until `more` matches more are stored."""
        target = self.store.count_matches() + more
        wait(lambda: self.store.count_matches() >= target, f"{target} matches are stored", ladder)

    def stop_ladder(self, ladder: subprocess.Popen[str]) -> None:
        stop = subprocess.run([sys.executable, "-m", "arena.cli", "ladder", "stop", "--game", GAME], env=self.env,
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert stop.returncode == 0, stop.stderr
        assert ladder.wait(180) == 0, self.log("ladder.log")

    def launched_bots(self) -> None:
        """Two kit bots the gateway launches in their sandbox: their seats go through it."""
        for name in ("alpha", "beta"):
            self.store.register_bot(name, command=f"python3 {SDK_BOT.name}", files=str(SDK_BOT.parent))

    def dashboard(self) -> subprocess.Popen[str]:
        process = self.start("-m", "arena.cli", "dashboard", "--port", str(self.web), log="dashboard.log")
        wait(lambda: self.page() is not None, "the dashboard answers", process)
        return process

    def page(self) -> dict | None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.web}/api/ladder", timeout=5) as reply:
                return json.loads(reply.read())
        except OSError:
            return None

    def log(self, name: str) -> str:
        return (self.tmp / name).read_text()

    def stop_all(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.kill()
                process.wait(30)


def wait(check, what: str, process: subprocess.Popen[str] | None = None, timeout_s: float = 180) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout_s
    while not check():
        assert process is None or process.poll() is None, f"{what}: the process ended ({process.returncode})"
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.1)


def kill_9(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGKILL)
    assert process.wait(30) == -signal.SIGKILL


def ray_worker_playing(ancestor: int) -> int | None:
    """The pid of a Ray worker under `ancestor` that plays matches now (not an idle one, nor one of
    Ray's agents, whose death takes the raylet with it), if any."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit():
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                names[int(entry.name)] = (entry / "cmdline").read_text().split("\0")[0]
        except (OSError, IndexError, ValueError):
            continue

    def under(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == ancestor:
                return True
        return False

    busy = [pid for pid, name in names.items() if name.startswith("ray::play_matches") and under(pid)]
    return busy[0] if busy else None


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def arena(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Arena]:
    """The arena's processes on an SQLite file, or on a database of the session's PostgreSQL."""
    if request.param == "sqlite":
        running = Arena(tmp_path)
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        running = Arena(tmp_path, server.fresh_database())
    yield running
    running.stop_all()


@pytest.mark.slow
def test_a_running_ladder_survives_every_part_killed_and_blames_no_bot(arena: Arena) -> None:
    store = arena.store
    arena.launched_bots()
    token = store.register_bot("dialer")  # dials in by hand: not seated, but held by the gateway
    gateway = arena.serve()
    dialer = arena.start(str(SDK_BOT), "--address", arena.gateway, "--token", token, log="dialer.log")
    wait_for_lines(arena.tmp / "dialer.log", CONNECTED, 1, dialer)
    dashboard = arena.dashboard()
    ladder = arena.ladder(*BOTH_ANCHORS)

    arena.played(STEP, ladder)
    kill_9(gateway)  # 1. the gateway dies under the matches it hosts
    wait(lambda: "the gateway stopped or cannot be reached" in arena.log("ladder.log"), "the ladder says so", ladder)
    gateway = arena.serve()
    wait(lambda: "the gateway answers again" in arena.log("ladder.log"), "the ladder says it is back", ladder)
    wait_for_lines(arena.tmp / "dialer.log", CONNECTED, 2, dialer)
    arena.played(STEP, ladder)

    gateway.send_signal(signal.SIGTERM)  # 2. an upgrade: the orderly stop, then the new version starts
    assert gateway.wait(60) == 0 and not gateway_answers(arena.gateway, 0.5)
    gateway = arena.serve()
    wait(lambda: arena.log("ladder.log").count("the gateway answers again") >= 2, "the ladder says it is back", ladder)
    wait_for_lines(arena.tmp / "dialer.log", CONNECTED, 3, dialer)
    arena.played(STEP, ladder)

    kill_9(dashboard)  # 3. the dashboard only reads: the ladder does not notice
    arena.played(STEP, ladder)
    dashboard = arena.dashboard()

    wait(lambda: ray_worker_playing(ladder.pid) is not None, "a Ray worker plays", ladder)  # 4. a Ray worker dies
    worker = ray_worker_playing(ladder.pid)
    if worker is not None:  # (it may have finished its task just now: then it is killed between two)
        os.kill(worker, signal.SIGKILL)
    arena.played(STEP, ladder)

    kill_9(ladder)  # 5. the ladder itself, with matches planned and in flight
    planned = {m.index: (m.seed, m.seats) for m in store.pending_ladder_matches(store.ladders()[0].id)}
    ladder = arena.ladder(*BOTH_ANCHORS)
    wait(lambda: "taken over from a run that ended without stopping" in arena.log("ladder.log"), "the takeover", ladder)
    arena.played(STEP, ladder)

    page = arena.page()
    assert page is not None and "taken over" in page["ladders"][0]["note"], page
    status = subprocess.run([sys.executable, "-m", "arena.cli", "ladder", "status"], env=arena.env, cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert "last incident:" in status.stdout and "taken over" in status.stdout, status.stdout
    arena.stop_ladder(ladder)

    assert_nothing_lost_doubled_or_blamed(store, planned)
    assert dialer.poll() is None, "the dialling bot was never restarted"


def assert_nothing_lost_doubled_or_blamed(store: Store, planned: dict[int, tuple[int, tuple[str, ...]]]) -> int:
    """The stopped ladder's matches: each key once, indexes 0.. without a gap, nothing planned left
    unplayed (`planned` ones played with their seeds and seats), none aborted, no seat blamed, and
    those among built-in bots as a run without faults plays them; returns how many of those."""
    [info] = store.ladders()
    matches = store.matches(tournament_id=info.id, limit=100_000)
    keys = [m.key for m in matches]
    assert len(keys) == len(set(keys)) == store.count_matches(), "no match stored twice"
    assert [m.match_index for m in matches] == list(range(len(matches))), "every planned match played, no gap"
    assert not store.pending_ladder_matches(info.id)
    for match in matches:
        if match.match_index in planned:  # planned before a kill, played after it as planned
            assert (match.seed, tuple(s.entrant for s in match.seats)) == planned[match.match_index]
    assert info.aborted_matches == 0 and all(m.aborted_reason is None for m in matches), "nothing stored aborted"
    blamed = [(m.key, s.entrant, s.termination, s.reason) for m in matches for s in m.seats
              if s.termination != "normal" or s.faults]
    assert blamed == [], "no bot blamed for the arena's faults"
    return assert_results_as_without_faults(store)


def assert_results_as_without_faults(store: Store) -> int:
    """Every stored match among built-in bots, played again in this process from its plan (its
    seats, seed and chance seed) with no fault anywhere, makes the same moves to the same result:
    the faults changed no result, so the ratings are those a run of the same plan without them
    gives. A match with a kit bot cannot be checked so: its random choices are not seeded by the
    match. Returns how many were checked."""
    [info] = store.ladders()
    config = LadderConfig.from_json(info.config).as_tournament()
    checked = 0
    for match in store.matches(tournament_id=info.id, limit=100_000):
        seats = tuple(s.entrant for s in match.seats)
        if not all(is_builtin(bot_spec(entrant)) for entrant in seats):
            continue
        planned = PlannedMatch(match.match_index, 0, 0, 0, seats, match.seed, match.chance_seed)
        again = MatchRecord.from_json(play_job(match_job(info.id, config, planned)).record or {})
        stored = MatchRecord.from_json(store.match_record(match.id))
        assert [s.as_step() for s in again.steps] == [s.as_step() for s in stored.steps], match.key
        assert (again.returns, again.ranks) == (stored.returns, stored.ranks), match.key
        checked += 1
    return checked
