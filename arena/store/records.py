"""Plain values that go into and come out of the store (no ORM objects escape arena/store)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from numpy.typing import NDArray

from arena.outcomes import Termination, TournamentStatus

# A rating is provisional while its 95 % interval is wider than ±PROVISIONAL_HALF_WIDTH Elo: about
# 45 games against opponents of like strength (the half-width falls as ~680/sqrt(games)). The
# ladder gives provisional versions their games first; the leaderboard and the dashboard mark them.
PROVISIONAL_HALF_WIDTH = 100.0


def is_provisional(low: float, high: float) -> bool:
    """True while the interval [low, high] is wider than ±PROVISIONAL_HALF_WIDTH (or unbounded)."""
    return (high - low) / 2 > PROVISIONAL_HALF_WIDTH


@dataclass(frozen=True)
class BotInfo:
    """A registered external bot (its token is never stored, only a hash of it)."""

    id: int
    name: str
    command: str | None
    created_at: datetime
    # the folder of the bot's own files that a launched bot runs from (read-only in its
    # sandbox), or None: a launched bot then sees only the system runtime
    files: str | None = None
    disabled: bool = False  # `arena bot disable NAME`: it may not connect or be seated

    def refusal(self) -> str | None:
        """Why this bot may not connect or play now (it is disabled), else None."""
        if self.disabled:
            return f"bot {self.name!r} is disabled by the arena's organiser (`arena bot enable {self.name}` lifts it)"
        return None


@dataclass(frozen=True)
class RetiredToken:
    """A token that stopped working: whose it was, why ("rotated" or "removed") and when."""

    bot: str
    why: str
    at: datetime


AWAITING_VALIDATION = "waiting for its validation match (the ladder seats it once it passes)"


@dataclass(frozen=True)
class BotVersion:
    """A submitted version of a registered bot: what `NAME@number` launches."""

    bot: str
    number: int
    sha256: str  # the tree hash of its stored files ("" for a command registered without files)
    command: str
    files: str | None
    created_at: datetime
    suspended: str | None = None  # why it may not play until a new version or `arena bot enable`
    validated: bool = True  # it passed its validation match (arena/ladder/validation.py): the ladder may seat it

    @property
    def entrant(self) -> str:
        """The name it plays and is rated under: `NAME@N`."""
        return f"{self.bot}@{self.number}"

    @property
    def hold(self) -> str:
        """Why the ladder holds it back, for its author and the operator: "" (it may be seated), the
        reason it was rejected or suspended, or that it waits for its validation match."""
        return self.suspended or ("" if self.validated else AWAITING_VALIDATION)


@dataclass(frozen=True)
class SeatResult:
    """One seat of a finished match, as stored."""

    seat: int
    entrant: str
    spec: str
    kind: str = "builtin"  # or "submitted" or "connected"
    version: str = "builtin"
    score: float | None = None
    rank: int | None = None
    termination: str = Termination.NORMAL
    reason: str = ""
    faults: int = 0  # faulty decisions that did not end the seat (strikes)


@dataclass(frozen=True)
class MatchResult:
    """A played match, ready to be written once: its place in the schedule and its record."""

    tournament_id: int
    match_index: int
    round: int
    table_no: int
    rotation: int
    game_id: str
    ruleset: str
    seed: int
    chance_seed: int
    seats: list[SeatResult]
    record: dict[str, Any]
    aborted_reason: str | None = None
    decisions: int = 0
    duration_ms: float = 0.0
    attempts: int = 1
    node: str = ""  # the node that played it ("" when not known: played before nodes were recorded)
    # PRIVATE: launched bots' logs by seat (what each printed while the match was open), stored
    # in bot_log, never in `record` (arena/match/record.py split_logs)
    logs: dict[int, str] = field(default_factory=dict)
    # PRIVATE, with `logs`: where each decision's part of a seat's log starts, [[step, character offset], ...]
    log_steps: dict[int, list[list[int]]] = field(default_factory=dict)
    # `record` as stored (arena/record_encoding.py `encode_record`), made where the match was
    # played so that the writer only inserts; None: the writer encodes `record` itself
    encoded_record: bytes | None = field(default=None, repr=False)

    @property
    def key(self) -> str:
        return match_key(self.tournament_id, self.match_index)


def match_key(tournament_id: int, match_index: int) -> str:
    return f"t{tournament_id}:m{match_index}"


@dataclass(frozen=True)
class BotLog:
    """What a launched bot printed while one stored match was open, for one seat it played.

    Private to the bot's author and the operator: it may show the bot's hidden information."""

    match_id: int  # the stored match's id (the dashboard's /matches/ID)
    seat: int
    bot: str  # the registered bot's name
    version: int | None  # N of NAME@N, None when the seat played the bot unversioned
    termination: str  # the seat's, as stored with the match
    reason: str
    text: str  # its last 64 KiB at most (the launcher's output_bytes)
    # where each decision's part of `text` starts: (step, character offset), oldest first
    decisions: list[tuple[int, int]] = field(default_factory=list)

    def by_decision(self) -> dict[int, str]:
        """What it printed from each decision's request to the next one's, by step (a decision
        whose start fell off the kept tail has none)."""
        ends = [start for _, start in self.decisions[1:]] + [len(self.text)]
        return {step: self.text[start:end] for (step, start), end in zip(self.decisions, ends)}


@dataclass(frozen=True)
class TournamentInfo:
    id: int
    name: str
    game_id: str
    ruleset: str
    kind: str
    config: dict[str, Any]
    status: str
    total_matches: int
    done_matches: int
    aborted_matches: int
    created_at: datetime
    finished_at: datetime | None
    updated_at: datetime | None = None  # a running driver touches it every few seconds
    note: str = ""  # what last happened to it, one line (a ladder's account of a fault)

    def seems_stopped(self, now: datetime, after_s: float = 60.0) -> bool:
        """Status `running` but no sign of life for `after_s`: its driver was probably killed."""
        if self.status != TournamentStatus.RUNNING or self.updated_at is None:
            return False
        updated = self.updated_at if self.updated_at.tzinfo else self.updated_at.replace(tzinfo=now.tzinfo)
        return (now - updated).total_seconds() > after_s


@dataclass(frozen=True)
class RatedMatch:
    """What rating needs of a stored match: its order and each seat's entrant, rank, strikes, forfeit."""

    match_id: int
    order: tuple[int, int]  # (tournament id, match index): the rating order
    entrants: tuple[str, ...]
    ranks: tuple[int, ...]
    strikes: tuple[int, ...]  # the seat's faulty decisions (each replaced by a random action)
    forfeits: tuple[bool, ...]  # the seat's match ended in a fault (its termination is not normal)


@dataclass(frozen=True)
class PairTotal:
    """The rating's sufficient statistic for one pair of entrants under one ruleset, over every rated
    match so far: the pairwise games between a and b (each k-player match adds 1/(k-1)) and a's score
    in them (1 a win, 1/2 a tie, 0 a loss, with the same weight). a < b."""

    a: str
    b: str
    weight: float
    score: float  # a's


@dataclass(frozen=True)
class PairColumns:
    """PairTotals as four arrays (one entry per pair; a's name sorts before b's), the entrants as
    numbers, `names` naming them: a ruleset's are read in chunks of these (`Queries.pair_chunks`,
    the store's entrant numbers), a big field's millions of pairs without an object per pair."""

    a: NDArray[np.int64]
    b: NDArray[np.int64]
    weight: NDArray[np.float64]
    score: NDArray[np.float64]  # a's
    names: Mapping[int, str]  # every number in a and b (perhaps more)

    @classmethod
    def of(cls, totals: Iterable[PairTotal]) -> PairColumns:
        """The totals' columns, their entrants numbered in the order met."""
        pairs = list(totals)
        numbers: dict[str, int] = {}
        for pair in pairs:
            numbers.setdefault(pair.a, len(numbers))
            numbers.setdefault(pair.b, len(numbers))
        return cls(np.array([numbers[p.a] for p in pairs], np.int64), np.array([numbers[p.b] for p in pairs], np.int64),
                   np.array([p.weight for p in pairs], np.float64), np.array([p.score for p in pairs], np.float64),
                   {number: name for name, number in numbers.items()})


@dataclass(frozen=True)
class EntrantTotal:
    """What the rating table shows beside a rating, over every rated match of one ruleset so far."""

    entrant: str
    games: int
    wins: float  # a shared first place counts 1/(number of winners)
    strikes: int
    forfeits: int


def pair_score(rank: int, other_rank: int) -> float:
    """1 for the better rank (1 is best), ½ for a tie, 0 for the worse."""
    return 1.0 if rank < other_rank else 0.5 if rank == other_rank else 0.0


def match_pairs(match: RatedMatch) -> Iterator[tuple[str, str, float, float]]:
    """A rated match's pairwise results (a, b, weight, a's score): every pair of seats by rank, each
    weighted 1/(k-1) in a k-player match, so that the match weighs one two-player game per seat."""
    k = len(match.entrants)
    for i in range(k):
        for j in range(i + 1, k):
            yield (match.entrants[i], match.entrants[j], 1 / (k - 1),
                   pair_score(match.ranks[i], match.ranks[j]) / (k - 1))


@dataclass(frozen=True)
class RatingEntry:
    entrant: str
    elo: float
    low: float  # the 95 % interval of the rating (-inf/inf: unknown)
    high: float
    games: int
    wins: float
    strikes: int  # faulty decisions in all its rated matches
    forfeits: int  # rated matches it forfeited (timeouts past max strikes, disconnects, crashes)

    @property
    def provisional(self) -> bool:
        return is_provisional(self.low, self.high)


@dataclass(frozen=True)
class LeaderboardRow:
    place: int
    entrant: str
    game_id: str
    ruleset: str
    elo: float
    low: float
    high: float
    games: int
    wins: float
    strikes: int  # as in RatingEntry
    forfeits: int
    suspended: str | None = None  # a submitted version the ladder stopped seating: why (it stays listed)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def provisional(self) -> bool:
        return is_provisional(self.low, self.high)


@dataclass(frozen=True)
class HistoryPoint:
    position: int
    match_id: int
    elo: float


@dataclass(frozen=True)
class MatchSummary:
    id: int
    key: str
    tournament_id: int
    match_index: int
    game_id: str
    ruleset: str
    status: str
    aborted_reason: str | None
    seed: int
    chance_seed: int
    decisions: int
    duration_ms: float
    finished_at: datetime
    attempts: int = 1  # more than 1 when a worker died and the match was played again
    seats: list[SeatResult] = field(default_factory=list)
    node: str = ""  # the node that played it ("" when not recorded)
