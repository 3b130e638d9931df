"""Where matches run: on Ray (local or a cluster), or in this process — the only module importing ray.

One Ray task per match, at most `max_in_flight` submitted at a time (Ray's "limit pending tasks"
pattern), results yielded in completion order. Workers only play: they return the record and the
driver alone writes to the database.

A worker that dies mid-match (killed, out of memory, a node lost) surfaces as a Ray system error;
the match is submitted again (up to `max_attempts` times in all) and comes back once, with the
number of attempts. An exception inside the match itself is an arena-side error: the match comes
back aborted with the reason, and the tournament goes on.

Live watching (arena/live.py): with `live=True` an executor has a sink, `live_sink`, that the
driver puts into each job; a match sends its new steps there every second or so. The Ray sink is
an actor pinned to the driver's node (so it lives as long as the driver, wherever the workers
are); a worker's call to it is fire-and-forget, and the driver drains it with `drain_live()`.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

# Loopback only, no usage statistics, no token files (../shared/notes/dependencies.md). They must
# be in the environment before Ray starts its processes, which inherit it. Ray also starts its
# workers at niceness 15; here the matches are the work, and a niced worker on a busy machine
# yields its core to every other process on the machine.
for _name, _value in (("RAY_USAGE_STATS_ENABLED", "0"), ("RAY_AUTH_MODE", "disabled"),
                      ("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0"), ("RAY_worker_niceness", "0")):
    os.environ.setdefault(_name, _value)

import ray  # noqa: E402
from ray.exceptions import RayError, RayTaskError  # noqa: E402
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy  # noqa: E402

from arena.errors import UsageError  # noqa: E402
from arena.clock import per_move  # noqa: E402
from arena.live import LiveBuffer, Message, StepFeed  # noqa: E402
from arena.match import MatchAborted, run_match  # noqa: E402
from engine import registry  # noqa: E402

ADDRESS = re.compile(r"^(ray://)?[A-Za-z0-9.-]+:\d{1,5}$")
OBJECT_STORE_BYTES = 200 * 1024**2  # records are small; the default would reserve 30 % of RAM
DEFAULT_ATTEMPTS = 3
PROBE_SECONDS = 3.0
DRAIN_WAIT_SECONDS = 0.2  # how long the driver's live thread waits for the live actor per drain


@dataclass(frozen=True)
class MatchJob:
    """Everything a worker needs to play one match; `key` identifies it to the driver."""

    key: tuple[int, int]  # (tournament id, match index)
    game_id: str
    game_ref: str  # "module:Class", so a worker can play a game its own registry lacks
    bots: tuple[str, ...]  # bot spec per seat
    seed: int
    chance_seed: int
    options: dict[str, Any] = field(default_factory=dict)
    time_per_move_ms: int | None = None  # a connected bot's allowance per decision (bank and grace: defaults)
    gateway: str | None = None  # where connected bots are reached; None when every seat is built-in
    live: Any = field(default=None, compare=False)  # the executor's live sink (push), or None: unwatched

    @classmethod
    def for_game(cls, game_id: str, **fields: Any) -> MatchJob:
        """A job whose game reference is taken from this process's registry."""
        return cls(game_id=game_id, game_ref=registry.GAMES[game_id], **fields)


@dataclass(frozen=True)
class JobOutcome:
    """A played match (its MatchRecord as JSON), or why it could not be played."""

    job: MatchJob
    record: dict[str, Any] | None
    error: str | None = None  # an arena-side failure: the match is stored aborted, unrated
    duration_ms: float = 0.0
    attempts: int = 1


def play_job(job: MatchJob) -> JobOutcome:
    """Play one match (in a worker or in-process); an exception becomes an aborted outcome."""
    started = time.perf_counter()
    registry.GAMES.setdefault(job.game_id, job.game_ref)
    try:
        progress = None if job.live is None else StepFeed(job.key, job.live.push)
        record = run_match(job.game_id, list(job.bots), job.seed, job.options, chance_seed=job.chance_seed,
                           time_control=per_move(job.time_per_move_ms), gateway=job.gateway, progress=progress)
        return JobOutcome(job, record.to_json(), None, _ms_since(started))
    except MatchAborted as aborted:  # an arena-side error: keep what was played, unrated
        reason = aborted.record.aborted or _first_line(aborted)
        return JobOutcome(job, aborted.record.to_json(), reason, _ms_since(started))
    except Exception as error:  # noqa: BLE001 - any failure inside a match is data, not a crash
        return JobOutcome(job, None, _first_line(error), _ms_since(started))


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


class LocalExecutor:
    """Plays matches one after another in this process: small runs, tests, the baseline."""

    workers = 1

    def __init__(self, task: Callable[[MatchJob], JobOutcome] = play_job, live: bool = False) -> None:
        self.task = task
        self.live_sink = LiveBuffer() if live else None

    def drain_live(self) -> list[Message]:
        """The live steps the matches sent since the last call."""
        return self.live_sink.drain() if self.live_sink else []

    def run(self, jobs: Iterable[MatchJob]) -> Iterator[JobOutcome]:
        for job in jobs:
            yield self.task(job)

    def close(self) -> None:
        """Nothing to release."""


class RayExecutor:
    """Plays matches as Ray tasks on this machine or on a cluster (`address`)."""

    def __init__(
        self, address: str | None = None, num_cpus: int | None = None, max_in_flight: int | None = None,
        task: Callable[[MatchJob], JobOutcome] = play_job, max_attempts: int = DEFAULT_ATTEMPTS,
        live: bool = False,
    ) -> None:
        self._owns_ray = connect(address, num_cpus)
        self.workers = int(ray.cluster_resources().get("CPU", 1))
        self.max_in_flight = max_in_flight or 2 * self.workers
        self.max_attempts = max_attempts
        # Retries are ours, not Ray's, so the driver knows how often a match was started.
        self._remote = ray.remote(num_cpus=1, max_retries=0)(task)
        self.live_sink = RayLiveSink.on_this_node() if live else None
        self._drains = _Drains(self.live_sink) if self.live_sink else None

    def drain_live(self) -> list[Message]:
        """The live steps the matches sent since the last call ([] while the sink is busy or starting)."""
        return self._drains() if self._drains else []

    def run(self, jobs: Iterable[MatchJob]) -> Iterator[JobOutcome]:
        """Outcomes in completion order; never more than `max_in_flight` matches submitted."""
        pending = iter(jobs)
        in_flight: dict[Any, tuple[MatchJob, int]] = {}
        while True:
            while len(in_flight) < self.max_in_flight and (job := next(pending, None)) is not None:
                in_flight[self._remote.remote(job)] = (job, 1)
            if not in_flight:
                return
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            more, _ = ray.wait(list(in_flight), num_returns=len(in_flight), timeout=0)  # all done by now
            for ref in dict.fromkeys([*ready, *more]):
                job, attempt = in_flight.pop(ref)
                outcome = self._collect(ref, job, attempt)
                if outcome is None:
                    in_flight[self._remote.remote(job)] = (job, attempt + 1)
                else:
                    yield outcome

    def _collect(self, ref: Any, job: MatchJob, attempt: int) -> JobOutcome | None:
        """The outcome of a finished task, or None when it should run again."""
        try:
            return replace(ray.get(ref), attempts=attempt)
        except RayTaskError as error:  # the task function itself raised (play_job does not)
            return JobOutcome(job, None, f"task failed: {_first_line(error)}", attempts=attempt)
        except RayError as error:  # the worker or its node died: play the match again
            if attempt < self.max_attempts:
                return None
            return JobOutcome(job, None, f"worker died {attempt} times: {_first_line(error)}", attempts=attempt)

    def close(self) -> None:
        """Shut down the local Ray instance this executor started (a joined cluster stays up)."""
        if self.live_sink is not None and ray.is_initialized():
            ray.kill(self.live_sink.actor)
        if self._owns_ray and ray.is_initialized():
            ray.shutdown()


class RayLiveSink:
    """A LiveBuffer as a Ray actor on the driver's node; jobs carry this (picklable) handle."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    @classmethod
    def on_this_node(cls) -> RayLiveSink:
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        return cls(ray.remote(num_cpus=0, max_restarts=0)(LiveBuffer).options(scheduling_strategy=here).remote())

    def push(self, *message: Any) -> None:
        """Fire and forget (called in the worker): the match never waits for the sink."""
        self.actor.push.remote(*message)


class _Drains:
    """The driver's side of a RayLiveSink: one drain call in flight at a time, never waited on for
    long (an actor still starting, or dead, must not hold the driver's live thread, which the
    driver joins when the tournament ends)."""

    def __init__(self, sink: RayLiveSink) -> None:
        self.sink = sink
        self.pending: Any = None

    def __call__(self) -> list[Message]:
        if self.pending is None:
            self.pending = self.sink.actor.drain.remote()
        ready, _ = ray.wait([self.pending], timeout=DRAIN_WAIT_SECONDS)
        if not ready:
            return []
        ref, self.pending = self.pending, None
        return ray.get(ref)  # type: ignore[no-any-return]


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"


def connect(address: str | None = None, num_cpus: int | None = None) -> bool:
    """Start Ray on this machine (address None) or join a cluster; True when we started it."""
    if ray.is_initialized():
        return False
    quiet: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
    if address is None:
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False,
                 object_store_memory=OBJECT_STORE_BYTES, **quiet)
        return True
    check_address(address)
    try:
        ray.init(address=address, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as error:
        raise UsageError(f"cannot join the Ray cluster at {address!r}: {_first_line(error)}; "
                         "start one with `ray start --head --port=6390` and pass 127.0.0.1:6390") from None
    return True


def disconnect() -> None:
    """Shut Ray down in this process (a local instance stops; a joined cluster stays up)."""
    if ray.is_initialized():
        ray.shutdown()


def check_address(address: str) -> None:
    """UsageError unless `address` is HOST:PORT where something listens (checked before anything runs).

    Ray itself retries an unreachable head for ever, so the port is probed first.
    """
    if not ADDRESS.match(address):
        raise UsageError(f"bad --ray-address {address!r}: use HOST:PORT of a Ray head, e.g. 127.0.0.1:6390")
    host, port = address.removeprefix("ray://").rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=PROBE_SECONDS).close()
    except OSError as error:
        raise UsageError(f"no Ray head answers at {address!r} ({error.strerror or error}); start one with "
                         "`ray start --head --port=6390` and pass 127.0.0.1:6390") from None
