"""The tournament driver: checks a config, stores the tournament, plays what is missing, rates.

The driver is the only writer. It turns the schedule's missing matches into jobs, hands them to
an executor (Ray or in-process), and writes each result as it comes back — in small batches when
results arrive faster than every 0.2 s, so a kill -9 loses at most that much, which resume then
plays again. A result already stored is never stored twice (the store's unique match key).

Running matches can be watched live when the executor has a live sink (arena/match/live.py): a thread
writes their steps so far about once a second (arena/tournament/live.py).

Ratings are recomputed from the stored matches at the end and, during a long run, every 30 s (less
often when that takes long) from the totals kept in memory and the results written since, so the
leaderboard follows the tournament.

`start_tournament` + `play_tournament` is a run; `play_tournament` alone on an existing id is a
resume: the schedule is rebuilt from the stored config and seed, and exactly the matches that
are not in the store are played.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, replace
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Protocol

from arena.errors import StoreError, UsageError
from arena.match.clock import per_move
from arena.match.executor import JobOutcome, MatchJob, NodeLaunch
from arena.match.record import Fault, count_strikes, split_logs
from arena.outcomes import Termination, TournamentStatus
from arena.rating import LiveRate, rerate
from arena.store import MatchResult, RatedMatch, SeatResult, Store, TournamentInfo
from arena.tournament.entrants import bot_name, pin, pinned_version
from arena.tournament.live import LiveWriter
from arena.tournament.schedule import PlannedMatch, TournamentConfig, bot_spec, check_config_shape, schedule
from bots import bot_names, check_spec, is_builtin, parse_spec
from engine import registry

FLUSH_SECONDS = 0.2


class GatewayGone(UsageError):
    """The gateway stopped (or cannot be reached) during the tournament: the match that saw it is
    not stored, the tournament stops as interrupted, and resume plays what is missing."""
RERATE_SECONDS = 30.0  # ratings follow a long run at least this often (the dashboard reads them)
RERATE_COST_FACTOR = 10  # ... but wait at least this many times as long as the last rerate took
HEARTBEAT_SECONDS = 5.0  # how often a running driver marks its tournament alive


class Executor(Protocol):
    workers: int

    def run(self, jobs: Any) -> Any: ...


def _live_writer(store: Store, planned: list[PlannedMatch], executor: Executor) -> LiveWriter | None:
    """The thread that writes the running matches' steps, when the executor collects them."""
    if getattr(executor, "live_sink", None) is None:
        return None
    return LiveWriter(store, {m.index: m for m in planned}, executor.drain_live)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Progress:
    """What the progress line shows: counts since this run started, and the whole tournament."""

    done: int  # stored matches of the tournament, all runs together
    total: int
    played_now: int  # matches played by this run
    elapsed_s: float

    @property
    def rate(self) -> float:
        return self.played_now / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def eta_s(self) -> float | None:
        return (self.total - self.done) / self.rate if self.rate > 0 else None


def builtin_version() -> str:
    """The version tag of built-in bots: the arena distribution they ship with."""
    try:
        return f"arena-{version('arena')}"
    except PackageNotFoundError:
        return "arena-dev"


def check_config(config: TournamentConfig, store: Store) -> str:
    """UsageError (one line) for anything that would fail later; returns the ruleset.

    An entrant is a built-in bot spec, or the name of a bot registered in `store` (it connects
    through the gateway), pinned to a version (`NAME@N`) or not, optionally followed by `#label`.
    """
    if config.game_id not in registry.GAMES:
        raise UsageError(f"unknown game {config.game_id!r}; valid games: {', '.join(registry.game_ids())}")
    try:
        game = registry.make(config.game_id, config.players_per_match, **config.options)
        check_config_shape(config)
    except ValueError as error:
        raise UsageError(str(error)) from None
    for entrant in config.entrants:
        _check_entrant(entrant, game, store)
    try:
        per_move(config.time_per_move_ms)
    except ValueError as error:
        raise UsageError(str(error)) from None
    return game.ruleset


def _check_entrant(entrant: str, game: Any, store: Store) -> None:
    spec = bot_spec(entrant)
    if not is_builtin(spec):
        if (bot := store.bot(bot_name(spec))) is not None:
            if why := bot.refusal():
                raise UsageError(f"{why}; it cannot enter a tournament")
            pinned_version(spec, store)  # a version number it does not have is refused
            return
        registered = ", ".join(b.name for b in store.bots()) or "none"
        raise UsageError(f"unknown bot {parse_spec(spec)[0]!r} in {entrant!r}; built-in bots: "
                         f"{', '.join(bot_names())}; registered bots: {registered}")
    try:
        check_spec(spec, game)
    except ValueError as error:
        raise UsageError(f"bot {entrant!r}: {error}") from None


@dataclass(frozen=True)
class TournamentPlan:
    """A run's tournament, checked and scheduled once: the config with every registered entrant
    pinned to a version, its ruleset, and every match it schedules."""

    config: TournamentConfig
    ruleset: str
    matches: list[PlannedMatch]


def plan_tournament(config: TournamentConfig, store: Store) -> TournamentPlan:
    """Pin every registered bot to its latest version (`mybot` -> `mybot@3`, so a resume plays
    the same versions; a pinned config stays as it is), check the config (UsageError, one line)
    and schedule it: each once per run."""
    config = pin_config(config, store)
    ruleset = check_config(config, store)
    return TournamentPlan(config, ruleset, schedule(config))


def store_tournament(store: Store, plan: TournamentPlan, name: str = "") -> int:
    """Store a planned tournament (nothing is played yet); returns its id."""
    config = plan.config
    return store.create_tournament(config.game_id, plan.ruleset, config.kind, config.to_json(), len(plan.matches), name)


def start_tournament(store: Store, config: TournamentConfig, name: str = "") -> int:
    """Plan the tournament and store it; returns its id."""
    return store_tournament(store, plan_tournament(config, store), name)


def pin_config(config: TournamentConfig, store: Store) -> TournamentConfig:
    """The config with every entrant (and the gauntlet's challenger) pinned to a version."""
    challenger = pin(config.challenger, store) if config.challenger else None
    return replace(config, entrants=tuple(pin(e, store) for e in config.entrants), challenger=challenger)


def play_tournament(
    store: Store, tournament_id: int, executor: Executor,
    on_progress: Callable[[Progress], None] | None = None, plan: TournamentPlan | None = None,
) -> TournamentInfo:
    """Play every scheduled match of the tournament that is not stored yet, then rate.

    `plan` is the stored tournament's plan when the caller made it already (a run, a resume);
    without one it is made here from the stored config."""
    info = store.tournament(tournament_id)
    if info is None:
        raise UsageError(f"no tournament {tournament_id} in {store.url}; `arena tournament list` shows them")
    plan = plan or plan_tournament(TournamentConfig.from_json(info.config), store)
    config, planned = plan.config, plan.matches
    stored = store.stored_indexes(tournament_id)
    missing = [m for m in planned if m.index not in stored]
    store.set_tournament_status(tournament_id, TournamentStatus.RUNNING)  # also clears an earlier run's live rows
    live = _live_writer(store, planned, executor)
    writer = _ResultWriter(store, info, config, planned, len(stored), on_progress, live)
    sink = getattr(executor, "live_sink", None)
    try:
        if live:
            live.start()
        launches = node_launches(config, store)
        for outcome in executor.run([match_job(tournament_id, config, m, sink, launches) for m in missing]):
            if outcome.gateway_gone:  # the arena's stop, not a result: every later match would fail too
                raise GatewayGone(f"the gateway stopped or cannot be reached ({outcome.error})")
            writer.add(outcome)
        writer.flush()
    except BaseException:
        if live:
            live.stop()  # before the status change, which deletes the live rows
        interrupt(store, tournament_id, writer.flush)
        raise
    finally:
        if live:
            live.stop()
    rerate(store, info.ruleset)
    store.set_tournament_status(tournament_id, TournamentStatus.FINISHED)
    finished = store.tournament(tournament_id)
    assert finished is not None
    return finished


def interrupt(store: Store, tournament_id: int, flush: Callable[[], None]) -> None:
    """Keep what was played and mark the tournament `interrupted` for resume; the caller then
    raises its own error. When that error was the database's (a full disk), the flush fails
    again (nothing more is lost: resume replays a missing match from its seeds) and even the
    status may not fit on the disk: the tournament then stays `running`, which `arena tournament
    list` flags once it makes no progress, and `stopped_note` says so."""
    try:
        flush()
    except StoreError:
        pass  # refused again: resume replays those matches from their seeds
    finally:
        _mark_interrupted(store, tournament_id)


def _mark_interrupted(store: Store, tournament_id: int) -> None:
    try:
        store.set_tournament_status(tournament_id, TournamentStatus.INTERRUPTED)
    except StoreError:
        pass  # no room even for that: `stopped_note` tells the user


def stopped_note(store: Store, tournament_id: int, what: str) -> str:
    """How a stopped tournament (`what`: "tournament 3", "SPRT test 3") is stored now."""
    try:
        stored = store.tournament(tournament_id)
    except StoreError:
        stored = None
    if stored is not None and stored.status == TournamentStatus.INTERRUPTED:
        return f"{what} is interrupted"
    return f"{what} stopped (the database could not even mark it interrupted, so it lists as running)"


def match_job(tournament_id: int, config: TournamentConfig, match: PlannedMatch, live: Any = None,
              launches: dict[str, NodeLaunch] | None = None) -> MatchJob:
    """The job that plays one planned match of a tournament (connected seats through its gateway;
    its steps sent to the executor's `live` sink as it plays, when one is given). `launches`:
    the submitted versions the node that plays a match launches itself (`node_launches`)."""
    specs = tuple(bot_spec(e) for e in match.seats)
    here = tuple(dict.fromkeys(launches[s] for s in specs if launches and s in launches))
    return MatchJob.for_game(
        config.game_id, key=(tournament_id, match.index), bots=specs,
        seed=match.seed, chance_seed=match.chance_seed, options=dict(config.options),
        time_per_move_ms=config.time_per_move_ms,
        gateway=None if all(is_builtin(s) for s in specs) else config.gateway, live=live, launches=here,
    )


def node_launches(config: TournamentConfig, store: Store) -> dict[str, NodeLaunch]:
    """Spec -> its launch on a node, for every entrant that is a submitted version with stored
    files (checked now: a disabled or removed bot is refused here, as the gateway would).
    Others — bots that dial in, commands registered without files — keep the gateway."""
    found: dict[str, NodeLaunch] = {}
    for entrant in (*config.entrants, *((config.challenger,) if config.challenger else ())):
        spec = bot_spec(entrant)
        if spec not in found and (launch := node_launch(spec, store)) is not None:
            found[spec] = launch
    return found


def node_launch(spec: str, store: Store) -> NodeLaunch | None:
    """The launch on a node of one seat's bot spec, or None when it keeps the gateway: a built-in
    bot, a bot that dials in, a command registered without files, or a bot the gateway refuses
    (disabled, removed: the gateway says why such a seat cannot play, as before)."""
    if is_builtin(spec):
        return None
    bot, version = store.bot(bot_name(spec)), pinned_version(spec, store)
    if bot is None or bot.refusal() or version is None or not version.sha256 or not version.files:
        return None
    return NodeLaunch(version.entrant, version.command, version.sha256, version.files)


class _ResultWriter:
    """Buffers outcomes for at most FLUSH_SECONDS, writes them, reports progress."""

    def __init__(self, store: Store, info: TournamentInfo, config: TournamentConfig,
                 planned: list[PlannedMatch], already: int, on_progress: Callable[[Progress], None] | None,
                 live: LiveWriter | None = None):
        self.store, self.info, self.config, self.on_progress = store, info, config, on_progress
        self.live = live
        self.planned = {m.index: m for m in planned}
        self.done, self.played = already, 0
        self.buffer: list[MatchResult] = []
        self.started = self.last_flush = self.last_touch = time.monotonic()
        self.rerating = LiveRerate(store, info.ruleset)
        self.versions = {e: played_as(bot_spec(e), store) for e in config.entrants}

    def add(self, outcome: JobOutcome) -> None:
        if self.live:
            self.live.finish(outcome.job.key)
        self.buffer.append(match_result(self.info, self.planned[outcome.job.key[1]], outcome, self.versions))
        if time.monotonic() - self.last_flush >= FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        with self.live.lock if self.live else nullcontext():  # a live row is never written after its result
            written = self.store.record_matches(self.buffer)
        self.rerating.add(self.buffer, written)
        self.done += written
        self.played += len(self.buffer)
        self.buffer = []
        self.last_flush = time.monotonic()
        if self.last_flush - self.last_touch >= HEARTBEAT_SECONDS:
            self.store.touch_tournament(self.info.id)
            self.last_touch = self.last_flush
        self.rerating.maybe()
        if self.on_progress:
            self.on_progress(Progress(self.done, self.info.total_matches, self.played, self.last_flush - self.started))



class LiveRerate:
    """The ratings refitted while a run writes results: every RERATE_SECONDS, or less often when
    rerating is slow (a large ruleset), so a driver never spends more than a tenth of its time on
    live ratings (the tournament's and the ladder's writers).

    The ruleset's totals are read from the store once (at the first rerate) and kept in memory
    (arena.rating.LiveRate); each batch the writer stores is `add`ed to them as it is written (a
    batch of 100 in ~2 ms: the rerate, which the tables wait for, only refits), and each rerate
    refits from the ratings before. Matches that another writer stores meanwhile are rated at this
    run's end (`rerate` from the store), or at once when a batch was partly stored already (the
    totals are then read again)."""

    def __init__(self, store: Store, ruleset: str) -> None:
        self.store, self.ruleset = store, ruleset
        self.last = time.monotonic()
        self.cost = 0.0
        self.rate: LiveRate | None = None

    def add(self, results: Sequence[MatchResult], written: int) -> None:
        """A batch the writer stored, of which `written` were new to the store."""
        if written < len(results):  # some were stored before: the totals are read again
            self.rate = None
        elif self.rate is not None:
            self.rate.add([rated_match(r) for r in results if r.aborted_reason is None and r.ruleset == self.ruleset])

    def maybe(self) -> None:
        if time.monotonic() - self.last < max(RERATE_SECONDS, RERATE_COST_FACTOR * self.cost):
            return
        started = time.monotonic()
        if self.rate is None:
            self.rate = LiveRate(self.store, self.ruleset)
        self.rate.rerate()
        self.last = time.monotonic()
        self.cost = self.last - started


def rated_match(result: MatchResult) -> RatedMatch:
    """What rating needs of a finished result (as Store.rated_matches reads it back; no id yet)."""
    seats = result.seats
    return RatedMatch(0, (result.tournament_id, result.match_index), tuple(s.entrant for s in seats),
                      tuple(s.rank or 0 for s in seats), tuple(s.faults for s in seats),
                      tuple(s.termination != Termination.NORMAL for s in seats))


def match_result(info: TournamentInfo, match: PlannedMatch, outcome: JobOutcome,
                 versions: dict[str, tuple[str, str]] | None = None) -> MatchResult:
    """The row to store for one outcome: finished with seats and ranks, or aborted with why.

    `versions` gives each entrant's kind and version (`played_as`; without it, what the spec
    alone says); a connected bot's version is the one it declared in its Hello, from the record.
    Launched bots' logs leave the record here: they go to the private bot_log, the rest is public."""
    known = versions or {}
    record, logs, log_steps = split_logs(outcome.record or {})
    aborted = outcome.error or record.get("aborted")
    returns = record.get("returns") or [None] * len(match.seats)
    ranks = record.get("ranks") or [None] * len(match.seats)
    seat_records = record.get("seats") or [{} for _ in match.seats]
    seats = [
        SeatResult(
            seat=i, entrant=entrant, spec=bot_spec(entrant),
            **_kind_and_version(known.get(entrant) or _unlooked(bot_spec(entrant)), seat_records[i]),
            score=returns[i], rank=None if aborted else ranks[i],
            termination=seat_records[i].get("termination", Termination.NORMAL),
            reason=seat_records[i].get("reason", ""),
            faults=count_strikes(Fault.from_json(f) for f in seat_records[i].get("faults", [])),
        )
        for i, entrant in enumerate(match.seats)
    ]
    return MatchResult(
        tournament_id=info.id, match_index=match.index, round=match.round, table_no=match.table,
        rotation=match.rotation, game_id=info.game_id, ruleset=record.get("ruleset", info.ruleset),
        seed=match.seed, chance_seed=match.chance_seed, seats=seats,
        record=record or {"aborted": aborted}, aborted_reason=aborted,
        decisions=sum(step.get("actions") is not None for step in record.get("steps", [])),
        duration_ms=outcome.duration_ms, attempts=outcome.attempts, logs=logs, node=outcome.node,
        log_steps=log_steps, encoded_record=outcome.encoded if record else None,  # encoded where it was played
    )


def _kind_and_version(played: tuple[str, str], seat_record: dict[str, Any]) -> dict[str, str]:
    kind, version = played
    if kind == "connected" and seat_record.get("version"):  # what the bot declared when it connected
        version = str(seat_record["version"])
    return {"kind": kind, "version": version}


def _unlooked(spec: str) -> tuple[str, str]:
    return ("builtin", builtin_version()) if is_builtin(spec) else ("connected", "undeclared")


def played_as(spec: str, store: Store) -> tuple[str, str]:
    """(kind, version) of what plays a spec: a built-in bot (the arena's version), a submitted
    version (its files' tree hash) or a connected bot (until it declares one: "undeclared")."""
    if is_builtin(spec):
        return "builtin", builtin_version()
    version = pinned_version(spec, store)
    if version is None:
        return "connected", "undeclared"
    return "submitted", f"sha256:{version.sha256}" if version.sha256 else f"registered command {version.entrant}"
