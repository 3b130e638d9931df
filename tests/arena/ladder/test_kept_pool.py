"""The ladder's driver keeps its matchmaking Pool between tables (built again only after a refit or a
change of the field) and plans exactly the tables a driver building it for every table plans.

Two ladders on two stores of the same seeded field play real matches of the engine in this process,
a few matches ahead of their results (as workers do), while a version joins and is suspended; a
clock that advances by a fixed step per reading stands in for the real one, so that both refit and
read the field at the same points.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from arena.ladder import driver
from arena.ladder.driver import Ladder, open_ladder
from arena.ladder.field import LadderConfig
from arena.ladder.matchmaking import Pool
from arena.match.executor import JobOutcome, LocalExecutor, MatchJob
from arena.store import LadderMatch, Store
from tests.arena.gateway_fixtures import SDK_BOT

ANCHORS = ("random", "heuristic", "ismcts:sims=1,rollout=random", "ismcts:sims=2,rollout=random",
           "ismcts:sims=4,rollout=random", "ismcts:sims=8,rollout=random")  # six owners, quick to play
TABLES = 40
JOINS, LEAVES = 12, 24  # the tables after which a version joins the field, then is suspended
AHEAD = 5  # matches handed out before the first result comes back


class Clock:
    """time for the driver: each reading is STEP seconds after the one before; sleeping adds its time."""

    STEP = 0.05

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += self.STEP
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class Ahead(LocalExecutor):
    """Plays the matches in this process AHEAD jobs behind the ones handed out; a submitted
    version's match comes back aborted (no gateway here)."""

    def run(self, jobs: Iterable[MatchJob]) -> Iterator[JobOutcome]:
        waiting: deque[MatchJob] = deque()
        for job in jobs:
            waiting.append(job)
            if len(waiting) > AHEAD:
                yield self._play(waiting.popleft())
        while waiting:
            yield self._play(waiting.popleft())

    def _play(self, job: MatchJob) -> JobOutcome:
        if any("@" in bot for bot in job.bots):
            return JobOutcome(job, None, "no gateway in this test")
        return next(iter(super().run([job])))


class Rebuilding(Ladder):
    """The driver as it was: a new Pool from the field for every table."""

    def _pool(self) -> Pool:
        self._drop_pool()
        self._refit()
        self.pool = Pool(self._candidates())
        return self.pool


def planned_tables(store: Store, kind: type[Ladder]) -> list[tuple[tuple[str, ...], str]]:
    """The tables (seats, why) a ladder of `kind` plans while a version joins and then leaves."""
    store.register_bot("sub")
    store.add_version("sub", f"python3 {SDK_BOT.name}", str(SDK_BOT.parent), "a" * 64)
    ladder_id = open_ladder(store, LadderConfig("gang_of_dice", 2, ANCHORS, gateway="127.0.0.1:1", seed=7))
    tables: list[LadderMatch] = []

    def planned(match: LadderMatch) -> None:
        tables.append(match)
        if len(tables) == JOINS:
            store.mark_validated("sub", 1)
        if len(tables) == LEAVES:
            store.suspend_version("sub", 1, "suspended by the test")

    ladder = kind(store, ladder_id, Ahead(), on_table=planned)
    ladder.run(until=lambda: len(tables) >= TABLES)
    return [(m.seats, m.why) for m in tables]


def test_a_driver_keeping_its_pool_plans_the_tables_of_one_rebuilding_it(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    builds: list[int] = []
    counted = Pool.__init__

    def counting(pool: Pool, *args: object) -> None:
        builds.append(1)
        counted(pool, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Pool, "__init__", counting)
    monkeypatch.setattr(driver, "time", Clock())
    kept = planned_tables(Store(f"sqlite:///{tmp_path / 'kept.db'}"), Ladder)
    kept_builds = len(builds)
    monkeypatch.setattr(driver, "time", Clock())
    rebuilt = planned_tables(Store(f"sqlite:///{tmp_path / 'rebuilt.db'}"), Rebuilding)
    assert kept == rebuilt
    assert {why for _, why in kept} >= {"focus", "random"}, "the rule's steps were used"
    assert any("sub@1" in seats for seats, _ in kept[JOINS:LEAVES]), "the version that joined was seated"
    assert not any("sub@1" in seats for seats, _ in kept[LEAVES + 1:]), "and no more once suspended"
    assert kept_builds < (len(builds) - kept_builds) * 2 / 3, "the pool was kept between many tables"
