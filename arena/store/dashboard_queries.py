"""Read-only queries the dashboard needs beyond arena.store.queries: pages of matches filtered by
termination, head-to-head records and LOS inputs, bot pages, fault history, last-played times.

Functions take the `Store` and return plain dataclasses. The indexes these queries lean on are
part of the schema (arena/store/tables.py and its migrations).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, func, or_
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from arena.outcomes import MatchStatus, Termination
from arena.store.database import Store
from arena.store.queries import _seats_of
from arena.store.records import LeaderboardRow, MatchSummary
from arena.store.tables import (
    BotVersionRow,
    LiveMatchRow,
    MatchRow,
    RatingHistoryRow,
    RatingRow,
    SeatRow,
    TournamentRow,
)

# A seat that ended like this is the bot's fault; "aborted" is the arena's, never the bot's.
FAULT_TERMINATIONS = (Termination.TIMEOUT, Termination.ILLEGAL_ACTION, Termination.PROTOCOL_ERROR, Termination.DISCONNECT,
                      Termination.CRASH)
ANY_FAULT = "any_fault"


@dataclass(frozen=True)
class VersionInfo:
    """One version of an entrant as it played."""

    spec: str
    kind: str
    version: str
    first_seen: datetime


@dataclass(frozen=True)
class BotSummary:
    """An entrant across all games: how often it played, struck and forfeited, and when it last played."""

    name: str
    matches: int
    strikes: int  # faulty decisions
    forfeits: int  # matches whose seat ended in a fault
    last_played: datetime | None


@dataclass(frozen=True)
class PairRecord:
    """Two entrants' results at the tables they shared: who finished ahead of whom."""

    a: str
    b: str
    matches: int
    a_ahead: int
    b_ahead: int
    ties: int


@dataclass(frozen=True)
class FaultEntry:
    """A seat that ended by a fault, with the reason a person can read."""

    match_id: int
    match_key: str
    tournament_id: int
    game_id: str
    ruleset: str
    seat: int
    termination: str
    reason: str
    finished_at: datetime


# -- matches ------------------------------------------------------------------------------------


def match_page(
    store: Store, *, game_id: str | None = None, ruleset: str | None = None, entrant: str | None = None,
    tournament_id: int | None = None, termination: str | None = None, limit: int = 50, offset: int = 0,
) -> tuple[list[MatchSummary], int]:
    """One page of matches (newest first) with its seats, and how many match the filters in all."""
    filters = dict(game_id=game_id, ruleset=ruleset, entrant=entrant, tournament_id=tournament_id,
                   termination=termination)
    with Session(store.engine) as session:
        total = int(session.exec(_filtered(select(func.count(col(MatchRow.id))), **filters)).one())
        query = _filtered(select(*SUMMARY_COLUMNS), **filters).order_by(
            col(MatchRow.tournament_id).desc(), col(MatchRow.match_index).desc()
        ).limit(limit).offset(offset)
        return _summaries(session, query), total


def match_summary(store: Store, match_id: int) -> MatchSummary | None:
    """One stored match with its seats (without the record), or None."""
    with Session(store.engine) as session:
        found = _summaries(session, select(*SUMMARY_COLUMNS).where(MatchRow.id == match_id))
    return found[0] if found else None


# Every column a MatchSummary needs: the record (the bulk of a row) stays on disk.
SUMMARY_COLUMNS = (
    MatchRow.id, MatchRow.key, MatchRow.tournament_id, MatchRow.match_index, MatchRow.game_id, MatchRow.ruleset,
    MatchRow.status, MatchRow.aborted_reason, MatchRow.seed, MatchRow.chance_seed, MatchRow.decisions,
    MatchRow.duration_ms, MatchRow.finished_at, MatchRow.node,
)


def _summaries(session: Session, query: Any) -> list[MatchSummary]:
    rows = session.exec(query).all()
    seats = _seats_of(session, [row[0] for row in rows])
    return [MatchSummary(*row[:-1], seats=seats.get(row[0], []), node=row[-1]) for row in rows]


def _filtered(query: Any, *, game_id: str | None, ruleset: str | None, entrant: str | None,
              tournament_id: int | None, termination: str | None) -> Any:
    conditions = []
    if game_id is not None:
        conditions.append(MatchRow.game_id == game_id)
    if ruleset is not None:
        conditions.append(MatchRow.ruleset == ruleset)
    if tournament_id is not None:
        conditions.append(MatchRow.tournament_id == tournament_id)
    if entrant is not None:
        conditions.append(col(MatchRow.id).in_(select(SeatRow.match_id).where(SeatRow.entrant == entrant)))
    if termination is not None:
        wanted = FAULT_TERMINATIONS if termination == ANY_FAULT else (termination,)
        seated = select(SeatRow.match_id).where(col(SeatRow.termination).in_(wanted))
        conditions.append(col(MatchRow.id).in_(seated))
    return query.where(and_(*conditions)) if conditions else query


def rulesets(store: Store, game_id: str | None = None) -> list[str]:
    """Rulesets with stored matches (of one game, or of all), sorted; read from the ruleset index
    alone, where filtering on the game would read every match row."""
    with Session(store.engine) as session:
        found = list(session.exec(select(MatchRow.ruleset).distinct().order_by(MatchRow.ruleset)))
    return [r for r in found if game_id is None or r.split("@", 1)[0] == game_id]


def rating_histories(store: Store, ruleset: str, entrants: list[str]) -> dict[str, list[tuple[int, float]]]:
    """Each entrant's (position, elo) history points in rating order, in one query."""
    query = (
        select(RatingHistoryRow.entrant, RatingHistoryRow.position, RatingHistoryRow.elo)
        .where(RatingHistoryRow.ruleset == ruleset, col(RatingHistoryRow.entrant).in_(entrants))
        .order_by(RatingHistoryRow.entrant, RatingHistoryRow.position)
    )
    histories: dict[str, list[tuple[int, float]]] = {name: [] for name in entrants}
    with Session(store.engine) as session:
        for entrant, position, elo in session.exec(query):
            histories[entrant].append((position, elo))
    return histories


def count_tournaments(store: Store) -> int:
    """How many tournaments are stored."""
    with Session(store.engine) as session:
        return int(session.exec(select(func.count(col(TournamentRow.id)))).one())


# -- entrants -----------------------------------------------------------------------------------


def entrant_names(store: Store) -> list[str]:
    """Every entrant that has played a stored match, by name."""
    with Session(store.engine) as session:
        return list(session.exec(select(BotVersionRow.name).distinct().order_by(BotVersionRow.name)))


def bot_summaries(store: Store) -> list[BotSummary]:
    """Every entrant with its match, strike and forfeit counts and its last match, by name."""
    forfeited = func.sum(case((col(SeatRow.termination).in_(FAULT_TERMINATIONS), 1), else_=0))
    query = (
        select(SeatRow.entrant, func.count(col(SeatRow.id)), func.sum(SeatRow.faults), forfeited,
               func.max(SeatRow.match_id))
        .group_by(SeatRow.entrant).order_by(SeatRow.entrant)
    )
    with Session(store.engine) as session:
        rows = session.exec(query).all()
        # Matches are stored in the order they finish, so an entrant's newest match has its highest id.
        latest = [row[4] for row in rows]
        finished = dict(session.exec(select(MatchRow.id, MatchRow.finished_at).where(col(MatchRow.id).in_(latest))).all())
    return [BotSummary(name, n, int(s or 0), int(f or 0), finished.get(last)) for name, n, s, f, last in rows]


def entrant_versions(store: Store, name: str) -> list[VersionInfo]:
    """The versions an entrant played as, oldest first."""
    query = select(BotVersionRow).where(BotVersionRow.name == name).order_by(BotVersionRow.id)
    with Session(store.engine) as session:
        return [VersionInfo(r.spec, r.kind, r.version, r.created_at) for r in session.exec(query)]


def latest_versions(store: Store, ruleset: str) -> dict[str, VersionInfo]:
    """The version each entrant last played a ruleset as (its newest recorded version there)."""
    newest = (
        select(SeatRow.entrant, func.max(SeatRow.bot_version_id).label("version_id"))
        .join(MatchRow, col(MatchRow.id) == col(SeatRow.match_id))
        .where(MatchRow.ruleset == ruleset).group_by(SeatRow.entrant).subquery()
    )
    query = select(BotVersionRow).join(newest, newest.c.version_id == col(BotVersionRow.id))
    with Session(store.engine) as session:
        return {r.name: VersionInfo(r.spec, r.kind, r.version, r.created_at) for r in session.exec(query)}


def entrant_ratings(store: Store, name: str) -> list[LeaderboardRow]:
    """An entrant's rating in every ruleset it is rated in, with its place on that leaderboard."""
    with Session(store.engine) as session:
        rows = list(session.exec(select(RatingRow).where(RatingRow.entrant == name).order_by(RatingRow.ruleset)))
        places = {
            r.ruleset: 1 + int(session.exec(select(func.count()).where(
                RatingRow.ruleset == r.ruleset,
                or_(RatingRow.elo > r.elo, and_(RatingRow.elo == r.elo, RatingRow.entrant < r.entrant)),
            )).one())
            for r in rows
        }
    return [LeaderboardRow(places[r.ruleset], r.entrant, r.game_id, r.ruleset, r.elo, r.low, r.high, r.games, r.wins,
                           r.strikes, r.forfeits) for r in rows]


def last_played(store: Store, ruleset: str) -> dict[str, datetime]:
    """When each entrant last finished a match of a ruleset."""
    query = (
        select(SeatRow.entrant, func.max(MatchRow.finished_at))
        .join(MatchRow, col(MatchRow.id) == col(SeatRow.match_id))
        .where(MatchRow.ruleset == ruleset).group_by(SeatRow.entrant)
    )
    with Session(store.engine) as session:
        return dict(session.exec(query).all())


def fault_history(store: Store, name: str, *, limit: int = 50, offset: int = 0) -> tuple[list[FaultEntry], int]:
    """The seats an entrant lost to a fault, newest first, and how many there are in all."""
    where = and_(SeatRow.entrant == name, col(SeatRow.termination).in_(FAULT_TERMINATIONS))
    query = (
        select(SeatRow, MatchRow.key, MatchRow.tournament_id, MatchRow.game_id, MatchRow.ruleset,
               MatchRow.finished_at)
        .join(MatchRow, col(MatchRow.id) == col(SeatRow.match_id)).where(where)
        .order_by(col(MatchRow.finished_at).desc(), col(SeatRow.id).desc()).limit(limit).offset(offset)
    )
    with Session(store.engine) as session:
        total = int(session.exec(select(func.count(col(SeatRow.id))).where(where)).one())
        entries = [
            FaultEntry(seat.match_id, key, tid, game, ruleset, seat.seat, seat.termination, seat.reason, when)
            for seat, key, tid, game, ruleset, when in session.exec(query)
        ]
    return entries, total


# -- head to head -------------------------------------------------------------------------------


def pair_records(store: Store, ruleset: str, entrant: str | None = None) -> dict[tuple[str, str], PairRecord]:
    """Every pair of entrants that shared a finished table of a ruleset, keyed (a, b) with a < b.

    A k-player table counts once for each pair seated at it; the one ranked better is ahead.
    With `entrant`, only the pairs that include it.
    """
    mine, theirs = aliased(SeatRow), aliased(SeatRow)
    query = (
        select(mine.entrant, theirs.entrant, mine.rank, theirs.rank, func.count())
        .join(theirs, and_(theirs.match_id == mine.match_id, theirs.entrant > mine.entrant))
        .join(MatchRow, col(MatchRow.id) == mine.match_id)
        .where(MatchRow.ruleset == ruleset, MatchRow.status == MatchStatus.FINISHED)
        .group_by(mine.entrant, theirs.entrant, mine.rank, theirs.rank)
    )
    if entrant is not None:
        query = query.where(or_(mine.entrant == entrant, theirs.entrant == entrant))
    totals: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    with Session(store.engine) as session:
        for a, b, rank_a, rank_b, n in session.exec(query):
            counts = totals[(a, b)]
            counts[0] += n
            counts[1 if rank_a < rank_b else 2 if rank_b < rank_a else 3] += n
    return {pair: PairRecord(pair[0], pair[1], *counts) for pair, counts in sorted(totals.items())}


def head_to_head(store: Store, ruleset: str, a: str, b: str) -> PairRecord:
    """`a` against `b` at the finished tables of a ruleset where both sat (zeros when none)."""
    first, second = sorted((a, b))
    found = pair_records(store, ruleset, a).get((first, second))
    if found is None:
        return PairRecord(a, b, 0, 0, 0, 0)
    if first == a:
        return found
    return PairRecord(a, b, found.matches, found.b_ahead, found.a_ahead, found.ties)


def shared_matches(store: Store, ruleset: str, a: str, b: str, *, limit: int = 20) -> list[MatchSummary]:
    """The most recent finished matches of a ruleset where `a` and `b` both sat."""
    mine, theirs = aliased(SeatRow), aliased(SeatRow)
    ids = (
        select(mine.match_id).join(theirs, theirs.match_id == mine.match_id)
        .where(mine.entrant == a, theirs.entrant == b)
    )
    query = (
        select(*SUMMARY_COLUMNS).where(col(MatchRow.id).in_(ids), MatchRow.ruleset == ruleset,
                                       MatchRow.status == MatchStatus.FINISHED)
        .order_by(col(MatchRow.tournament_id).desc(), col(MatchRow.match_index).desc()).limit(limit)
    )
    with Session(store.engine) as session:
        return _summaries(session, query)


# -- an author's own bot (dashboards/authors.py) -------------------------------------------------


def matches_of(store: Store, entrants: list[str], *, limit: int = 20) -> list[MatchSummary]:
    """The latest stored matches any of `entrants` played (a bot's versions: `mybot`, `mybot@1`, ...),
    newest first, with their seats."""
    if not entrants:
        return []
    played = select(SeatRow.match_id).where(col(SeatRow.entrant).in_(entrants))
    query = (select(*SUMMARY_COLUMNS).where(col(MatchRow.id).in_(played))
             .order_by(col(MatchRow.id).desc()).limit(limit))
    with Session(store.engine) as session:
        return _summaries(session, query)


def live_seats_of(store: Store, entrants: list[str]) -> list[tuple[int, int, list[str]]]:
    """The matches being played now with one of `entrants` at the table: (tournament id, match
    index, the seats' entrants), as the live rows were last written."""
    wanted = set(entrants)
    with Session(store.engine) as session:
        rows = session.exec(select(LiveMatchRow.tournament_id, LiveMatchRow.match_index, LiveMatchRow.seats)).all()
    found = [(tournament, index, json.loads(seats)) for tournament, index, seats in rows]
    return sorted(entry for entry in found if wanted & set(entry[2]))
