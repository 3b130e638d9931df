"""Live watching, in-process: matches send their steps, the driver writes live rows and removes them."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

import arena.match.live
import arena.tournament.live
from arena.match.executor import JobOutcome, LocalExecutor, MatchJob
from arena.match.live import LiveBuffer, StepFeed
from arena.match.record import MatchRecord, StepRecord, step_json
from arena.match.runner import run_match
from arena.store import LiveMatch, Store
from arena.tournament.driver import play_tournament, start_tournament
from arena.tournament.live import LiveSteps
from arena.tournament.schedule import TournamentConfig
from bots.random_bot import RandomBot

SLOW = TournamentConfig(game_id="riviera", players_per_match=2, entrants=("random#1", "random#2"), seed=4)
THINK_SECONDS = 0.003  # what `slow_random` adds to each decision: a match of ~150 decisions lasts ~0.5 s
FAST = TournamentConfig(game_id="riviera", players_per_match=2, entrants=("random#1", "random#2"), seed=4)


@pytest.fixture
def quick_live(monkeypatch: pytest.MonkeyPatch) -> None:
    """Send and write live steps every 20 ms, so a match of half a second is seen many times."""
    monkeypatch.setattr(arena.match.live, "PUSH_SECONDS", 0.02)
    monkeypatch.setattr(arena.tournament.live, "WRITE_SECONDS", 0.02)


def test_a_step_feed_sends_only_new_steps_and_at_most_every_interval() -> None:
    now = [0.0]
    sent: list[tuple] = []
    feed = StepFeed((1, 2), lambda *message: sent.append(message), every=1.0, clock=lambda: now[0])
    steps = [StepRecord(chance=n) for n in range(5)]
    feed(steps[:1])
    now[0] = 0.5
    feed(steps[:2])
    assert sent == []  # not a second yet
    now[0] = 1.0
    feed(steps[:3])
    now[0] = 1.5
    feed(steps[:4])
    now[0] = 2.2
    feed(steps)
    assert [(key, start, steps) for key, _, start, steps in sent] == [
        ((1, 2), 0, [step_json(s) for s in steps[:3]]), ((1, 2), 3, [step_json(s) for s in steps[3:]])]
    assert len({run for _, run, _, _ in sent}) == 1


def test_a_dead_sink_never_fails_a_match() -> None:
    def dead(*message: object) -> None:
        raise ConnectionError("the sink is gone")

    watched = run_match("riviera", ["random", "random"], seed=2, progress=StepFeed((1, 0), dead, every=0.0))
    unwatched = run_match("riviera", ["random", "random"], seed=2)
    assert [s.as_step() for s in watched.steps] == [s.as_step() for s in unwatched.steps]
    assert (watched.returns, watched.ranks, watched.aborted) == (unwatched.returns, unwatched.ranks, None)


def test_live_steps_join_messages_and_a_new_attempt_starts_afresh() -> None:
    steps = LiveSteps()
    a, b = [{"chance": 1}], [{"chance": 2}]
    assert steps.merge([((1, 0), "run1", 0, a), ((1, 0), "run1", 1, b)]) == {(1, 0)}
    assert steps.steps[(1, 0)] == a + b
    assert steps.merge([((1, 0), "run1", 5, a)]) == set()  # a gap: dropped
    assert steps.merge([((1, 0), "run2", 0, b)]) == {(1, 0)}  # the worker died; the match began again
    assert steps.steps[(1, 0)] == b
    assert steps.merge([((1, 0), "run1", 1, a)]) == set()  # late news of the dead attempt
    assert steps.steps[(1, 0)] == b


class Watched:
    """Polls a store's live rows while a tournament plays in a thread."""

    def __init__(self, store: Store, tournament_id: int) -> None:
        self.store, self.tournament_id = store, tournament_id
        self.seen: dict[int, list[list[dict]]] = {}

    def poll_until(self, done: threading.Event) -> None:
        while not done.is_set():
            for live in self.store.live_matches(self.tournament_id):
                self.seen.setdefault(live.match_index, []).append(live.steps)
            time.sleep(0.01)


@pytest.fixture
def slow_random(monkeypatch: pytest.MonkeyPatch) -> None:
    """The random bot thinks THINK_SECONDS a decision: a match lasts long enough to be watched on
    any machine (the compiled engine plays a match of two quick bots in a few milliseconds)."""
    act = RandomBot.act

    def thinking(self: RandomBot, observation: dict[str, Any], legal_actions: list[int]) -> int:
        time.sleep(THINK_SECONDS)
        return act(self, observation, legal_actions)

    monkeypatch.setattr(RandomBot, "act", thinking)


def test_running_matches_are_written_live_and_removed_when_stored(tmp_path: Path, quick_live: None,
                                                                  slow_random: None) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    tid = start_tournament(store, SLOW)
    watched, done = Watched(store, tid), threading.Event()
    poller = threading.Thread(target=watched.poll_until, args=(done,))
    poller.start()
    try:
        info = play_tournament(store, tid, LocalExecutor(live=True))
    finally:
        done.set()
        poller.join()
    assert info.status == "finished" and store.live_matches(tid) == []
    assert set(watched.seen) == {0, 1}  # both matches were seen while they played
    for match in store.matches(tournament_id=tid):
        final = MatchRecord.from_json(store.match_record(match.id)).to_json()["steps"]
        snapshots = watched.seen[match.match_index]
        assert len({len(s) for s in snapshots}) > 2  # the positions advanced
        assert all(s == final[:len(s)] for s in snapshots)  # every snapshot is the start of the record


class StopsAfterOne:
    """Plays one match (watched), then stops the way Ctrl-C does."""

    workers = 1

    def __init__(self) -> None:
        self.inner = LocalExecutor(live=True)
        self.live_sink = self.inner.live_sink
        self.drain_live = self.inner.drain_live

    def run(self, jobs: Iterable[MatchJob]) -> Iterator[JobOutcome]:
        for job in jobs:
            yield self.inner.task(job)
            job.live.push(job.key, "next", 0, [{"chance": 0, "actions": None, "elapsed_ms": None}])
            time.sleep(0.2)  # the live writer writes the next match's first steps
            raise KeyboardInterrupt


def test_an_interrupted_or_resumed_tournament_shows_no_stale_live_rows(tmp_path: Path, quick_live: None) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    tid = start_tournament(store, FAST)
    with pytest.raises(KeyboardInterrupt):
        play_tournament(store, tid, StopsAfterOne())
    assert store.tournament(tid).status == "interrupted" and store.live_matches(tid) == []
    stale = LiveMatch(tid, 1, 0, 1, 0, ["random#2", "random#1"], [{"chance": 0, "actions": None, "elapsed_ms": None}])
    store.put_live([stale])  # as a driver killed with -9 would leave it
    assert len(store.live_matches(tid)) == 1
    seen_at_start: list[list[LiveMatch]] = []

    class Checks(LocalExecutor):
        def run(self, jobs: Iterable[MatchJob]) -> Iterator[JobOutcome]:
            seen_at_start.append(store.live_matches(tid))
            yield from super().run(jobs)

    info = play_tournament(store, tid, Checks())
    assert seen_at_start == [[]] and info.status == "finished" and store.live_matches(tid) == []


def test_a_live_buffer_hands_each_message_over_once() -> None:
    buffer = LiveBuffer()
    buffer.push((1, 0), "r", 0, [{"chance": 3}])
    assert buffer.drain() == [((1, 0), "r", 0, [{"chance": 3}])]
    assert buffer.drain() == []
