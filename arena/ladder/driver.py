"""The ladder's driver: plans each table as a worker frees up, plays it, writes it, goes on for ever.

One ladder per game and seats per table is a tournament of kind `ladder` whose matches are
appended: table after table, each in all its seat rotations on one chance seed (as a
tournament's), its matches keyed `t<id>:m<index>`. A table is chosen by the matchmaking rule
(arena/ladder/matchmaking.py) from ratings refitted in memory with the leaderboard's fit
(arena/rating.py, every stored match of the ruleset); the leaderboard itself is rerated as the
tournament driver does it.

Nothing lost: a table's matches are stored as planned (ladder_match) before a worker gets them,
and each result is written once (the match key), at most FLUSH_SECONDS after it arrives. After a
kill -9 of the ladder the next run plays the planned matches that have no result first, with
their seats and seeds; a worker's death is the executor's business (it plays the match again).

Steering from other processes goes through the ladder's status: `paused` (no new table; the
matches under way finish), `stopping` (the same, then the run ends and writes `stopped`),
`running`. The driver reads it, and the field (new versions, disabled bots, suspensions), about
once a second: a new version first plays its validation match (arena/ladder/validation.py, unrated,
stored nowhere), and once it passes is seated within seconds, first.
"""

from __future__ import annotations

import os
import random
import socket
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from dataclasses import replace
from datetime import UTC, datetime

from arena.errors import UsageError
from arena.ladder.account import Account
from arena.ladder.field import SUSPEND_AFTER, LadderConfig, Member, check_ladder, ladder_field
from arena.ladder.matchmaking import Candidate, Pool, next_table
from arena.ladder.validation import awaiting_validation, fault_of, rejection, validation_match
from arena.match.executor import JobOutcome, MatchJob, NodeLaunch
from arena.match.seeds import derive_seed
from arena.outcomes import Termination, TournamentStatus
from arena.rating import Results, fit, rating_table, rerate
from arena.store import LADDER_KIND, OUTAGE_ERRORS, LadderMatch, MatchResult, RatingEntry, Store, TournamentInfo
from arena.tournament.driver import (
    FLUSH_SECONDS,
    HEARTBEAT_SECONDS,
    Executor,
    LiveRerate,
    match_job,
    match_result,
    node_launch,
    played_as,
    rated_match,
)
from arena.tournament.live import LiveWriter
from arena.tournament.schedule import PlannedMatch, bot_spec

POLL_SECONDS = 1.0  # how often the driver reads its status and the field
REFIT_SECONDS = 0.5  # the matchmaker's ratings are refitted at most this often
DATABASE_RETRY_SECONDS = 2.0  # the database is down or full: try it again this often
IDLE_SECONDS = 1.0  # paused, or too few bots to fill a table: look again after this long
RUNNING = (TournamentStatus.RUNNING, TournamentStatus.PAUSED, TournamentStatus.STOPPING)  # a process runs it


def this_driver() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def open_ladder(store: Store, config: LadderConfig) -> int:
    """The ladder of the config's game and seats, created or taken over (its config replaced) for this
    process; UsageError when another live process runs it."""
    ruleset = check_ladder(config)
    config = replace(config, driver=this_driver())
    found = store.ladder(config.game_id, config.players_per_match)
    if found is None:
        return store.create_tournament(config.game_id, ruleset, LADDER_KIND, config.to_json(), 0,
                                       f"ladder {config.game_id} ({config.players_per_match} per table)")
    if found.status in RUNNING and _alive(found):
        raise UsageError(f"the ladder of {config.game_id} ({config.players_per_match} per table) is already run by "
                         f"{found.config.get('driver') or 'another process'}; "
                         f"`arena ladder stop --game {config.game_id}` ends it")
    store.set_tournament_config(found.id, config.to_json())
    store.set_tournament_status(found.id, TournamentStatus.RUNNING)
    return found.id


def _alive(info: TournamentInfo) -> bool:
    """Whether the process that runs a ladder still runs (its pid on this host, else its heartbeat)."""
    host, _, pid = str(info.config.get("driver", "")).rpartition(":")
    if host == socket.gethostname() and pid.isdigit():
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return int(pid) != os.getpid()
    return not info.seems_stopped(datetime.now(UTC), after_s=3 * HEARTBEAT_SECONDS)


class Ladder:
    """A running ladder: its field, its ratings in memory, its planned and in-flight matches."""

    def __init__(self, store: Store, tournament_id: int, executor: Executor,
                 on_table: Callable[[LadderMatch], None] | None = None) -> None:
        info = store.tournament(tournament_id)
        assert info is not None and info.kind == LADDER_KIND
        self.store, self.info, self.executor, self.on_table = store, info, executor, on_table
        self.config = LadderConfig.from_json(info.config)
        self.tournament = self.config.as_tournament()
        self.results = Results()
        self.results.add_totals(store.pair_chunks(info.ruleset), store.entrant_totals(info.ruleset))
        self.ratings: dict[str, float] = {}
        self.entries: dict[str, RatingEntry] = {}
        self.played_since: set[str] = set()  # entrants with results since the last fit
        self.dirty, self.last_fit = True, 0.0
        self.pending: dict[str, int] = defaultdict(int)  # entrant -> matches planned, not yet rated
        self.waited: dict[str, int] = defaultdict(int)  # entrant -> tables planned since it last sat (while no pool)
        self.pool: Pool | None = None  # the field as the matchmaker sees it, kept between tables (`_pool`)
        self.planned: dict[int, PlannedMatch] = {}  # index -> the match, while it is under way
        self.replay: list[PlannedMatch] = []  # matches the gateway's stop cut short: played again
        self.launches: dict[str, NodeLaunch | None] = {}  # spec -> its launch on a node (None: the gateway)
        self.next_index, self.next_table = store.next_ladder_position(info.id)
        self.field: list[Member] = []
        self.awaiting: list[str] = []  # versions waiting for their validation match
        self.validating: dict[int, str] = {}  # negative job index -> the version its validation match plays
        self.next_validation = -1
        self.last_poll = 0.0
        self.status: str = TournamentStatus.RUNNING
        self.buffer: list[MatchResult] = []
        self.crashed: set[str] = set()  # submitted entrants whose last stored match was a crash
        self.versions: dict[str, tuple[str, str]] = {}
        self.last_flush = self.last_touch = time.monotonic()
        self.rerating = LiveRerate(store, info.ruleset)
        self.played = 0
        self.last_abort = 0.0  # when a match last came back aborted
        self.account = Account(store, info)  # the one-line accounts of the arena's faults
        self.replayed_once = False  # whether this run looked for the planned matches left unplayed
        self.rng = random.Random(derive_seed(self.config.seed, "ladder", self.next_index))
        sink = getattr(executor, "live_sink", None)
        self.live = LiveWriter(store, self.planned, executor.drain_live) if sink is not None else None  # type: ignore[attr-defined]

    # -- the run --------------------------------------------------------------------------

    def run(self, until: Callable[[], bool] | None = None) -> None:
        """Play until the status says stop (or `until()` is true); then write `stopped`."""
        if self.live:
            self.live.start()
        try:
            while True:
                try:
                    if self._poll(force=True) == TournamentStatus.STOPPING or (until and until()):
                        break
                    self._play_round(until)
                except OUTAGE_ERRORS as error:  # the database is down or full: wait for it, then go on
                    self._wait_for_database(error, until)
            self._flush()
        except BaseException:
            self._stop_live()
            self._flush_quietly()
            if self.status != TournamentStatus.STOPPING:
                self._set_status(TournamentStatus.INTERRUPTED)
            raise
        self._stop_live()
        rerate(self.store, self.info.ruleset)
        self._set_status(TournamentStatus.STOPPED)

    def _play_round(self, until: Callable[[], bool] | None) -> None:
        if self.status == TournamentStatus.RUNNING:
            for outcome in self.executor.run(self._jobs(until)):
                self._add(outcome)
            self._flush()
        if self.status != TournamentStatus.RUNNING or not (self._can_fill() or self.awaiting):
            self._idle()

    def _wait_for_database(self, error: Exception, until: Callable[[], bool] | None) -> None:
        """Until the database answers again: the results kept in memory are then written first, and
        the matches that were under way (their outcomes dropped with the executor's run) are played
        again from their stored plan (`_replays`), so none is lost and none blamed."""
        self.account.database_down(error, len(self.buffer))
        self.planned.clear()  # nothing is under way any more: the executor's run ended with the error
        self._drop_pool()
        self.pending.clear()
        self.replay.clear()  # these are stored as planned: `_replays` finds them
        while not (until and until()):
            time.sleep(DATABASE_RETRY_SECONDS)
            try:
                kept = len(self.buffer)
                self._flush()
                self.store.tournament(self.info.id)
            except OUTAGE_ERRORS as still:
                self.account.still_down(still)
                continue
            self.account.database_back(kept)
            return

    def _jobs(self, until: Callable[[], bool] | None) -> Iterator[MatchJob]:
        """The planned matches left from an earlier run, then a new table each time a worker is free,
        until the ladder is paused or stopped or cannot fill a table."""
        yield from self._replays()
        while self._poll() == TournamentStatus.RUNNING and not (until and until()):
            if (wait := self.last_abort + IDLE_SECONDS - time.monotonic()) > 0:
                time.sleep(wait)  # an arena-side failure (the gateway is down?): no flood of aborted matches
            if self.replay:  # those cut short so far, then the status and the back-off again: a gateway
                # that stays gone (its database down?) must not keep the ladder replaying unaware of it
                replays, self.replay = self.replay, []
                for planned in replays:
                    yield self._planned_job(planned)
                continue
            validations = self._validation_jobs()
            table = self._plan_table()
            if table is None and not validations:
                return
            yield from validations
            yield from table or ()

    def _replays(self) -> Iterator[MatchJob]:
        """The matches planned and not stored (from an earlier run, or cut short in this one)."""
        pending = self.store.pending_ladder_matches(self.info.id)
        self.replay.clear()  # they are among `pending`: played once, not twice
        seated = {m.entrant for m in self._refresh_field()}
        dropped = [m.index for m in pending if not set(m.seats) <= seated]
        self.store.drop_ladder_matches(self.info.id, dropped)
        if pending and not self.replayed_once:  # at the start of a run, not on the way back from an outage
            self.account.took_over(len(pending) - len(dropped), len(dropped))
        self.replayed_once = True
        for match in (m for m in pending if m.index not in dropped):
            yield self._job(match)

    def _plan_table(self) -> list[MatchJob] | None:
        pool = self._pool()
        table = next_table(pool, self.config.players_per_match, self.rng)
        if table is None:
            return None
        chance_seed = derive_seed(self.config.seed, "chance", self.next_table)
        k = len(table.seats)
        matches = [LadderMatch(self.info.id, self.next_index + r, self.next_table, r,
                               table.seats[r:] + table.seats[:r],
                               derive_seed(self.config.seed, "match", self.next_index + r), chance_seed, table.why)
                   for r in range(k)]
        self.store.plan_ladder_matches(matches)
        self.next_index, self.next_table = self.next_index + k, self.next_table + 1
        pool.seat(table, matches=0)  # the tables waited; its matches are counted pending as their jobs are made
        if self.on_table:
            self.on_table(matches[0])
        return [self._job(m) for m in matches]

    def _validation_jobs(self) -> list[MatchJob]:
        """A validation match for each version awaiting one that is not being validated already."""
        jobs = []
        for entrant in self.awaiting:
            if entrant in self.validating.values():
                continue
            index, self.next_validation = self.next_validation, self.next_validation - 1
            self.validating[index] = entrant
            match = validation_match(self.config, entrant, index)
            jobs.append(match_job(self.info.id, self.tournament, match, None, self._launches(match.seats)))
        return jobs

    def _job(self, match: LadderMatch) -> MatchJob:
        planned = PlannedMatch(match.index, 0, match.table, match.rotation, match.seats, match.seed, match.chance_seed)
        return self._planned_job(planned)

    def _planned_job(self, planned: PlannedMatch) -> MatchJob:
        """The match's job; its submitted versions are launched by the node that plays it."""
        self.planned[planned.index] = planned
        self._count_pending(planned.seats, 1)
        launches = self._launches(planned.seats)
        return match_job(self.info.id, self.tournament, planned, getattr(self.executor, "live_sink", None), launches)

    def _launches(self, seats: tuple[str, ...]) -> dict[str, NodeLaunch]:
        specs = {bot_spec(entrant) for entrant in seats}
        for spec in specs - self.launches.keys():
            self.launches[spec] = node_launch(spec, self.store)
        return {spec: launch for spec in specs if (launch := self.launches[spec]) is not None}

    # -- who plays, and how they rate ---------------------------------------------------------

    def _poll(self, force: bool = False) -> str:
        """The status (another process may have changed it), read at most every POLL_SECONDS."""
        if force or time.monotonic() - self.last_poll >= POLL_SECONDS:
            info = self.store.tournament(self.info.id)
            self.status = info.status if info is not None else TournamentStatus.STOPPING
            self._refresh_field()
        return self.status

    def _refresh_field(self) -> list[Member]:
        field = ladder_field(self.store, self.config)
        if field != self.field:
            self._drop_pool()
        self.field = field
        self.awaiting = awaiting_validation(self.store)
        self.last_poll = time.monotonic()
        return self.field

    def _can_fill(self) -> bool:
        return len({m.owner for m in self.field}) >= self.config.players_per_match

    def _pool(self) -> Pool:
        """The field as the matchmaker sees it: built again after a refit or a change of the field,
        else the one kept, its pending matches and tables waited counted as they happen (building it
        costs tens of ms at 10,000 bots, choosing a table on it about one)."""
        if self._refit() or self.pool is None:
            self._drop_pool()
            self.pool = Pool(self._candidates())
        return self.pool

    def _drop_pool(self) -> None:
        """Forget the kept pool (its field, ratings or pending matches are out of date); the tables
        each of its bots waited are kept for the next one."""
        if self.pool is not None:
            self.waited.update(zip(self.pool.names, self.pool.waited.tolist(), strict=True))
            self.pool = None

    def _count_pending(self, seats: tuple[str, ...], change: int) -> None:
        for entrant in seats:
            self.pending[entrant] += change
        if self.pool is not None:
            self.pool.count_pending(seats, change)

    def _candidates(self) -> list[Candidate]:
        candidates = []
        for member in self.field:
            entry = self.entries.get(member.entrant)
            rated = {} if entry is None else dict(elo=entry.elo, low=entry.low, high=entry.high, games=entry.games)
            candidates.append(Candidate(member.entrant, member.owner, **rated,  # type: ignore[arg-type]
                                        pending=self.pending[member.entrant], waited=self.waited[member.entrant]))
        return candidates

    def _refit(self) -> bool:
        """Refit the ratings if results came since the last fit, at most every REFIT_SECONDS; whether
        it did."""
        if not self.dirty or time.monotonic() - self.last_fit < REFIT_SECONDS:
            return False
        self.ratings = fit(self.results, self.ratings or None)
        # only who played since the last fit gets its interval found again (arena/rating.py)
        table = rating_table(self.results, self.ratings, self.entries or None, self.played_since)
        self.entries, self.played_since = {e.entrant: e for e in table}, set()
        self.dirty, self.last_fit = False, time.monotonic()
        return True

    # -- results ------------------------------------------------------------------------------

    def _add(self, outcome: JobOutcome) -> None:
        index = outcome.job.key[1]
        if index in self.validating:
            self._validated(self.validating.pop(index), outcome)
            return
        planned = self.planned.pop(index)
        if self.live:
            self.live.finish(outcome.job.key)
        self._count_pending(planned.seats, -1)
        if outcome.gateway_gone:  # the arena's stop, not a result: stored by nobody, played again
            self.last_abort = time.monotonic()
            self.replay.append(planned)
            self.account.gateway_gone(index, outcome.error or "")
            return
        self.account.played()
        if outcome.attempts > 1:
            self.account.worker_lost(index, outcome.attempts)
        for entrant in planned.seats:
            self.versions.setdefault(entrant, played_as(bot_spec(entrant), self.store))
        result = match_result(self.info, planned, outcome, self.versions)
        self.buffer.append(result)
        if result.aborted_reason:
            self.last_abort = time.monotonic()
        else:
            self.results.add(rated_match(result))
            self.played_since.update(s.entrant for s in result.seats)
            self.dirty = True
            self.crashed |= {s.entrant for s in result.seats
                             if s.kind == "submitted" and s.termination == Termination.CRASH}
        if self.crashed or time.monotonic() - self.last_flush >= FLUSH_SECONDS:  # a crash: suspend at once
            self._flush()

    def _validated(self, entrant: str, outcome: JobOutcome) -> None:
        """Seat the version, or reject it with its fault; an arena-side failure: validate it again."""
        record = outcome.record or {}
        if outcome.error or outcome.gateway_gone or record.get("aborted"):
            self.last_abort = time.monotonic()  # nobody's fault: played again after the back-off
            return
        name, _, number = entrant.partition("@")
        fault = fault_of(record, 0)
        try:
            if fault is None:
                self.store.mark_validated(name, int(number))
            else:
                self.store.suspend_version(name, int(number), rejection(self.info.game_id, fault))
        except UsageError:
            pass  # the bot was removed meanwhile: nothing to seat or reject
        self._refresh_field()

    def _flush(self) -> None:
        with self.live.lock if self.live else nullcontext():
            written = self.store.record_matches(self.buffer)
        self.played += written
        self.rerating.add(self.buffer, written)
        self.buffer = []
        self.last_flush = time.monotonic()
        self._suspend_crashing()
        if self.last_flush - self.last_touch >= HEARTBEAT_SECONDS:
            self.store.touch_tournament(self.info.id)
            self.last_touch = self.last_flush
        self.rerating.maybe()

    def _flush_quietly(self) -> None:
        try:
            self._flush()
        except Exception:  # noqa: BLE001 - the run is ending on another error; a restart replays these
            pass

    def _suspend_crashing(self) -> None:
        """Suspend each version whose last SUSPEND_AFTER ladder matches all ended in its own crash."""
        for entrant in sorted(self.crashed):
            last = self.store.last_terminations(self.info.id, entrant, SUSPEND_AFTER)
            if len(last) == SUSPEND_AFTER and all(t == Termination.CRASH for t in last):
                name, _, number = bot_spec(entrant).partition("@")
                self.store.suspend_version(name, int(number), f"its last {SUSPEND_AFTER} ladder matches "
                                           f"(ladder of {self.info.game_id}) all ended in its own crash")
                self._refresh_field()
        self.crashed.clear()

    # -- status -------------------------------------------------------------------------------

    def _idle(self) -> None:
        if time.monotonic() - self.last_touch >= HEARTBEAT_SECONDS:
            self.store.touch_tournament(self.info.id)
            self.last_touch = time.monotonic()
        time.sleep(IDLE_SECONDS)

    def _set_status(self, status: TournamentStatus) -> None:
        self.store.set_tournament_status(self.info.id, status)

    def _stop_live(self) -> None:
        if self.live:
            self.live.stop()
