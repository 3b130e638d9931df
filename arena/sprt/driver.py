"""Running an SPRT: its pairs on an executor (Ray or in-process), counted in pair order, stopped at a bound.

Pairs run like tournament matches (several in flight, results written as they come, at most
FLUSH_SECONDS apart), but the test counts them in pair order: pair n enters the counts only
when pairs 0..n-1 have, and the test stops at the first n whose LLR reaches a bound (or at
--max-pairs). Games of later pairs already in flight then finish and are stored, but are not
counted. So the verdict and the counts depend only on the seed and the games, never on the order
games finish in: a resumed test, a test on Ray and one in-process end with the same counts.

The state is derived from the stored matches: `play_sprt` on a stopped test recounts them,
replaces the stored state and LLR history, and plays exactly the missing games of the next pairs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, cast

from arena.errors import UsageError
from arena.match.executor import JobOutcome, MatchJob, NodeLaunch
from arena.outcomes import MatchStatus, TournamentStatus, Verdict
from arena.sprt.pairs import SprtConfig, check_sprt_shape, game_points, pair_matches
from arena.sprt.stats import bounds, decide, estimate, llr
from arena.store import SPRT_KIND, MatchResult, SprtInfo, SprtState, Store, TournamentInfo
from arena.tournament.driver import (
    FLUSH_SECONDS,
    HEARTBEAT_SECONDS,
    Executor,
    check_config,
    interrupt,
    match_job,
    match_result,
    node_launches,
)


@dataclass(frozen=True)
class SprtProgress:
    """What the live line shows: the test's state, and the games this run played."""

    state: SprtState
    played_now: int
    elapsed_s: float

    @property
    def pairs_per_s(self) -> float:
        return self.played_now / 2 / self.elapsed_s if self.elapsed_s > 0 else 0.0


def check_sprt(config: SprtConfig, store: Store) -> str:
    """UsageError (one line) for a test that cannot run; returns the ruleset.

    Entrants are checked as a tournament's are (built-in specs, registered bots)."""
    try:
        check_sprt_shape(config)
    except ValueError as error:
        raise UsageError(str(error)) from None
    return check_config(config.as_tournament(), store)


def start_sprt(store: Store, config: SprtConfig, name: str = "") -> int:
    """Check the config and store the test (nothing is played yet); returns its id."""
    ruleset = check_sprt(config, store)
    test_id = store.create_tournament(config.game_id, ruleset, SPRT_KIND, config.to_json(), 2 * config.max_pairs, name)
    store.save_sprt(test_id, Tally(config).state())
    return test_id


class Tally:
    """A's points per game, counted pair by pair in pair order until the test is decided."""

    def __init__(self, config: SprtConfig) -> None:
        self.config = config
        self.points: dict[int, float | None] = {}  # match index -> A's points; None: aborted
        self.next_pair = 0
        self.counts = [0] * 5
        self.aborted = 0
        self.llr = 0.0
        self.verdict: Verdict | None = None
        self.history: list[tuple[int, float]] = []  # (pairs, LLR) not yet stored

    @property
    def done(self) -> bool:
        return self.verdict is not None

    def add(self, match_index: int, points: float | None) -> None:
        """One game's result (None: aborted); counts every pair that is now complete in order."""
        self.points[match_index] = points
        while not self.done and {2 * self.next_pair, 2 * self.next_pair + 1} <= self.points.keys():
            self._count(self.points[2 * self.next_pair], self.points[2 * self.next_pair + 1])
            self.next_pair += 1
            if not self.done and self.next_pair >= self.config.max_pairs:
                self.verdict = Verdict.UNDECIDED

    def _count(self, first: float | None, second: float | None) -> None:
        if first is None or second is None:  # an arena-side failure: the pair tells nothing
            self.aborted += 1
            return
        self.counts[round(2 * (first + second))] += 1
        config = self.config
        self.llr = llr(self.counts, config.elo0, config.elo1, config.model)
        self.history.append((sum(self.counts), self.llr))
        self.verdict = decide(self.llr, config.alpha, config.beta)

    def take_history(self) -> list[tuple[int, float]]:
        taken, self.history = self.history, []
        return taken

    def state(self) -> SprtState:
        lower, upper = bounds(self.config.alpha, self.config.beta)
        elo = estimate(self.counts, self.config.model)
        return SprtState(sum(self.counts), self.aborted, list(self.counts), self.llr, lower, upper,
                         elo.elo, elo.low, elo.high, elo.los, self.verdict)


def play_sprt(store: Store, test_id: int, executor: Executor,
              on_progress: Callable[[SprtProgress], None] | None = None) -> SprtInfo:
    """Play the test's missing pairs until it is decided; store and return its state."""
    info = existing_sprt(store, test_id).tournament
    config = SprtConfig.from_json(info.config)
    check_sprt(config, store)
    tally, stored = recount(store, info, config)
    store.set_tournament_status(test_id, TournamentStatus.RUNNING)
    writer = _Writer(store, info, tally, on_progress)
    try:
        for outcome in executor.run(_jobs(info.id, tally, stored, node_launches(config.as_tournament(), store))):
            writer.add(outcome)
        writer.flush()
    except BaseException:
        interrupt(store, test_id, writer.flush)
        raise
    store.set_tournament_status(test_id, TournamentStatus.FINISHED)
    return existing_sprt(store, test_id)


def existing_sprt(store: Store, test_id: int) -> SprtInfo:
    """The stored test, or a UsageError that says where to find the tests."""
    found = store.sprt(test_id)
    if found is None:
        raise UsageError(f"no SPRT test {test_id} in {store.url}; `arena sprt --list` shows them")
    return found


def recount(store: Store, info: TournamentInfo, config: SprtConfig) -> tuple[Tally, set[int]]:
    """The tally of the stored games (stored again, history replaced) and their match indexes."""
    tally = Tally(config)
    matches = store.matches(tournament_id=info.id, limit=4 * config.max_pairs + 10)
    for match in matches:
        ranks = [seat.rank for seat in match.seats]
        seats = tuple(seat.entrant for seat in match.seats)
        finished = match.status == MatchStatus.FINISHED  # then every seat has its rank
        tally.add(match.match_index, game_points(config, seats, cast("list[int]", ranks)) if finished else None)
    store.save_sprt(info.id, tally.state(), tally.take_history(), replace_history=True)
    return tally, {m.match_index for m in matches}


def _jobs(test_id: int, tally: Tally, stored: set[int], launches: dict[str, NodeLaunch]) -> Iterator[MatchJob]:
    """The missing games pair after pair, until the tally is decided (checked before each pair);
    submitted versions launched on the node of their game (`launches`, arena/node/)."""
    config, pair = tally.config, tally.next_pair
    tournament = config.as_tournament()
    while not tally.done and pair < config.max_pairs:
        for match in pair_matches(config, pair):
            if match.index not in stored:
                yield match_job(test_id, tournament, match, launches=launches)
        pair += 1


class _Writer:
    """Buffers outcomes for at most FLUSH_SECONDS; writes them, then the test's state."""

    def __init__(self, store: Store, info: TournamentInfo, tally: Tally,
                 on_progress: Callable[[SprtProgress], None] | None) -> None:
        self.store, self.info, self.tally, self.on_progress = store, info, tally, on_progress
        self.buffer: list[MatchResult] = []
        self.played = 0
        self.started = self.last_flush = self.last_touch = time.monotonic()

    def add(self, outcome: JobOutcome) -> None:
        match = pair_matches(self.tally.config, outcome.job.key[1] // 2)[outcome.job.key[1] % 2]
        result = match_result(self.info, match, outcome)
        self.buffer.append(result)
        ranks: list[Any] = [seat.rank for seat in result.seats]  # ints unless aborted
        points = None if result.aborted_reason else game_points(self.tally.config, match.seats, ranks)
        self.tally.add(match.index, points)
        if time.monotonic() - self.last_flush >= FLUSH_SECONDS or self.tally.done:
            self.flush()

    def flush(self) -> None:
        self.store.record_matches(self.buffer)
        self.played += len(self.buffer)
        self.buffer = []
        self.store.save_sprt(self.info.id, self.tally.state(), self.tally.take_history())
        self.last_flush = time.monotonic()
        if self.last_flush - self.last_touch >= HEARTBEAT_SECONDS:
            self.store.touch_tournament(self.info.id)
            self.last_touch = self.last_flush
        if self.on_progress:
            self.on_progress(SprtProgress(self.tally.state(), self.played, self.last_flush - self.started))
