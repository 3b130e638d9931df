"""Live watching: running matches send their new steps; the driver writes them for the dashboard.

The path works wherever a match runs, on this machine or on a Ray worker of another one:
1. the match (arena/match/runner.py `run_match(progress=...)`) hands its steps to a `StepFeed`, which
   sends the ones played since its last send to a sink, at most every PUSH_SECONDS, and never
   waits for an answer or raises (a dead sink never fails a match);
2. the sink is a `LiveBuffer`: in this process for the LocalExecutor, a small Ray actor on the
   driver's node for the RayExecutor (arena/match/executor.py makes it; Ray is imported there only);
3. the driver's `LiveWriter` thread (arena/tournament/live.py) drains the sink every WRITE_SECONDS, joins each match's
   messages into its steps so far (`LiveSteps`) and writes them to the `live_match` table, one
   row per running match. A row goes when its match's result is stored (in the same transaction)
   and when the tournament stops, finishes or resumes (Store.set_tournament_status).
The dashboard reads the table (dashboards/live.py decides how much of each row it may show).

Matches shorter than PUSH_SECONDS never send anything: a fast tournament pays one clock read per
step for being watchable.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from arena.match.record import StepRecord, step_json  # values only: the live actor's process needs no runner

log = logging.getLogger("arena.live")
PUSH_SECONDS = 1.0  # a running match sends its new steps at most this often
Message = tuple[tuple[int, int], str, int, list[dict[str, Any]]]  # (key, run id, first step, steps)


class LiveBuffer:
    """The sink: messages pushed by running matches until the driver drains them.

    The same class runs in this process and as a Ray actor (whose calls run one at a time)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._messages: list[Message] = []

    def push(self, key: tuple[int, int], run: str, start: int, steps: list[dict[str, Any]]) -> None:
        """Keep one message: `steps` are the match's steps from index `start` on."""
        with self._lock:
            self._messages.append((tuple(key), run, start, steps))  # type: ignore[arg-type]

    def drain(self) -> list[Message]:
        """Every message since the last drain, oldest first."""
        with self._lock:
            messages, self._messages = self._messages, []
        return messages


class StepFeed:
    """`run_match`'s progress hook: sends the new steps to `push` at most every `every` seconds.

    `run` tells one attempt of a match from the next (a worker died and the match started again)."""

    def __init__(self, key: tuple[int, int], push: Callable[..., None], every: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.key, self.push, self.clock = key, push, clock
        self.every = PUSH_SECONDS if every is None else every
        self.run = uuid.uuid4().hex
        self.sent = 0
        self.last = clock()
        self.failed = False

    def __call__(self, steps: list[StepRecord]) -> None:
        now = self.clock()
        if now - self.last < self.every or self.failed:
            return
        self.last = now
        new, start, self.sent = steps[self.sent:], self.sent, len(steps)
        try:
            self.push(self.key, self.run, start, [step_json(step) for step in new])
        except Exception as error:  # noqa: BLE001 - watching is a courtesy: the match goes on unwatched
            self.failed = True
            log.warning("match %s: live steps cannot be sent any more: %s", self.key, error)
