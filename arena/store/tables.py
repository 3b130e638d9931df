"""The SQLModel tables. Only arena/store uses them; callers get plain dataclasses back.

Seeds are 63-bit numbers, so every seed column is a BIGINT (PostgreSQL's INTEGER is 32 bits).
A match is unique by (tournament, match index) and by its text `key`: writing a result twice is
refused by the database itself, not only by a check in Python.

A change here needs a migration revision too (arena/store/migrations/__init__.py says how).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import BigInteger, Column, Index, LargeBinary, Text, UniqueConstraint, false, text
from sqlmodel import Field, SQLModel
from sqlmodel.sql.expression import Select

from arena.outcomes import Termination


def now() -> datetime:
    return datetime.now(UTC)


class AuthorRow(SQLModel, table=True):
    """A bot author who works through the authors' service with a key, of which only a hash is
    kept (arena/store/authors.py); bots with no author are the operator's."""

    __tablename__ = "author"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True)
    key_hash: str = Field(index=True)
    disabled: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    created_at: datetime = Field(default_factory=now)


class AuthorSessionRow(SQLModel, table=True):
    """A signed-in author's dashboard session (dashboards/author_sessions.py), shared by every
    dashboard on the database. Found by the hash of its id, which the cookie alone carries; the
    author's key and the once-shown notice are sealed (AES-GCM) under a secret the database lacks."""

    __tablename__ = "author_session"
    id_hash: str = Field(primary_key=True)  # sha256 of the session id, hex
    author: str = Field(index=True)
    csrf: str  # the session's form token: worth nothing without the cookie
    started: float
    seen: float = Field(index=True)  # written at most once a minute; the oldest go first past the cap
    bots: str = Field(sa_column=Column(Text, nullable=False))  # the author's bots as last listed, JSON
    key: bytes = Field(sa_column=Column(LargeBinary, nullable=False))  # sealed author key
    notice: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))  # sealed


class BotRow(SQLModel, table=True):
    """A registered external bot: it connects with a token, of which only a hash is kept.

    A removed bot keeps its row (with no token and `removed_at` set) so its name stays with its
    match history: it is not registered again under the same name.
    """

    __tablename__ = "bot"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True)
    token_hash: str = Field(index=True)
    command: str | None = None
    files: str | None = None  # folder of the bot's own files for a launched bot (BotInfo.files)
    created_at: datetime = Field(default_factory=now)
    disabled: bool = Field(default=False, sa_column_kwargs={"server_default": false()})  # may not connect or play
    removed_at: datetime | None = None
    author_id: int | None = Field(default=None, foreign_key="author.id", index=True)  # None: the operator's


class RetiredTokenRow(SQLModel, table=True):
    """A bot token that stopped working (rotated, or its bot removed), by its hash only: a bot that
    dials in with it is told what happened rather than "unknown token"."""

    __tablename__ = "retired_token"
    id: int | None = Field(default=None, primary_key=True)
    token_hash: str = Field(index=True)
    bot_id: int = Field(foreign_key="bot.id", index=True)
    why: str  # "rotated" or "removed"
    retired_at: datetime = Field(default_factory=now)


class SubmissionRow(SQLModel, table=True):
    """A submitted version of a registered bot: `NAME@number` runs `command` in `files`."""

    __tablename__ = "submission"
    __table_args__ = (UniqueConstraint("bot_id", "number"),)
    id: int | None = Field(default=None, primary_key=True)
    bot_id: int = Field(foreign_key="bot.id", index=True)
    number: int  # 1, 2, 3, ... per bot
    sha256: str  # the tree hash of its files (arena/submissions.py); "" when none were stored
    command: str
    files: str | None = None  # the stored read-only folder it runs from
    created_at: datetime = Field(default_factory=now)
    suspended_reason: str | None = None  # why the ladder stopped seating it (None: it may play)
    suspended_at: datetime | None = None
    validated_at: datetime | None = None  # when it passed its validation match (None: not yet, or rejected)
    # the ladder seats it although it is not its bot's latest version (`arena ladder keep NAME@N`)
    keep_active: bool = Field(default=False, sa_column_kwargs={"server_default": false()})


class BotVersionRow(SQLModel, table=True):
    """One version of an entrant as it played: a built-in spec (version: the arena's), a submitted
    version `NAME@N` (version: its files' sha256) or a connected bot (version: what it declared)."""

    __tablename__ = "bot_version"
    __table_args__ = (UniqueConstraint("name", "spec", "version"),)
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True)  # the entrant name that is rated, e.g. "random#2"
    spec: str  # what plays: a built-in bot spec or a registered bot's name
    kind: str  # "builtin", "submitted" or "connected"
    version: str
    created_at: datetime = Field(default_factory=now)


class TournamentRow(SQLModel, table=True):
    __tablename__ = "tournament"
    id: int | None = Field(default=None, primary_key=True)
    name: str = ""
    game_id: str = Field(index=True)
    ruleset: str = Field(index=True)
    kind: str
    config: str = Field(sa_column=Column(Text, nullable=False))  # TournamentConfig as JSON
    status: str = Field(index=True)  # running, interrupted, finished
    total_matches: int
    created_at: datetime = Field(default_factory=now)
    updated_at: datetime = Field(default_factory=now)
    finished_at: datetime | None = None
    # what last happened to it, one line (a ladder's account of a fault: docs/operations.md)
    note: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))


class MatchRow(SQLModel, table=True):
    __tablename__ = "match"
    __table_args__ = (
        UniqueConstraint("tournament_id", "match_index"),
        Index("ix_match_ruleset_order", "ruleset", "tournament_id", "match_index"),
        # the dashboard's: a match row carries its whole record (about 1 kB compressed, stored
        # before `finished_at`), so "last played" reads `finished_at` from a covering index instead of
        # the row (which also covers the per-ruleset counts and joins)
        Index("ix_match_ruleset_status_finished", "ruleset", "status", "id", "finished_at"),
        Index("ix_match_game_order", "game_id", "tournament_id", "match_index"),
    )
    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True)  # "t<tournament>:m<index>"
    tournament_id: int = Field(foreign_key="tournament.id", index=True)
    match_index: int
    round: int
    table_no: int
    rotation: int
    game_id: str = Field(index=True)
    ruleset: str
    num_players: int
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    chance_seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    status: str = Field(index=True)  # finished or aborted (aborted matches are not rated)
    aborted_reason: str | None = None
    decisions: int = 0
    duration_ms: float = 0.0
    attempts: int = 1  # how many times it was started (more than 1 when a worker died)
    node: str = ""  # the node that played it (arena/match/executor.py node_name); "" before migration 0010
    # MatchRecord's JSON text, zlib-compressed (arena/store/record_codec.py); None: pruned
    record: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    finished_at: datetime = Field(default_factory=now, index=True)


# the seats in ix_seat_entrant_faulted; a query that reads it says so in these words (SQLite uses a
# partial index only for a query whose WHERE holds its condition as written)
FAULTED = "termination != 'normal'"


class SeatRow(SQLModel, table=True):
    __tablename__ = "seat"
    __table_args__ = (
        UniqueConstraint("match_id", "seat"),
        # the dashboard's head-to-head and bot pages look seats up by entrant and join on the match
        Index("ix_seat_entrant_match", "entrant", "match_id"),
        Index("ix_seat_match_cover", "match_id", "entrant", "rank", "bot_version_id"),
        # its matches list filtered by a fault: the faulted seats alone (migration 0024)
        Index("ix_seat_faulted_match", "termination", "match_id", sqlite_where=text(FAULTED),
              postgresql_where=text(FAULTED)),
        # a bot's fault history: its faulted seats, newest first, without reading all its seats. Only
        # the seats that did not end normally are in it (migration 0023): a seat written adds to one
        # index keyed by entrant, not two, and each is a page write at a random place at 10k bots
        Index("ix_seat_entrant_faulted", "entrant", "match_id", sqlite_where=text(FAULTED),
              postgresql_where=text(FAULTED)),
    )
    id: int | None = Field(default=None, primary_key=True)
    # neither has an index of its own: the unique (match_id, seat) and ix_seat_entrant_match serve them
    match_id: int = Field(foreign_key="match.id")
    seat: int
    entrant: str
    bot_version_id: int = Field(foreign_key="bot_version.id")
    score: float | None = None
    rank: int | None = None
    termination: str = Termination.NORMAL
    reason: str = ""
    # the seat's strikes: faulty decisions (timeouts, illegal or malformed answers), each replaced
    # by a random legal action; a disconnect or crash is none (docs/protocol.md, "Faults")
    faults: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class BotLogRow(SQLModel, table=True):
    """A launched bot's output while one stored match was open, for one seat (arena/store/bot_logs.py).

    Private: read only by `arena bot logs` and the authors' service, never by the dashboard."""

    __tablename__ = "bot_log"
    __table_args__ = (UniqueConstraint("match_id", "seat"), Index("ix_bot_log_match_bot", "match_id", "bot"))
    id: int | None = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="match.id")
    seat: int
    bot: str  # the registered bot's name (of NAME@N)
    version: int | None = None  # N of NAME@N; None when unversioned
    termination: str
    reason: str
    text: str = Field(sa_column=Column(Text, nullable=False))  # its last 64 KiB at most
    # JSON [[step, character offset into text], ...]: where each decision's part starts; None before 0015
    decisions: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class RatingRow(SQLModel, table=True):
    """The current rating of an entrant under one ruleset (rebuilt by every rerate). Its elo is also
    the entrant's newest rating-history value, at point `point_id`, not also a rating_history row
    (arena/store/rating_history.py, migration 0025)."""

    __tablename__ = "rating"
    ruleset: str = Field(primary_key=True)
    entrant: str = Field(primary_key=True)
    game_id: str = Field(index=True)
    elo: float
    low: float  # the 95 % likelihood interval of the rating (arena/rating.py); -inf/inf: unknown
    high: float
    games: int
    wins: float  # first places; a shared first place counts as 1/(number sharing it)
    strikes: int  # faulty decisions (SeatRow.faults summed)
    forfeits: int  # rated matches whose seat termination was not normal
    updated_at: datetime = Field(default_factory=now)
    # the history point (RatingPointRow.id) that was the newest when this rating was last written;
    # the elo becomes that point's row when the rating is written again at a newer one. No foreign
    # key: thinning moves it on to the next kept point (rating_history.py) before dropping a point.
    point_id: int | None = None


class RatingPointRow(SQLModel, table=True):
    """A point of a ruleset's rating history: the fit over its matches up to `position`.

    Its position lives here once, not in each entrant's row: a live update's newest point moves on
    to the next position by changing this row alone (arena/store/rating_history.py, migration 0022)."""

    __tablename__ = "rating_point"
    # a ruleset's points in order: its positions, its newest
    __table_args__ = (Index("ix_rating_point_position", "ruleset", "position", unique=True),)
    id: int | None = Field(default=None, primary_key=True)
    ruleset: str
    position: int  # the newest rated match's place in rating order (0, 1, 2, ... over the ruleset)
    match_id: int = Field(foreign_key="match.id")  # that match


class RatingHistoryRow(SQLModel, table=True):
    """An entrant's rating at a point of the rating history (RatingPointRow). A point holds the
    entrants whose rating changed since the point before; the others' is their last before it."""

    __tablename__ = "rating_history"
    # SQLite: a point's rows stored together in key order, the key once (migration 0022)
    __table_args__ = (Index("ix_rating_history_entrant", "entrant", "point_id"), {"sqlite_with_rowid": False})
    # No foreign key: PostgreSQL checked it per row written, locking the point's row each time (40 %
    # of inserting 3,282 rows at 10k bots, migration 0025); arena/store/rating_history.py writes and
    # deletes a point's rows with the point, and tests/arena/store/test_rating_history.py checks it.
    point_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    entrant: str = Field(primary_key=True)
    elo: float


class SprtRow(SQLModel, table=True):
    """The state of an SPRT test (its games are the matches of tournament `tournament_id`)."""

    __tablename__ = "sprt"
    tournament_id: int = Field(foreign_key="tournament.id", primary_key=True)
    pairs: int = 0  # pairs counted, in pair order (a pair with an aborted game is skipped)
    aborted_pairs: int = 0
    pentanomial: str = Field(sa_column=Column(Text, nullable=False))  # [n0, n½, n1, n1½, n2] as JSON
    llr: float = 0.0
    lower: float  # the LLR bounds: H0 at or below, H1 at or above
    upper: float
    elo: float = 0.0  # the Elo estimate in the test's model, with its 95 % interval
    low: float
    high: float
    los: float = 0.5
    verdict: str | None = None  # H0, H1, or undecided (max pairs reached); None while it runs
    updated_at: datetime = Field(default_factory=now)


class SprtLlrRow(SQLModel, table=True):
    """The LLR of an SPRT after each counted pair: the curve the dashboard draws."""

    __tablename__ = "sprt_llr"
    tournament_id: int = Field(foreign_key="tournament.id", primary_key=True)
    pairs: int = Field(primary_key=True)
    llr: float


class LiveMatchRow(SQLModel, table=True):
    """A match being played now: its steps so far, written by the driver every second or so
    (arena/match/live.py); the row goes when the match's result is stored or its tournament stops."""

    __tablename__ = "live_match"
    tournament_id: int = Field(foreign_key="tournament.id", primary_key=True)
    match_index: int = Field(primary_key=True)
    table_no: int
    rotation: int
    # shared by the rotations of one table (duplicate play): the dashboard shows a live match
    # only as far as its running siblings have drawn chance (dashboards/live.py); never shown
    chance_seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    seats: str = Field(sa_column=Column(Text, nullable=False))  # entrant names by seat, JSON
    steps: str = Field(sa_column=Column(Text, nullable=False))  # the record's steps so far, JSON
    num_steps: int
    chance_steps: int  # how many of them are chance outcomes
    updated_at: datetime = Field(default_factory=now)


class LadderMatchRow(SQLModel, table=True):
    """A match the ladder planned (arena/ladder/driver.py), stored before it is played: after a
    kill -9 the ladder plays the planned matches without a stored result first, with the same
    seats and seeds, so nothing planned is lost and nothing is played twice (the match key)."""

    __tablename__ = "ladder_match"
    tournament_id: int = Field(foreign_key="tournament.id", primary_key=True)
    match_index: int = Field(primary_key=True)
    table_no: int
    rotation: int
    seats: str = Field(sa_column=Column(Text, nullable=False))  # entrant names by seat, JSON
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    chance_seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    why: str  # the matchmaking step that chose the table: waited, random, focus, or anchor
    planned_at: datetime = Field(default_factory=now)


# -- aggregates, kept up to date as matches are written (arena/store/aggregates.py) ----------------
# The dashboard's figures read these instead of the seat and match rows, so a page costs the same
# at ten million matches as at ten. Each is added to in the transaction that stores its matches.


class RulesetStatsRow(SQLModel, table=True):
    """How many matches of a ruleset are stored, finished and aborted, and how many are rated."""

    __tablename__ = "ruleset_stats"
    ruleset: str = Field(primary_key=True)
    game_id: str = Field(index=True)
    finished: int = 0
    aborted: int = 0
    rated: int = 0  # finished and not in an SPRT test: the matches the rating counts (Queries.rated_span)


class TournamentStatsRow(SQLModel, table=True):
    """How many matches of a tournament are stored, finished and aborted (a ladder's keep growing)."""

    __tablename__ = "tournament_stats"
    tournament_id: int = Field(foreign_key="tournament.id", primary_key=True)
    finished: int = 0
    aborted: int = 0


class EntrantStatsRow(SQLModel, table=True):
    """An entrant's stored matches of one ruleset (finished and aborted alike, as the bot pages count)."""

    __tablename__ = "entrant_stats"
    ruleset: str = Field(primary_key=True)
    entrant: str = Field(primary_key=True, index=True)
    matches: int = 0  # seats it sat in
    strikes: int = 0  # SeatRow.faults summed
    forfeits: int = 0  # seats that ended in a fault (dashboard_queries.FAULT_TERMINATIONS)
    last_match_id: int = 0  # its newest stored match (ids grow in the order matches are stored)
    last_played: datetime = Field(default_factory=now)  # that match's finished_at
    version_id: int = 0  # the newest bot_version it played the ruleset as (the highest id)
    # the same over its rated matches only (finished, not SPRT games: Queries.rated_matches), what
    # the rating table shows beside each rating (Queries.entrant_totals)
    rated_games: int = 0
    # first places in shares of 1/WIN_SHARES (arena/store/aggregates.py); a place shared by n is
    # WIN_SHARES/n of them: a whole number, so the sum is the same in whatever order matches come
    rated_win_shares: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    rated_strikes: int = 0
    rated_forfeits: int = 0  # rated seats whose termination was not normal


class EntrantRow(SQLModel, table=True):
    """An entrant's number (pair_stats keys pairs by these: migration 0021). Given when its first
    pair is stored (arena/store/aggregates.py `entrant_numbers`), never changed or taken back."""

    __tablename__ = "entrant"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)


class PairStatsRow(SQLModel, table=True):
    """Two entrants (a before b by name) at the finished tables of a ruleset they shared: who
    finished ahead, and the rating's sufficient statistic over the rated ones (not SPRT games):
    PairTotal. a and b are entrant numbers (EntrantRow): a refit reads millions of these rows."""

    __tablename__ = "pair_stats"
    # SQLite: rows stored in key order, the key once (not in the table and again in its index): migration 0019
    __table_args__ = {"sqlite_with_rowid": False}
    ruleset: str = Field(primary_key=True)
    a: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    b: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    matches: int = 0
    a_ahead: int = 0
    b_ahead: int = 0
    ties: int = 0
    # the rating's pairwise games in shares of 1/PAIR_SHARES (arena/store/aggregates.py): each rated
    # k-player match adds PAIR_SHARES/(k-1), a whole number, so the sums are exact in any order and a
    # refit reads them as integers (migration 0021)
    weight_shares: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    score_shares: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))  # a's (1 a win, ½ a tie)


def select_columns(*columns: Any) -> Select[*tuple[Any, ...]]:
    """`sqlmodel.select` of five or more columns, as it builds it at run time: its typed overloads
    stop at four, so mypy refuses the wider selects the queries use for their speed (rows as tuples)."""
    return Select(*columns)
