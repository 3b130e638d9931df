"""Read-only queries the dashboard needs beyond arena.store.queries: pages of matches filtered by
termination, head-to-head records and LOS inputs, bot pages, fault history, last-played times.

Functions take the `Store` and return plain dataclasses. The indexes these queries lean on are
part of the schema (arena/store/tables.py and its migrations).
"""

from __future__ import annotations

import json
from bisect import bisect_left
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, cast

from sqlalchemy import ColumnElement, and_, func, or_, text
from sqlalchemy.orm import InstrumentedAttribute, aliased
from sqlmodel import Session, col, select

from arena.outcomes import Termination
from arena.store.aggregates import FAULT_TERMINATIONS
from arena.store.database import Store
from arena.store.head_to_head import PairRecord, head_to_head, pair_records
from arena.store.queries import _seats_of
from arena.store.rating_history import carried, entrant_points, history_points
from arena.store.records import LeaderboardRow, MatchSummary
from arena.store.tables import (
    FAULTED,
    BotVersionRow,
    EntrantStatsRow,
    LiveMatchRow,
    MatchRow,
    RatingRow,
    RulesetStatsRow,
    SeatRow,
    TournamentRow,
    select_columns,
)

# FAULT_TERMINATIONS lives with the aggregates that count it; the pairs' records in their own module
__all__ = ["ANY_FAULT", "FAULT_TERMINATIONS", "PairRecord", "head_to_head", "pair_records"]

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
    filters: dict[str, Any] = dict(game_id=game_id, ruleset=ruleset, entrant=entrant, tournament_id=tournament_id,
                                   termination=termination)
    with Session(store.engine) as session:
        total = _match_total(session, game_id, ruleset, entrant, tournament_id, termination)
        # a page past the middle is read from the oldest end (its index read the other way) and
        # turned round: OFFSET walks the rows before a page, so the last page costs what the first does
        oldest_first = offset > 0 and offset + limit / 2 > total / 2
        if oldest_first:
            limit, offset = max(0, min(limit, total - offset)), max(0, total - offset - limit)
        if entrant is not None:
            # newest stored first, read backwards from the entrant's seats (their index) and stopped
            # after a page: sorting its matches by tournament and index would read every one of them
            query = _filtered(select_columns(*SUMMARY_COLUMNS).join(SeatRow, col(SeatRow.match_id) == col(MatchRow.id)),
                              **{**filters, "entrant": None}).where(SeatRow.entrant == entrant)
            order = [col(SeatRow.match_id)]
        else:
            query = _filtered(select_columns(*SUMMARY_COLUMNS), **filters)
            order = [col(MatchRow.tournament_id), col(MatchRow.match_index)]
        query = query.order_by(*(order if oldest_first else [column.desc() for column in order]))
        found = _summaries(session, query.limit(limit).offset(offset))
        return found[::-1] if oldest_first else found, total


def _match_total(session: Session, game_id: str | None, ruleset: str | None, entrant: str | None,
                 tournament_id: int | None, termination: str | None) -> int:
    """How many matches match the filters: from the aggregates when only the game, ruleset and
    entrant filter (a count of rows otherwise, bounded by the tournament's or the faults' index)."""
    if tournament_id is not None or termination is not None:
        filters: dict[str, Any] = dict(game_id=game_id, ruleset=ruleset, entrant=entrant,
                                       tournament_id=tournament_id, termination=termination)
        return int(session.exec(_filtered(select(func.count(col(MatchRow.id))), **filters)).one())
    if entrant is None:
        counted = func.sum(RulesetStatsRow.finished + RulesetStatsRow.aborted)
        query = select(counted)
    else:
        query = (select(func.sum(EntrantStatsRow.matches)).join(
            RulesetStatsRow, col(RulesetStatsRow.ruleset) == col(EntrantStatsRow.ruleset))
            .where(EntrantStatsRow.entrant == entrant))
    if game_id is not None:
        query = query.where(RulesetStatsRow.game_id == game_id)
    if ruleset is not None:
        query = query.where(RulesetStatsRow.ruleset == ruleset)
    return int(session.exec(query).one() or 0)


def match_summary(store: Store, match_id: int) -> MatchSummary | None:
    """One stored match with its seats (without the record), or None."""
    with Session(store.engine) as session:
        found = _summaries(session, select_columns(*SUMMARY_COLUMNS).where(MatchRow.id == match_id))
    return found[0] if found else None


# Every column a MatchSummary needs: the record (the bulk of a row) stays on disk.
SUMMARY_COLUMNS = (
    MatchRow.id, MatchRow.key, MatchRow.tournament_id, MatchRow.match_index, MatchRow.game_id, MatchRow.ruleset,
    MatchRow.status, MatchRow.aborted_reason, MatchRow.seed, MatchRow.chance_seed, MatchRow.decisions,
    MatchRow.duration_ms, MatchRow.finished_at, MatchRow.node,
)
# MatchSummary's fields of the same names (the columns are InstrumentedAttributes at run time)
SUMMARY_FIELDS = tuple(cast(InstrumentedAttribute[Any], column).key for column in SUMMARY_COLUMNS)


def _summaries(session: Session, query: Any) -> list[MatchSummary]:
    rows = session.exec(query).all()
    seats = _seats_of(session, [row[0] for row in rows])
    return [MatchSummary(**dict(zip(SUMMARY_FIELDS, row)), seats=seats.get(row[0], [])) for row in rows]


def _filtered(query: Any, *, game_id: str | None, ruleset: str | None, entrant: str | None,
              tournament_id: int | None, termination: str | None) -> Any:
    conditions: list[ColumnElement[bool]] = []
    if game_id is not None:
        conditions.append(col(MatchRow.game_id) == game_id)
    if ruleset is not None:
        conditions.append(col(MatchRow.ruleset) == ruleset)
    if tournament_id is not None:
        conditions.append(col(MatchRow.tournament_id) == tournament_id)
    if entrant is not None:
        conditions.append(col(MatchRow.id).in_(select(SeatRow.match_id).where(SeatRow.entrant == entrant)))
    if termination is not None:
        wanted = FAULT_TERMINATIONS if termination == ANY_FAULT else (termination,)
        seated = select(SeatRow.match_id).where(col(SeatRow.termination).in_(wanted))
        if termination != Termination.NORMAL:  # stated as the partial index has it, for SQLite to use it
            seated = seated.where(text(f"seat.{FAULTED}"))
        conditions.append(col(MatchRow.id).in_(seated))
    return query.where(and_(*conditions)) if conditions else query


def rulesets(store: Store, game_id: str | None = None) -> list[str]:
    """Rulesets with stored matches (of one game, or of all), sorted; one aggregate row each."""
    return store.rulesets(game_id)


def rating_histories(store: Store, ruleset: str, entrants: list[str]) -> dict[str, list[tuple[int, float]]]:
    """Each entrant's (position, elo) history points in rating order, at every point of the ruleset
    from its first on (arena/store/rating_history.py)."""
    with Session(store.engine) as session:
        histories = entrant_points(session, ruleset, entrants)
        # a live update stores only the entrants that changed: the others carry their last value
        positions = [position for position, _ in history_points(session, ruleset)] if entrants else []
    return {name: carried(points, positions) for name, points in histories.items()}


def count_tournaments(store: Store) -> int:
    """How many tournaments are stored."""
    with Session(store.engine) as session:
        return int(session.exec(select(func.count(col(TournamentRow.id)))).one())


# -- entrants -----------------------------------------------------------------------------------


def entrant_names(store: Store, limit: int | None = None) -> list[str]:
    """Every entrant that has played a stored match (the first `limit`), by name."""
    query = select(BotVersionRow.name).distinct().order_by(BotVersionRow.name).limit(limit)
    with Session(store.engine) as session:
        return list(session.exec(query))


def played(store: Store, names: list[str]) -> set[str]:
    """Those of `names` that have played a stored match (a key lookup each, not every name)."""
    query = select(BotVersionRow.name).distinct().where(col(BotVersionRow.name).in_(names))
    with Session(store.engine) as session:
        return set(session.exec(query))


def bot_summaries(store: Store, *, limit: int | None = None, offset: int = 0) -> tuple[list[BotSummary], int]:
    """One page of the entrants (every one without `limit`), by name, with their match, strike and
    forfeit counts and their last match; and how many entrants there are in all. A page reads its
    names from the aggregates' entrant index, then only its own rows."""
    stats = EntrantStatsRow
    names = select(stats.entrant).distinct().order_by(col(stats.entrant)).limit(limit).offset(offset)
    query = select_columns(stats.entrant, stats.matches, stats.strikes, stats.forfeits, stats.last_match_id,
                           stats.last_played).where(col(stats.entrant).in_(names.scalar_subquery()))
    totals: dict[str, list[Any]] = {}
    with Session(store.engine) as session:
        total = int(session.exec(select(func.count(func.distinct(stats.entrant)))).one())
        for name, n, strikes, forfeits, last, when in session.exec(query):
            found = totals.setdefault(name, [0, 0, 0, -1, None])
            found[0], found[1], found[2] = found[0] + n, found[1] + strikes, found[2] + forfeits
            if last > found[3]:  # its newest match over every ruleset: the highest id
                found[3], found[4] = last, when
    return [BotSummary(name, n, s, f, when) for name, (n, s, f, _, when) in sorted(totals.items())], total


def entrant_versions(store: Store, name: str) -> list[VersionInfo]:
    """The versions an entrant played as, oldest first."""
    query = select(BotVersionRow).where(col(BotVersionRow.name) == name).order_by(col(BotVersionRow.id))
    with Session(store.engine) as session:
        return [VersionInfo(r.spec, r.kind, r.version, r.created_at) for r in session.exec(query)]


def latest_versions(store: Store, ruleset: str, entrants: list[str] | None = None) -> dict[str, VersionInfo]:
    """The version each entrant (of `entrants`, or every one) last played a ruleset as (its newest
    recorded version there)."""
    query = (
        select_columns(BotVersionRow.name, BotVersionRow.spec, BotVersionRow.kind, BotVersionRow.version,
                       BotVersionRow.created_at)
        .join(EntrantStatsRow, col(EntrantStatsRow.version_id) == col(BotVersionRow.id))
        .where(EntrantStatsRow.ruleset == ruleset)
    )
    if entrants is not None:  # a page of the leaderboard: its rows by their key, not the whole ruleset
        query = query.where(col(EntrantStatsRow.entrant).in_(entrants))
    with Session(store.engine) as session:
        return {name: VersionInfo(*info) for name, *info in session.exec(query)}


def entrant_ratings(store: Store, name: str) -> list[LeaderboardRow]:
    """An entrant's rating in every ruleset it is rated in, with its place on that leaderboard."""
    return every_entrant_ratings(store, [name]).get(name, [])


def every_entrant_ratings(store: Store, entrants: list[str], placed: bool = True) -> dict[str, list[LeaderboardRow]]:
    """`entrant_ratings` of each of `entrants` (a page of bots) at once: their rows read by key,
    each place counted in its ruleset (`_places`; place 0 when not `placed`), by ruleset."""
    query = select_columns(*RATING_COLUMNS).where(col(RatingRow.entrant).in_(entrants)).order_by(RatingRow.ruleset)
    with Session(store.engine) as session:
        rows = list(session.exec(query))
        places = _places(session, rows) if placed else [0] * len(rows)
    found: dict[str, list[LeaderboardRow]] = {}
    suspended = store.suspended_versions()
    for row, place in zip(rows, places, strict=True):
        found.setdefault(row[0], []).append(replace(LeaderboardRow(place, *row), suspended=suspended.get(row[0])))
    return found


COUNTED_ONE_BY_ONE = 8  # up to this many rows of a ruleset are placed by a count each, more by one read


def _places(session: Session, rows: list[Any]) -> list[int]:
    """Each rating row's place on its ruleset's leaderboard (Elo down, ties by name): a few by
    counting the ratings ahead of each, a page of them by one read of the ruleset's (Elo, name)
    pairs, sorted once and searched (a window over every rating cost 10 times more at 10k bots)."""
    places = [0] * len(rows)
    by_ruleset: dict[str, list[int]] = {}
    for index, row in enumerate(rows):
        by_ruleset.setdefault(row[2], []).append(index)
    for ruleset, indexes in by_ruleset.items():
        if len(indexes) <= COUNTED_ONE_BY_ONE:
            for index in indexes:
                entrant, elo = rows[index][0], rows[index][3]
                ahead = or_(col(RatingRow.elo) > elo, and_(col(RatingRow.elo) == elo, col(RatingRow.entrant) < entrant))
                places[index] = 1 + int(session.exec(
                    select(func.count()).select_from(RatingRow).where(RatingRow.ruleset == ruleset, ahead)).one())
            continue
        ranked = sorted((-elo, entrant) for entrant, elo in session.exec(
            select(RatingRow.entrant, RatingRow.elo).where(RatingRow.ruleset == ruleset)))
        for index in indexes:
            places[index] = 1 + bisect_left(ranked, (-rows[index][3], rows[index][0]))
    return places


# A LeaderboardRow's fields after its place, as the rating table has them
RATING_COLUMNS = (RatingRow.entrant, RatingRow.game_id, RatingRow.ruleset, RatingRow.elo, RatingRow.low,
                  RatingRow.high, RatingRow.games, RatingRow.wins, RatingRow.strikes, RatingRow.forfeits)


def last_played(store: Store, ruleset: str, entrants: list[str] | None = None) -> dict[str, datetime]:
    """When each entrant (of `entrants`, or every one) last finished a match of a ruleset."""
    query = select(EntrantStatsRow.entrant, EntrantStatsRow.last_played).where(EntrantStatsRow.ruleset == ruleset)
    if entrants is not None:
        query = query.where(col(EntrantStatsRow.entrant).in_(entrants))
    with Session(store.engine) as session:
        return dict(session.exec(query).all())


def fault_history(store: Store, name: str, *, limit: int = 50, offset: int = 0) -> tuple[list[FaultEntry], int]:
    """The seats an entrant lost to a fault, newest first, and how many there are in all."""
    # FAULTED as written: the entrant's faulted seats by ix_seat_entrant_faulted
    where = and_(col(SeatRow.entrant) == name, text(f"seat.{FAULTED}"),
                 col(SeatRow.termination).in_(FAULT_TERMINATIONS))
    query = (
        select_columns(SeatRow, MatchRow.key, MatchRow.tournament_id, MatchRow.game_id, MatchRow.ruleset,
                       MatchRow.finished_at)
        .join(MatchRow, col(MatchRow.id) == col(SeatRow.match_id)).where(where)
        # newest first: matches are stored as they finish, so by id (the entrant's faults' index)
        .order_by(col(SeatRow.match_id).desc(), col(SeatRow.id).desc()).limit(limit).offset(offset)
    )
    with Session(store.engine) as session:
        total = int(session.exec(select(func.sum(EntrantStatsRow.forfeits)).where(
            EntrantStatsRow.entrant == name)).one() or 0)
        entries = [
            FaultEntry(seat.match_id, key, tid, game, ruleset, seat.seat, seat.termination, seat.reason, when)
            for seat, key, tid, game, ruleset, when in session.exec(query)
        ]
    return entries, total


# -- head to head (the pairs' records: arena/store/head_to_head.py) -----------------------------


# -- an author's own bot (dashboards/authors.py) -------------------------------------------------


def matches_of(store: Store, entrants: list[str], *, limit: int = 20) -> list[MatchSummary]:
    """The latest stored matches any of `entrants` played (a bot's versions: `mybot`, `mybot@1`, ...),
    newest first, with their seats."""
    if not entrants:
        return []
    # the newest of its seats (their index), not a scan of the matches for ones it played
    played = (select(SeatRow.match_id).where(col(SeatRow.entrant).in_(entrants)).distinct()
              .order_by(col(SeatRow.match_id).desc()).limit(limit))
    query = (select_columns(*SUMMARY_COLUMNS).where(col(MatchRow.id).in_(played))
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


@dataclass(frozen=True)
class MatchFilter:
    """Which of a bot's matches an author lists (`arena-bot matches`): all its seats' matches, or
    those it lost (ranked below first), those where it crashed, those against an opponent (an
    entrant, or a bot name: any of its versions), of one ruleset, finished in [since, until), and
    older than `before_id` (keyset paging: the page after the one that ended there)."""

    lost: bool = False
    crashed: bool = False
    opponent: str = ""
    ruleset: str = ""
    since: datetime | None = None
    until: datetime | None = None
    before_id: int = 0


def filtered_matches_of(store: Store, entrants: list[str], wanted: MatchFilter, *,
                        limit: int = 20) -> list[MatchSummary]:
    """Up to `limit` stored matches any of `entrants` played that pass `wanted`, newest first: read
    backwards from the entrants' seats (their index) and stopped after a page, never a scan of all."""
    if not entrants:
        return []
    mine = aliased(SeatRow)
    played = select(mine.match_id).join(MatchRow, col(MatchRow.id) == col(mine.match_id)).where(
        col(mine.entrant).in_(entrants), *_author_conditions(mine, wanted))
    played = played.distinct().order_by(col(mine.match_id).desc()).limit(limit)
    query = (select_columns(*SUMMARY_COLUMNS).where(col(MatchRow.id).in_(played))
             .order_by(col(MatchRow.id).desc()))
    with Session(store.engine) as session:
        return _summaries(session, query)


def _author_conditions(mine: Any, wanted: MatchFilter) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if wanted.before_id > 0:
        conditions.append(col(mine.match_id) < wanted.before_id)
    if wanted.lost:
        conditions.append(col(mine.rank) > 1)
    if wanted.crashed:
        conditions.append(col(mine.termination) == Termination.CRASH)
    if wanted.ruleset:
        conditions.append(col(MatchRow.ruleset) == wanted.ruleset)
    if wanted.since is not None:
        conditions.append(col(MatchRow.finished_at) >= wanted.since)
    if wanted.until is not None:
        conditions.append(col(MatchRow.finished_at) < wanted.until)
    if wanted.opponent:
        named = col(SeatRow.entrant) == wanted.opponent
        if "@" not in wanted.opponent:  # a bot's name: any of its versions too
            named = or_(named, col(SeatRow.entrant).startswith(wanted.opponent + "@", autoescape=True))
        conditions.append(col(mine.match_id).in_(select(SeatRow.match_id).where(named)))
    return conditions


def rotations_stored(store: Store, tournament_id: int, chance_seed: int) -> int:
    """How many seat rotations of one table (its matches sharing `chance_seed`) are stored."""
    query = select(func.count(func.distinct(MatchRow.rotation))).where(
        MatchRow.tournament_id == tournament_id, MatchRow.chance_seed == chance_seed)
    with Session(store.engine) as session:
        return int(session.exec(query).one())
