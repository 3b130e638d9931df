"""The ladder on the real engine with real launched bots: who joins, suspension, pause and resume.

The ladder runs in a thread with the in-process executor, against a real gateway on loopback
(tests/arena/gateway_fixtures.py) that launches the submitted bots in their sandbox.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

import pytest

from arena.gateway.server import GatewayThread
from arena.ladder import matchmaking
from arena.ladder.driver import Ladder, open_ladder
from arena.ladder.field import LadderConfig
from arena.match.executor import JobOutcome, LocalExecutor, MatchJob
from arena.outcomes import TournamentStatus
from arena.store import LadderMatch, Store
from tests.arena.gateway_fixtures import FAULT_BOT, SDK_BOT, gateway, store, toy_registered  # noqa: F401

GAME = "gang_of_dice"  # two players and short


def wait_until(check: Callable[[], object], what: str, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.05)


class Running:
    """A ladder playing in a thread until `stop()`; `tables` lists the tables it planned, in order."""

    def __init__(self, store: Store, gateway: str | None, anchors: tuple[str, ...] = ("random", "heuristic")) -> None:
        self.store = store
        self.id = open_ladder(store, LadderConfig(GAME, 2, anchors, gateway=gateway))
        self.tables: list[tuple[float, LadderMatch]] = []
        self.fields: list[set[str]] = []  # the field each table was chosen from
        self.stopping = threading.Event()
        self.ladder = Ladder(store, self.id, LocalExecutor(), on_table=self._planned)
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _planned(self, match: LadderMatch) -> None:
        self.tables.append((time.monotonic(), match))
        self.fields.append({member.entrant for member in self.ladder.field})

    def _run(self) -> None:
        try:
            self.ladder.run(until=self.stopping.is_set)
        except BaseException as error:  # noqa: BLE001 - reported by stop()
            self.error = error

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(60)
        assert not self.thread.is_alive() and self.error is None, self.error

    def matches_of(self, entrant: str) -> list:
        return [m for m in self.store.matches(tournament_id=self.id, limit=100_000)
                if entrant in {s.entrant for s in m.seats}]


@pytest.fixture
def running(store: Store, gateway: GatewayThread) -> Iterator[Callable[..., Running]]:  # noqa: F811
    ladders: list[Running] = []

    def start(**kwargs: object) -> Running:
        ladders.append(Running(store, gateway.address, **kwargs))  # type: ignore[arg-type]
        return ladders[-1]

    yield start
    for ladder in ladders:
        if ladder.thread.is_alive():
            ladder.stop()


@pytest.mark.slow
def test_a_version_submitted_while_it_runs_joins_and_gets_the_first_table(
        running: Callable[..., Running], store: Store, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setattr(matchmaking, "EXPLORE", 0.0)  # no random table: the rule alone decides
    ladder = running()
    wait_until(lambda: store.count_matches(tournament_id=ladder.id) >= 6, "the anchors played")
    store.register_bot("newbot", command=f"python3 {SDK_BOT.name}", files=str(SDK_BOT.parent))
    # a loaded machine launches the bot (and plays the tables under way) slowly: the bound is generous
    wait_until(lambda: len(ladder.matches_of("newbot@1")) >= 4, "newbot played 4 matches", 180)
    ladder.stop()
    seen = next(i for i, field in enumerate(ladder.fields) if "newbot@1" in field)  # joined without a restart
    assert "newbot@1" in ladder.tables[seen][1].seats, "the first table planned once it is seen is its own"
    assert all(s.termination == "normal" for m in ladder.matches_of("newbot@1") for s in m.seats)
    rows = {r.entrant: r for r in store.leaderboard("gang_of_dice@1")}
    assert rows["newbot@1"].provisional, "a few games: its interval is wide"


@pytest.mark.slow
def test_a_crashing_version_is_suspended_after_3_matches_and_leaves(running: Callable[..., Running],
                                                                   store: Store) -> None:  # noqa: F811
    store.register_bot("crasher", command=f"python3 {FAULT_BOT.name} --mode crash", files=str(FAULT_BOT.parent))
    store.mark_validated("crasher", 1)  # as if it passed its validation match and crashed only later
    ladder = running()
    wait_until(lambda: store.version("crasher", 1).suspended, "crasher@1 is suspended")  # type: ignore[union-attr]
    suspended = time.monotonic()
    reason = store.version("crasher", 1).suspended  # type: ignore[union-attr]
    assert "last 3 ladder matches" in reason and "crash" in reason
    wait_until(lambda: len(ladder.tables) >= len([t for t, _ in ladder.tables if t <= suspended]) + 3,
               "three more tables")
    ladder.stop()
    played = ladder.matches_of("crasher@1")
    assert 3 <= len(played) <= 4, "3 crashes, and the other rotation of the table under way"
    assert all(s.termination == "crash" for m in played for s in m.seats if s.entrant == "crasher@1")
    assert not any("crasher@1" in m.seats for t, m in ladder.tables if t > suspended + 0.5)
    store.add_version("crasher", f"python3 {SDK_BOT.name}", str(SDK_BOT.parent), sha256="")
    assert store.version("crasher").suspended is None  # type: ignore[union-attr]


def test_pause_and_resume(store: Store) -> None:  # noqa: F811
    ladder = Running(store, None)
    try:
        wait_until(lambda: store.count_matches(tournament_id=ladder.id) >= 4, "4 matches")
        store.set_tournament_status(ladder.id, "paused")
        wait_until(lambda: not store.pending_ladder_matches(ladder.id) and ladder.ladder.status == "paused",
                   "the ladder paused")
        held = store.count_matches(tournament_id=ladder.id)
        tables = len(ladder.tables)
        time.sleep(2.5)  # over two polls (POLL_SECONDS = 1)
        assert store.count_matches(tournament_id=ladder.id) == held and len(ladder.tables) == tables
        store.set_tournament_status(ladder.id, "running")
        wait_until(lambda: store.count_matches(tournament_id=ladder.id) >= held + 4, "4 more matches after resume")
        store.set_tournament_status(ladder.id, "stopping")
        ladder.thread.join(60)
        assert not ladder.thread.is_alive() and ladder.error is None
        info = store.tournament(ladder.id)
        assert info is not None and info.status == "stopped"
        assert not store.pending_ladder_matches(ladder.id), "stopping plays the matches under way"
    finally:
        if ladder.thread.is_alive():
            ladder.stop()


@pytest.mark.slow
def test_a_submitted_bot_of_known_strength_is_placed_in_order(running: Callable[..., Running],
                                                              store: Store) -> None:  # noqa: F811
    """The Python SDK example plays uniformly at random: the ladder must place it below the heuristic
    anchor, with intervals that no longer overlap (however long that takes, up to a bound)."""
    store.register_bot("randbot", command=f"python3 {SDK_BOT.name}", files=str(SDK_BOT.parent))
    ladder = running()

    def separated() -> bool:
        entries = dict(ladder.ladder.entries)
        if not {"randbot@1", "heuristic", "random"} <= entries.keys():
            return False
        heuristic = entries["heuristic"]
        return all(entries[name].high < heuristic.low for name in ("randbot@1", "random"))

    wait_until(separated, "the heuristic is placed clearly above both random players", 240)
    ladder.stop()
    board = [row.entrant for row in store.leaderboard("gang_of_dice@1")]
    assert board.index("heuristic") < board.index("randbot@1"), board


class GatewayStopsOnce(LocalExecutor):
    """The in-process executor, but the first match comes back as the gateway's stop cuts one short."""

    def __init__(self) -> None:
        super().__init__()
        self.cut: tuple[int, int] | None = None

    def run(self, jobs: Iterable[MatchJob]) -> Iterator[JobOutcome]:
        for outcome in super().run(jobs):
            if self.cut is None:
                self.cut = outcome.job.key
                outcome = replace(outcome, error="the gateway is stopping", gateway_gone=True)
            yield outcome


def test_a_match_the_gateways_stop_cut_short_is_played_again_not_stored_aborted(store: Store) -> None:  # noqa: F811
    ladder_id = open_ladder(store, LadderConfig(GAME, 2, ("random", "heuristic"), gateway=None))
    executor = GatewayStopsOnce()
    ladder = Ladder(store, ladder_id, executor)
    thread = threading.Thread(target=ladder.run,
                              kwargs={"until": lambda: store.count_matches(tournament_id=ladder_id) >= 6}, daemon=True)
    thread.start()
    thread.join(120)
    assert not thread.is_alive()
    assert executor.cut is not None
    matches = store.matches(tournament_id=ladder_id, limit=1000)
    cut = [m for m in matches if m.match_index == executor.cut[1]]
    assert len(cut) == 1 and cut[0].status == "finished", "played again, stored once, rated"
    assert all(m.status == "finished" for m in matches), "the arena's stop blames and aborts nothing"


class GatewayStaysGone(LocalExecutor):
    """Plays nothing: every match comes back cut short, as from a gateway that cannot serve (its
    database down); after the first, the ladder is told to stop as `arena ladder stop` does."""

    def __init__(self, store: Store, ladder_id: int) -> None:
        super().__init__()
        self.store, self.ladder_id = store, ladder_id
        self.keys: list[tuple[int, int]] = []

    def run(self, jobs: Iterable[MatchJob]) -> Iterator[JobOutcome]:
        for job in jobs:
            self.keys.append(job.key)
            if len(self.keys) == 1:
                self.store.set_tournament_status(self.ladder_id, TournamentStatus.STOPPING)
            yield JobOutcome(job, None, "UNAVAILABLE: the database cannot be read", gateway_gone=True)


def test_a_ladder_replaying_matches_a_gone_gateway_cuts_short_still_reads_its_status(store: Store) -> None:  # noqa: F811
    ladder_id = open_ladder(store, LadderConfig(GAME, 2, ("random", "heuristic"), gateway=None))
    executor = GatewayStaysGone(store, ladder_id)
    thread = threading.Thread(target=Ladder(store, ladder_id, executor).run, daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), f"the ladder replayed {len(executor.keys)} matches without reading its status"
    assert store.tournament(ladder_id).status == "stopped"
    assert len(executor.keys) <= 4, "one table, each match played again at most once a second"
    assert store.count_matches(tournament_id=ladder_id) == 0, "nothing stored: the arena's fault, not a result"


class Recording(LocalExecutor):
    """Plays nothing: keeps each job it is handed, and answers it as aborted."""

    def __init__(self) -> None:
        super().__init__()
        self.jobs: list[MatchJob] = []

    def run(self, jobs: Iterable[MatchJob]) -> Iterator[JobOutcome]:
        for job in jobs:
            self.jobs.append(job)
            yield JobOutcome(job, None, "not played in this test")


def test_a_submitted_versions_matches_are_launched_by_the_node_that_plays_them(store: Store) -> None:  # noqa: F811
    store.register_bot("sub")
    store.add_version("sub", f"python3 {SDK_BOT.name}", str(SDK_BOT.parent), "a" * 64)
    ladder_id = open_ladder(store, LadderConfig(GAME, 2, ("random",), gateway="127.0.0.1:1"))
    executor = Recording()
    Ladder(store, ladder_id, executor).run(until=lambda: len(executor.jobs) >= 2)
    assert executor.jobs, "a table was planned"
    for job in executor.jobs:
        assert "sub@1" in job.bots
        assert [(launch.name, launch.sha256) for launch in job.launches] == [("sub@1", "a" * 64)]
