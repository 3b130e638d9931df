"""The driver's side of live watching (arena/match/live.py): a thread that writes running matches' steps.

It lives apart from arena/match/live.py because it needs the store, which a worker never imports.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from arena.match.live import Message
from arena.store import LiveMatch, Store
from arena.tournament.schedule import PlannedMatch

log = logging.getLogger("arena.live")
WRITE_SECONDS = 1.0  # the driver writes what arrived this often


class LiveSteps:
    """Each running match's steps so far, joined from its messages."""

    def __init__(self) -> None:
        self.steps: dict[tuple[int, int], list[dict[str, Any]]] = {}
        self.runs: dict[tuple[int, int], str] = {}

    def merge(self, messages: list[Message]) -> set[tuple[int, int]]:
        """Add the messages; returns the matches that have new steps. A new attempt's first
        message replaces what an earlier attempt sent; a message that does not follow on is dropped."""
        changed = set()
        for key, run, start, steps in messages:
            key = tuple(key)  # type: ignore[assignment]
            if start == 0 and self.runs.get(key) != run:
                self.runs[key], self.steps[key] = run, []
            have = self.steps.get(key)
            if self.runs.get(key) == run and have is not None and start == len(have) and steps:
                have.extend(steps)
                changed.add(key)
        return changed

    def forget(self, key: tuple[int, int]) -> None:
        self.steps.pop(key, None)
        self.runs.pop(key, None)


class LiveWriter:
    """The driver's thread that writes running matches' steps to the store every WRITE_SECONDS.

    `lock` is the driver's: results and live rows are written one at a time, so a row written
    after its match's result (which deletes it) cannot come back: `finished` keys are skipped."""

    def __init__(self, store: Store, planned: dict[int, PlannedMatch], drain: Callable[[], list[Message]],
                 every: float | None = None) -> None:
        self.store, self.planned, self.drain = store, planned, drain
        self.every = WRITE_SECONDS if every is None else every
        self.lock = threading.Lock()
        self.finished: set[tuple[int, int]] = set()
        self.steps = LiveSteps()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="arena-live", daemon=True)

    def start(self) -> LiveWriter:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def finish(self, key: tuple[int, int]) -> None:
        """A match's result has come back: its live row is not written again."""
        with self.lock:
            self.finished.add(key)
            self.steps.forget(key)

    def _loop(self) -> None:
        failures = 0
        while not self._stop.wait(self.every):
            try:
                self.write()
            except Exception as error:  # noqa: BLE001 - watching is a courtesy: the tournament goes on
                failures += 1
                if failures == 1:  # once: a dead sink stays dead, and a full disk says so elsewhere
                    log.warning("live steps not written (the tournament goes on unwatched): %s", error)

    def write(self) -> int:
        """Drain the sink and write the matches with new steps; returns how many were written."""
        messages = self.drain()
        with self.lock:
            fresh = [m for m in messages if tuple(m[0]) not in self.finished]
            rows = [self._row(key) for key in sorted(self.steps.merge(fresh))]
            if rows:
                self.store.put_live(rows)
        return len(rows)

    def _row(self, key: tuple[int, int]) -> LiveMatch:
        match = self.planned[key[1]]
        return LiveMatch(key[0], match.index, match.table, match.rotation, match.chance_seed,
                         list(match.seats), list(self.steps.steps[key]))
