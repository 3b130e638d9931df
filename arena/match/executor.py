"""Where matches run: on Ray (local or a cluster), or in this process — the only module importing ray.

Ray tasks play matches, at most `max_in_flight` tasks submitted at a time (Ray's "limit pending
tasks" pattern; by default 2 per worker CPU, one running and one queued), and the outcomes are
yielded one per match as their tasks complete — after the next tasks are submitted, so the workers
keep playing while the driver writes. Workers only play: they return the records (each also
encoded for the store: `encode_public`) and the driver alone writes to the database.

Several short matches per task. A Ray task costs 1.5–3 ms of CPU in the worker and the driver
(measured on 2 cores: ~300 one-match tasks/s with 8 KB records, against ~2,000 matches/s in tasks
of 20), as much as a 5–12 ms random-bot match itself, so one task per match wastes a third of the
machine. A task therefore plays a batch of consecutive matches of one game, sized by measurement,
not by guess (`batch_size`):
- while a game has no measured match yet, 1 match per task; then enough matches to last about
  TARGET_TASK_MS (100 ms), from a running mean of the match time the workers measured
  (`MatchDurations`, weighted towards recent matches: a worker's first match includes its imports).
  At 100 ms Ray's cost is under 3 % of a task, while the results still arrive several times a
  second for the progress line and the 0.2 s flushes;
- at most MAX_BATCH (64) matches, which bounds what a dead worker costs again and what an SPRT that
  has stopped still plays of later pairs;
- when the number of jobs is known (a list, as the tournament driver passes), never more than
  leaves every worker 2 more tasks of what remains, so batches shrink towards the end and the
  last tasks finish close together (a short tail);
- a match with connected bots (`job.gateway` set) lasts seconds: always 1 per task.
A batch's outcomes come back together as one list: one return per task is the cheapest in the
driver (streaming each match back with a Ray generator cost ~1 ms of driver CPU per match, a list
~0.3 ms), and the driver still gets one outcome per match, in the order of the batch.
`RayExecutor(batch=False)` is the former one-match-per-task path (for benchmarks).

A worker that dies mid-task (killed, out of memory, a node lost) surfaces as a Ray system error;
nothing of its batch came back, so every match of the batch is submitted again, each in a task of
its own (so one match that kills its worker does not take others down with it), up to
`max_attempts` times in all, and comes back once with the number of times it was submitted. An
exception inside a match is an arena-side error: the match comes back aborted with the reason, and
the tournament goes on.

Submitted bots on the node of their match (arena/node/, docs/tournaments.md): a job names the
versions its node launches (`launches`), and the executor ships their files with it (`bundles`),
packed once per run — into Ray's object store for Ray (`ray.put`; a worker fetches them with
`bundle_bytes`), as bytes in-process. The task that launches them is `arena.node.task.play_on_node`,
which the command passes in (`task=`): this module stays below the node's room. Each outcome
names the node that played it (`node_name`).

Live watching (arena/match/live.py): with `live=True` an executor has a sink, `live_sink`, that the
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
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sized
from dataclasses import dataclass, field, replace
from pathlib import Path
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
from arena.match.clock import per_move  # noqa: E402
from arena.match.live import LiveBuffer, Message, StepFeed  # noqa: E402
from arena.match.record import MatchAborted, encode_public  # noqa: E402
from arena.match.runner import run_match  # noqa: E402
from arena.submissions import pack_tree  # noqa: E402
from engine import registry  # noqa: E402

log = logging.getLogger(__name__)
ADDRESS = re.compile(r"^(ray://)?[A-Za-z0-9.-]+:\d{1,5}$")
OBJECT_STORE_BYTES = 200 * 1024**2  # records are small; the default would reserve 30 % of RAM
GCS_PORT_WAIT_SECONDS = 120  # Ray's own 30 s has run out on a loaded 2-core machine (_start_local)
LOCAL_START_ATTEMPTS = 2
DEFAULT_ATTEMPTS = 3
PROBE_SECONDS = 3.0
DRAIN_WAIT_SECONDS = 0.2  # how long the driver's live thread waits for the live actor per drain
TARGET_TASK_MS = 100.0  # how long a task of short matches should last (module docstring)
MAX_BATCH = 64
TAIL_TASKS_PER_WORKER = 2  # a batch leaves every worker at least this many tasks of what remains
RECENT_WEIGHT = 0.2  # weight of the latest match in a game's running mean
NODE_NAME_ENV = "ARENA_NODE_NAME"  # a node's name in the matches it plays (set before `ray start`)


@dataclass(frozen=True)
class NodeLaunch:
    """A submitted version that the node playing the match launches: `NAME@N`, its command, and
    its files by their tree hash (`folder`: where the driver's machine stores them)."""

    name: str
    command: str
    sha256: str
    folder: str


@dataclass(frozen=True)
class MatchJob:
    """Everything a worker needs to play one match; `key` identifies it to the driver."""

    key: tuple[int, int]  # (tournament id, match index)
    game_id: str
    game_ref: str  # "module:DESCRIPTION" (engine.registry.ref): a worker plays the game from it, not by id
    bots: tuple[str, ...]  # bot spec per seat
    seed: int
    chance_seed: int
    options: dict[str, Any] = field(default_factory=dict)
    time_per_move_ms: int | None = None  # a connected bot's allowance per decision (bank and grace: defaults)
    gateway: str | None = None  # where connected bots are reached; None when every seat is built-in
    live: Any = field(default=None, compare=False)  # the executor's live sink (push), or None: unwatched
    # submitted bots launched on the node that plays the match (arena/node/), not at the gateway
    launches: tuple[NodeLaunch, ...] = ()
    # their files by sha256, as the executor ships them: bytes, or a Ray object reference (`bundle_bytes`)
    bundles: dict[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def for_game(cls, game_id: str, **fields: Any) -> MatchJob:
        """A job whose game reference is taken from this process's registry."""
        return cls(game_id=game_id, game_ref=registry.ref(game_id), **fields)


@dataclass(frozen=True)
class JobOutcome:
    """A played match (its MatchRecord as JSON), or why it could not be played."""

    job: MatchJob
    record: dict[str, Any] | None
    error: str | None = None  # an arena-side failure: the match is stored aborted, unrated
    duration_ms: float = 0.0
    attempts: int = 1
    gateway_gone: bool = False  # `error` as the gateway stopped or cannot be reached: not stored, played later
    node: str = ""  # the node that played it (`node_name`)
    # the public record (`record` less the launched bots' logs: split_logs) encoded for the store
    # here, on the node that played it, so the one writer only inserts (arena/record_encoding.py)
    encoded: bytes | None = field(default=None, repr=False)


def play_job(job: MatchJob, gateway: Any = None) -> JobOutcome:
    """Play one match (in a worker or in-process); an exception becomes an aborted outcome.

    `gateway`: what the connected seats call instead of `job.gateway` (arena/node/ passes the
    client that asks its launched bots on this node and the others at the gateway)."""
    started = time.perf_counter()
    node = node_name()
    try:
        progress = None if job.live is None else StepFeed(job.key, job.live.push)
        record = run_match(job.game_id, list(job.bots), job.seed, job.options, chance_seed=job.chance_seed,
                           time_control=per_move(job.time_per_move_ms), gateway=gateway or job.gateway,
                           progress=progress, game_ref=job.game_ref)
        played = record.to_json()
        return JobOutcome(job, played, None, _ms_since(started), node=node, encoded=encode_public(played))
    except MatchAborted as aborted:  # an arena-side error: keep what was played, unrated
        reason = aborted.record.aborted or _first_line(aborted)
        played = aborted.record.to_json()
        return JobOutcome(job, played, reason, _ms_since(started), gateway_gone=aborted.gateway_gone, node=node,
                          encoded=encode_public(played))
    except Exception as error:  # noqa: BLE001 - any failure inside a match is data, not a crash
        return JobOutcome(job, None, _first_line(error), _ms_since(started), node=node)


def node_name() -> str:
    """This node's name as a match records it: `$ARENA_NODE_NAME`, else the host name and, on
    Ray, the first 8 digits of the Ray node id (two nodes on one machine share a host name)."""
    if named := os.environ.get(NODE_NAME_ENV, "").strip():
        return named[:100]
    host = socket.gethostname()
    return f"{host}/{ray.get_runtime_context().get_node_id()[:8]}" if ray.is_initialized() else host


def bundle_bytes(bundle: Any) -> bytes:
    """A bot's files as a job carries them: bytes already (in-process), or fetched from Ray's
    object store (a reference the driver put there)."""
    return bundle if isinstance(bundle, bytes) else ray.get(bundle)


class _Bundles:
    """The files of the jobs' launched bots, each packed once (`put`: how they are shipped)."""

    def __init__(self, put: Callable[[bytes], Any]) -> None:
        self.put = put
        self.shipped: dict[str, Any] = {}

    def __call__(self, job: MatchJob) -> MatchJob:
        if not job.launches:
            return job
        for launch in job.launches:
            if launch.sha256 not in self.shipped:
                self.shipped[launch.sha256] = self.put(pack_tree(Path(launch.folder)))
        return replace(job, bundles={launch.sha256: self.shipped[launch.sha256] for launch in job.launches})

    def each(self, jobs: Iterable[MatchJob]) -> Iterable[MatchJob]:
        """The jobs with their bundles, keeping a list a list (its length tells what remains)."""
        if isinstance(jobs, list):
            return [self(job) for job in jobs]
        return (self(job) for job in jobs)


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def batch_size(mean_ms: float | None, remaining: int | None, workers: int,
               target_ms: float = TARGET_TASK_MS) -> int:
    """How many matches the next task plays: about `target_ms` of them at `mean_ms` each, at most
    MAX_BATCH, and no more than leaves every worker TAIL_TASKS_PER_WORKER tasks of the `remaining`
    (None: unknown) jobs; 1 while nothing is measured or batching is off (`target_ms` 0)."""
    if mean_ms is None or target_ms <= 0:
        return 1
    size = min(MAX_BATCH, int(target_ms / max(mean_ms, 0.001)))
    if remaining is not None:
        size = min(size, remaining // (TAIL_TASKS_PER_WORKER * max(1, workers)))
    return max(1, size)


class MatchDurations:
    """A running mean of how long a game's matches take, weighted towards the recent ones."""

    def __init__(self) -> None:
        self._mean: dict[str, float] = {}

    def add(self, game_id: str, ms: float) -> None:
        old = self._mean.get(game_id)
        self._mean[game_id] = ms if old is None else old + RECENT_WEIGHT * (ms - old)

    def mean_ms(self, game_id: str) -> float | None:
        """None until a match of the game was measured."""
        return self._mean.get(game_id)


def play_batch(task: Callable[[MatchJob], JobOutcome]) -> Callable[[list[MatchJob]], list[tuple[JobOutcome, float]]]:
    """The worker's side of a task: each job's outcome and how long it took (ms), in job order."""

    def play_matches(jobs: list[MatchJob]) -> list[tuple[JobOutcome, float]]:
        played = []
        for job in jobs:
            started = time.perf_counter()
            try:
                outcome = task(job)
            except Exception as error:  # noqa: BLE001 - a task that raises (play_job does not) fails its match only
                outcome = JobOutcome(job, None, f"task failed: {_first_line(error)}")
            played.append((outcome, _ms_since(started)))
        return played

    return play_matches


class _Submissions:
    """The jobs still to submit: matches to play again first (one per task), then batches of new ones."""

    def __init__(self, jobs: Iterable[MatchJob]) -> None:
        self.pending = iter(jobs)
        self.remaining = len(jobs) if isinstance(jobs, Sized) else None  # new jobs not yet taken
        self.retries: deque[tuple[MatchJob, int]] = deque()
        self.held: MatchJob | None = None  # taken, but not batchable with the batch before it

    def again(self, job: MatchJob, attempt: int) -> None:
        self.retries.append((job, attempt))

    def take(self, size_for: Callable[[str, int | None], int]) -> list[tuple[MatchJob, int]]:
        """The next task's (job, attempt) pairs: consecutive jobs of one game, none connected; [] at the end."""
        if self.retries:
            return [self.retries.popleft()]
        left = self.remaining
        if (first := self._next()) is None:
            return []
        size, batch = 1 if first.gateway else size_for(first.game_id, left), [first]
        while len(batch) < size and (job := self._next()) is not None:
            if job.gateway or job.game_id != first.game_id:
                self._hold(job)
                break
            batch.append(job)
        return [(job, 1) for job in batch]

    def _next(self) -> MatchJob | None:
        job, self.held = (self.held, None) if self.held else (next(self.pending, None), None)
        if job is not None and self.remaining is not None:
            self.remaining -= 1
        return job

    def _hold(self, job: MatchJob) -> None:
        self.held = job
        if self.remaining is not None:
            self.remaining += 1


class LocalExecutor:
    """Plays matches one after another in this process: small runs, tests, the baseline."""

    workers = 1

    def __init__(self, task: Callable[[MatchJob], JobOutcome] = play_job, live: bool = False) -> None:
        self.task = task
        self.live_sink = LiveBuffer() if live else None
        self._bundles = _Bundles(lambda packed: packed)

    def drain_live(self) -> list[Message]:
        """The live steps the matches sent since the last call."""
        return self.live_sink.drain() if self.live_sink else []

    def run(self, jobs: Iterable[MatchJob]) -> Iterator[JobOutcome]:
        for job in jobs:
            yield self.task(self._bundles(job))

    def close(self) -> None:
        """Nothing to release."""


class RayExecutor:
    """Plays matches as Ray tasks on this machine or on a cluster (`address`), short ones in batches."""

    def __init__(
        self, address: str | None = None, num_cpus: int | None = None, max_in_flight: int | None = None,
        task: Callable[[MatchJob], JobOutcome] = play_job, max_attempts: int = DEFAULT_ATTEMPTS,
        live: bool = False,
        batch: bool = True, target_ms: float = TARGET_TASK_MS,
    ) -> None:
        self._owns_ray = connect(address, num_cpus)
        self.workers = int(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]  # ray leaves it unannotated
        self.max_in_flight = max_in_flight or 2 * self.workers  # tasks, each of one or more matches
        self.max_attempts = max_attempts
        self.target_ms = target_ms if batch else 0.0  # how long a batch of short matches should last
        self.durations = MatchDurations()
        self.tasks = 0  # tasks submitted so far (matches per task = matches / tasks)
        # Retries are ours, not Ray's, so the driver knows how often a match was started.
        self._remote = ray.remote(num_cpus=1, max_retries=0)(play_batch(task))
        self.live_sink = RayLiveSink.on_this_node() if live else None
        self._bundles = _Bundles(ray.put)  # in the object store once; every node fetches them from there
        self._drains = _Drains(self.live_sink) if self.live_sink else None

    def drain_live(self) -> list[Message]:
        """The live steps the matches sent since the last call ([] while the sink is busy or starting)."""
        return self._drains() if self._drains else []

    def run(self, jobs: Iterable[MatchJob]) -> Iterator[JobOutcome]:
        """One outcome per match, as tasks complete; never more than `max_in_flight` tasks submitted.

        Pass a list when you can: knowing how many jobs remain keeps the last batches short."""
        submissions = _Submissions(self._bundles.each(jobs))
        in_flight: dict[Any, list[tuple[MatchJob, int]]] = {}
        done: list[JobOutcome] = []
        while True:
            while len(in_flight) < self.max_in_flight and (batch := submissions.take(self._size)):
                in_flight[self._remote.remote([job for job, _ in batch])] = batch
                self.tasks += 1
            yield from done  # handed over once the workers have work again: the caller may write for a while
            if not in_flight:
                return
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            more, _ = ray.wait(list(in_flight), num_returns=len(in_flight), timeout=0)  # all done by now
            done = [outcome for ref in dict.fromkeys([*ready, *more])
                    for outcome in self._collect(ref, in_flight.pop(ref), submissions)]

    def _size(self, game_id: str, remaining: int | None) -> int:
        return batch_size(self.durations.mean_ms(game_id), remaining, self.workers, self.target_ms)

    def _collect(self, ref: Any, batch: list[tuple[MatchJob, int]], submissions: _Submissions) -> list[JobOutcome]:
        """The outcomes of a finished task; the matches of a dead worker's task go back to `submissions`."""
        try:
            played = ray.get(ref)
        except RayTaskError as error:  # the task itself failed (each match's own exception is caught in it)
            return [JobOutcome(job, None, f"task failed: {_first_line(error)}", attempts=a) for job, a in batch]
        except RayError as error:  # the worker or its node died: play the batch's matches again
            return self._after_death(batch, error, submissions)
        outcomes = []
        for (outcome, ms), (_, attempt) in zip(played, batch, strict=True):
            self.durations.add(outcome.job.game_id, ms)
            outcomes.append(replace(outcome, attempts=attempt))
        return outcomes

    def _after_death(self, batch: list[tuple[MatchJob, int]], error: RayError,
                     submissions: _Submissions) -> list[JobOutcome]:
        """Each match of the batch again, alone in a task; those out of attempts given up as aborted."""
        given_up = []
        for job, attempt in batch:
            if attempt < self.max_attempts:
                submissions.again(job, attempt + 1)
            else:
                given_up.append(JobOutcome(job, None, f"worker died {attempt} times: {_first_line(error)}",
                                           attempts=attempt))
        return given_up

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
        _start_local(num_cpus, quiet)
        return True
    check_address(address)
    try:
        ray.init(address=address, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as error:
        raise UsageError(f"cannot join the Ray cluster at {address!r}: {_first_line(error)}; "
                         "start one with `ray start --head --port=6390` and pass 127.0.0.1:6390") from None
    return True


def _start_local(num_cpus: int | None, quiet: dict[str, Any]) -> None:
    """Start a local Ray, once more if its head did not come up (a busy machine, a crashed GCS).

    Ray waits 30 s for its GCS server to write its port, which a loaded 2-core machine can exceed;
    the wait is raised (an operator's RAY_gcs_server_port_wait_time_s still wins), and a head that
    still fails to start is shut down and started again once, with a warning, before the error
    reaches the caller.
    """
    os.environ.setdefault("RAY_gcs_server_port_wait_time_s", str(GCS_PORT_WAIT_SECONDS))
    for attempt in range(1, LOCAL_START_ATTEMPTS + 1):
        try:
            ray.init(address="local", num_cpus=num_cpus, include_dashboard=False,
                     object_store_memory=OBJECT_STORE_BYTES, **quiet)
            return
        except RuntimeError as error:
            ray.shutdown()
            if attempt == LOCAL_START_ATTEMPTS:
                raise
            log.warning("local Ray did not start (%s); starting it again", _first_line(error))


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
