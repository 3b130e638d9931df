"""The database: SQLModel tables and the queries on them — the only package that imports sqlmodel.

SQLite in `arena.db` by default (or `$ARENA_DB`), any SQLAlchemy URL otherwise, e.g.
`postgresql+psycopg://user@127.0.0.1:5432/arena`. Callers get plain dataclasses back, never
ORM objects, so nothing outside this package depends on a session being open.

Tables (arena/store/tables.py): bot (registered external bots, hashed tokens, disabled or removed:
arena/store/bots.py), submission (their versions NAME@N: command, stored files, tree hash),
bot_version (what played each seat), tournament (config JSON, status), match (unique key, seeds, the
record compressed: arena/store/record_codec.py; export and prune: arena/store/retention.py), seat
(entrant, score, rank, termination), rating, rating_point and rating_history (the history's points,
and entrants' ratings at them: arena/store/rating_history.py), sprt and sprt_llr (an SPRT test's
state and its LLR after every pair; its games are the matches of a tournament of kind `sprt`),
live_match (the steps so far of the matches being played, for live watching: arena/store/live.py),
bot_log (what each launched bot printed during a stored match, per seat: private to its author and
the operator, arena/store/bot_logs.py), ladder_match (the matches a ladder planned, so a restart
plays them: arena/store/ladder.py), ruleset_stats, entrant_stats and pair_stats (the dashboard's
counts and the rating's pair totals, added to in the transaction that writes the matches:
arena/store/aggregates.py).
Their schema evolves by Alembic revisions in arena/store/migrations (its docstring says how to add
one); opening a database brings it to the newest revision.
"""

from arena.store.authors import AuthorInfo
from arena.store.bots import hash_token
from arena.store.connect import DEFAULT_DB_URL, OUTAGE_ERRORS, default_db_url, open_engine, sqlite_file
from arena.store.database import Store, check_bot_name
from arena.store.ladder import LADDER_KIND, LadderMatch, LadderVersion
from arena.store.live import LiveMatch
from arena.store.records import (
    BotInfo,
    BotLog,
    BotVersion,
    EntrantTotal,
    HistoryPoint,
    LeaderboardRow,
    MatchResult,
    MatchSummary,
    PairColumns,
    PairTotal,
    RatedMatch,
    RatingEntry,
    RetiredToken,
    SeatResult,
    TournamentInfo,
    match_key,
    match_pairs,
    pair_score,
)
from arena.store.sprt_tests import SPRT_KIND, SprtInfo, SprtState

__all__ = [
    "DEFAULT_DB_URL",
    "OUTAGE_ERRORS",
    "AuthorInfo",
    "BotInfo",
    "BotLog",
    "BotVersion",
    "EntrantTotal",
    "HistoryPoint",
    "LADDER_KIND",
    "LadderMatch",
    "LadderVersion",
    "LeaderboardRow",
    "LiveMatch",
    "MatchResult",
    "MatchSummary",
    "PairColumns",
    "PairTotal",
    "RatedMatch",
    "RatingEntry",
    "RetiredToken",
    "SPRT_KIND",
    "SeatResult",
    "SprtInfo",
    "SprtState",
    "Store",
    "TournamentInfo",
    "check_bot_name",
    "default_db_url",
    "hash_token",
    "match_key",
    "match_pairs",
    "pair_score",
    "open_engine",
    "sqlite_file",
]
