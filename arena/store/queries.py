"""Read-only queries: what the CLI, the rating code and the dashboard ask of the database.

Every query returns plain dataclasses (arena.store.records). Lists are paginated with
`limit`/`offset` and ordered stably, so a page never repeats or skips a row.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from arena.outcomes import MatchStatus, Termination
from arena.store.aggregates import PAIR_SHARES, WIN_SHARES
from arena.store.pair_lists import ListedPair, listed_pairs
from arena.store.rating_history import carried, entrant_points, history_points
from arena.store.record_codec import decode_record
from arena.store.records import (
    EntrantTotal,
    HistoryPoint,
    LeaderboardRow,
    MatchSummary,
    PairColumns,
    PairTotal,
    RatedMatch,
    RatingEntry,
    SeatResult,
    TournamentInfo,
)
from arena.store.tables import (
    BotRow,
    BotVersionRow,
    EntrantRow,
    EntrantStatsRow,
    MatchRow,
    PairStatsRow,
    RatingPointRow,
    RatingRow,
    RulesetStatsRow,
    SeatRow,
    SubmissionRow,
    TournamentRow,
    TournamentStatsRow,
    select_columns,
)

PAIR_CHUNK = 100_000  # pairs read at a time by `pair_chunks`: a few MB of Python objects

class Queries:
    """Mixed into Store: reads over its `engine`."""

    engine: Engine

    # -- tournaments ------------------------------------------------------------------------

    def tournament(self, tournament_id: int) -> TournamentInfo | None:
        """One tournament with its progress, or None."""
        found = self.tournaments(tournament_id=tournament_id)
        return found[0] if found else None

    def tournaments(
        self, *, game_id: str | None = None, status: str | None = None, tournament_id: int | None = None,
        kind: str | None = None, limit: int = 100, offset: int = 0,
    ) -> list[TournamentInfo]:
        """Tournaments, newest first, with how many matches are stored and how many aborted."""
        with Session(self.engine) as session:
            query = select(TournamentRow).order_by(col(TournamentRow.id).desc()).limit(limit).offset(offset)
            if game_id is not None:
                query = query.where(TournamentRow.game_id == game_id)
            if status is not None:
                query = query.where(TournamentRow.status == status)
            if tournament_id is not None:
                query = query.where(TournamentRow.id == tournament_id)
            if kind is not None:
                query = query.where(TournamentRow.kind == kind)
            rows = list(session.exec(query))
            counts = _match_counts(session, [r.id for r in rows if r.id is not None])
        return [_tournament_info(row, counts) for row in rows]

    # -- matches ----------------------------------------------------------------------------

    def matches(
        self, *, tournament_id: int | None = None, game_id: str | None = None, ruleset: str | None = None,
        entrant: str | None = None, status: str | None = None, limit: int = 50, offset: int = 0,
    ) -> list[MatchSummary]:
        """Stored matches with their seats, in tournament and match-index order, filtered."""
        filters: dict[str, Any] = dict(tournament_id=tournament_id, game_id=game_id, ruleset=ruleset, entrant=entrant,
                                       status=status)
        with Session(self.engine) as session:
            query = _match_query(select(MatchRow), **filters)
            query = query.order_by(MatchRow.tournament_id, MatchRow.match_index).limit(limit).offset(offset)
            rows = list(session.exec(query))
            seats = _seats_of(session, [row.id for row in rows if row.id is not None])
        return [_match_summary(row, seats.get(row.id, [])) for row in rows]

    def count_matches(
        self, *, tournament_id: int | None = None, game_id: str | None = None, ruleset: str | None = None,
        entrant: str | None = None, status: str | None = None,
    ) -> int:
        """How many matches `matches()` would page through with the same filters."""
        filters: dict[str, Any] = dict(tournament_id=tournament_id, game_id=game_id, ruleset=ruleset, entrant=entrant,
                                       status=status)
        with Session(self.engine) as session:
            if (tournament_id is None and entrant is None
                    and status in (MatchStatus.FINISHED, MatchStatus.ABORTED, None)):
                return _counted(session, game_id, ruleset, status)
            query = _match_query(select(func.count(col(MatchRow.id))), **filters)
            return int(session.exec(query).one())

    def match_record(self, match_id: int) -> dict[str, Any] | None:
        """The full MatchRecord JSON of a stored match (steps included), or None when no such
        match is stored; RecordPruned (a StoreError) when its record was pruned."""
        with Session(self.engine) as session:
            found = session.execute(select(col(MatchRow.record)).where(MatchRow.id == match_id)).first()
        return None if found is None else decode_record(found[0], match_id)

    def rated_matches(self, ruleset: str) -> list[RatedMatch]:
        """The finished matches of a ruleset in rating order: (tournament id, match index); not SPRT games."""
        query = (
            select_columns(MatchRow.id, MatchRow.tournament_id, MatchRow.match_index, SeatRow.entrant,
                           SeatRow.rank, SeatRow.termination, SeatRow.faults)
            .join(SeatRow, col(SeatRow.match_id) == col(MatchRow.id))
            .join(TournamentRow, col(TournamentRow.id) == col(MatchRow.tournament_id))
            # an SPRT's games answer one question about two bots and stop when it is answered:
            # they stay out of the ladder (docs/sprt.md)
            .where(MatchRow.ruleset == ruleset, MatchRow.status == MatchStatus.FINISHED, TournamentRow.kind != "sprt")
            .order_by(col(MatchRow.tournament_id), col(MatchRow.match_index), col(SeatRow.seat))
        )
        with Session(self.engine) as session:
            rows = session.exec(query).all()
        return _group_rated(rows)

    def entrant_totals(self, ruleset: str) -> list[EntrantTotal]:
        """Per entrant of the ruleset's rated matches (finished, not SPRT games): games, wins, strikes,
        forfeits, by name. Read from the aggregates kept as matches are written (entrant_stats'
        rated counts: arena/store/aggregates.py), a row per entrant, never the matches."""
        query = (select_columns(EntrantStatsRow.entrant, EntrantStatsRow.rated_games, EntrantStatsRow.rated_win_shares,
                                EntrantStatsRow.rated_strikes, EntrantStatsRow.rated_forfeits)
                 .where(EntrantStatsRow.ruleset == ruleset, EntrantStatsRow.rated_games > 0)
                 .order_by(EntrantStatsRow.entrant))
        with Session(self.engine) as session:
            return [EntrantTotal(name, games, shares / WIN_SHARES, strikes, forfeits)
                    for name, games, shares, strikes, forfeits in session.exec(query)]

    def rated_span(self, ruleset: str) -> tuple[int, int | None]:
        """(how many rated matches the ruleset has, the id of its newest finished match or None)."""
        rated = select(RulesetStatsRow.rated).where(RulesetStatsRow.ruleset == ruleset)
        with Session(self.engine) as session:
            return int(session.exec(rated).first() or 0), self._newest_match(session, ruleset)

    def newest_match_id(self, ruleset: str) -> int | None:
        with Session(self.engine) as session:
            return self._newest_match(session, ruleset)

    @staticmethod
    def _newest_match(session: Session, ruleset: str) -> int | None:
        query = select(func.max(MatchRow.id)).where(col(MatchRow.ruleset) == ruleset,
                                                    col(MatchRow.status) == MatchStatus.FINISHED)
        found = session.exec(query).one()
        return None if found is None else int(found)

    def history_positions(self, ruleset: str) -> list[int]:
        """The positions (rated matches - 1) at which the ruleset's rating history has a point."""
        with Session(self.engine) as session:
            return [position for position, _ in history_points(session, ruleset)]

    # -- ratings ----------------------------------------------------------------------------

    def rulesets(self, game_id: str | None = None) -> list[str]:
        """Rulesets that have stored matches (of one game, or of all), sorted (from their aggregate row)."""
        with Session(self.engine) as session:
            query = select(RulesetStatsRow.ruleset).order_by(RulesetStatsRow.ruleset)
            if game_id is not None:
                query = query.where(RulesetStatsRow.game_id == game_id)
            return list(session.exec(query))

    def pair_totals(self, ruleset: str) -> list[PairTotal]:
        """The rating's sufficient statistic of a ruleset: per pair a < b that met in a rated match,
        its pairwise weight and a's score (kept as matches are written: arena/store/aggregates.py)."""
        first, second = aliased(EntrantRow), aliased(EntrantRow)
        query = (select(first.name, second.name, PairStatsRow.weight_shares, PairStatsRow.score_shares)
                 .join(first, col(first.id) == PairStatsRow.a).join(second, col(second.id) == PairStatsRow.b)
                 .where(PairStatsRow.ruleset == ruleset, PairStatsRow.weight_shares > 0)
                 .order_by(first.name, second.name))
        with Session(self.engine) as session:
            return [PairTotal(a, b, weight / PAIR_SHARES, score / PAIR_SHARES)
                    for a, b, weight, score in session.exec(query)]

    def pair_chunks(self, ruleset: str, size: int = PAIR_CHUNK) -> Iterator[PairColumns]:
        """`pair_totals` in chunks of about `size` pairs (whole entrants: all the pairs an entrant
        heads), the entrants as their numbers. A refit of a big field reads millions of pairs: each
        entrant's come as one row of lists the database makes (arena/store/pair_lists.py), which
        numpy reads, so no Python object is made per pair (a row's Python values cost more than its
        arithmetic: 5.7M pairs took 4 s as tuples of numbers, 9 s as tuples with names). The pairs
        are read in key order, from end to end."""
        with Session(self.engine) as session:
            names = {int(number or 0): name for number, name in session.exec(select(EntrantRow.id, EntrantRow.name))}
        connection = self.engine.raw_connection()
        try:
            heads: list[ListedPair] = []
            pairs = 0
            for listed in listed_pairs(connection, ruleset, self.engine.dialect.name == "sqlite"):
                heads.append(listed)
                pairs += len(listed.b)
                if pairs >= size:
                    yield _pair_columns(heads, names)
                    heads, pairs = [], 0
            if heads:
                yield _pair_columns(heads, names)
        finally:
            connection.close()

    def stored_ratings(self, ruleset: str) -> dict[str, RatingEntry]:
        """The stored rating table of a ruleset by entrant (a refit starts from it)."""
        query = select_columns(RatingRow.entrant, RatingRow.elo, RatingRow.low, RatingRow.high, RatingRow.games,
                               RatingRow.wins, RatingRow.strikes, RatingRow.forfeits)
        query = query.where(RatingRow.ruleset == ruleset)
        with Session(self.engine) as session:
            return {row[0]: RatingEntry(*row) for row in session.exec(query)}

    def leaderboard(self, ruleset: str, *, limit: int = 1000, offset: int = 0) -> list[LeaderboardRow]:
        """The stored ratings of a ruleset, best first (ties by name)."""
        with Session(self.engine) as session:
            query = (  # columns, not ORM objects: a thousand of those cost more than the query
                select_columns(RatingRow.entrant, RatingRow.game_id, RatingRow.ruleset, RatingRow.elo, RatingRow.low,
                               RatingRow.high, RatingRow.games, RatingRow.wins, RatingRow.strikes, RatingRow.forfeits)
                .where(RatingRow.ruleset == ruleset)
                .order_by(col(RatingRow.elo).desc(), RatingRow.entrant).limit(limit).offset(offset)
            )
            rows = session.exec(query).all()
        suspended = self.suspended_versions()
        listed = [LeaderboardRow(offset + i + 1, *row) for i, row in enumerate(rows)]
        return [replace(row, suspended=suspended[row.entrant]) if row.entrant in suspended else row for row in listed]

    def suspended_versions(self) -> dict[str, str]:
        """Every suspended submitted version, `NAME@N`, with the reason the ladder stopped seating it
        (few rows: a suspension ends with the bot's next version)."""
        query = (select(BotRow.name, SubmissionRow.number, SubmissionRow.suspended_reason)
                 .join(BotRow, col(BotRow.id) == col(SubmissionRow.bot_id))
                 .where(col(SubmissionRow.suspended_reason).is_not(None)))
        with Session(self.engine) as session:
            return {f"{name}@{number}": str(reason) for name, number, reason in session.exec(query)}

    def rated_count(self, ruleset: str) -> int:
        """How many matches the stored ratings of a ruleset were fitted to (0 when unrated).

        Read from the rating history, whose last point is the fit over every rated match, and
        which is written together with the ratings: unlike a count of the stored matches, it
        agrees with the table while another writer adds matches that are not rated yet."""
        query = select(func.max(RatingPointRow.position)).where(RatingPointRow.ruleset == ruleset)
        with Session(self.engine) as session:  # the newest point, by ix_rating_point_position
            last = session.exec(query).one()
        return 0 if last is None else last + 1

    def rating_history(self, ruleset: str, entrant: str) -> list[HistoryPoint]:
        """An entrant's rating history: the fit over the matches up to each point, in rating order
        (at a point without its row, its value at its last one before: arena/store/rating_history.py)."""
        with Session(self.engine) as session:
            points = entrant_points(session, ruleset, [entrant])[entrant]
            positions = dict(history_points(session, ruleset)) if points else {}
        return [HistoryPoint(position, positions[position], elo) for position, elo in carried(points, list(positions))]


def _match_query(query: Any, *, tournament_id: int | None, game_id: str | None, ruleset: str | None,
                 entrant: str | None, status: str | None) -> Any:
    if tournament_id is not None:
        query = query.where(MatchRow.tournament_id == tournament_id)
    if game_id is not None:
        query = query.where(MatchRow.game_id == game_id)
    if ruleset is not None:
        query = query.where(MatchRow.ruleset == ruleset)
    if status is not None:
        query = query.where(MatchRow.status == status)
    if entrant is not None:
        seated = select(SeatRow.match_id).where(SeatRow.entrant == entrant)
        query = query.where(col(MatchRow.id).in_(seated))
    return query


def _counted(session: Session, game_id: str | None, ruleset: str | None, status: str | None) -> int:
    """How many matches of a game or ruleset (or all) are stored with a status (or any), from the
    per-ruleset aggregate rather than a count of the match rows."""
    finished, aborted = func.coalesce(func.sum(RulesetStatsRow.finished), 0), func.coalesce(
        func.sum(RulesetStatsRow.aborted), 0)
    wanted = (finished if status == MatchStatus.FINISHED
              else aborted if status == MatchStatus.ABORTED else finished + aborted)
    query = select(wanted)
    if game_id is not None:
        query = query.where(RulesetStatsRow.game_id == game_id)
    if ruleset is not None:
        query = query.where(RulesetStatsRow.ruleset == ruleset)
    return int(session.exec(query).one())


def _seats_of(session: Session, match_ids: list[int]) -> dict[int, list[SeatResult]]:
    if not match_ids:
        return {}
    query = (
        select(SeatRow, BotVersionRow)
        .join(BotVersionRow, col(BotVersionRow.id) == col(SeatRow.bot_version_id))
        .where(col(SeatRow.match_id).in_(match_ids)).order_by(col(SeatRow.match_id), col(SeatRow.seat))
    )
    seats: dict[int, list[SeatResult]] = defaultdict(list)
    for seat, version in session.exec(query):
        seats[seat.match_id].append(SeatResult(
            seat.seat, seat.entrant, version.spec, version.kind, version.version,
            seat.score, seat.rank, seat.termination, seat.reason, seat.faults,
        ))
    return seats


def _match_summary(row: MatchRow, seats: list[SeatResult]) -> MatchSummary:
    assert row.id is not None
    return MatchSummary(
        row.id, row.key, row.tournament_id, row.match_index, row.game_id, row.ruleset, row.status,
        row.aborted_reason, row.seed, row.chance_seed, row.decisions, row.duration_ms, row.finished_at,
        row.attempts, seats, row.node,
    )


def _match_counts(session: Session, ids: list[int]) -> dict[tuple[int, str], int]:
    if not ids:
        return {}
    query = select(TournamentStatsRow.tournament_id, TournamentStatsRow.finished, TournamentStatsRow.aborted).where(
        col(TournamentStatsRow.tournament_id).in_(ids))  # kept as matches are written (arena/store/aggregates.py)
    counts: dict[tuple[int, str], int] = {}
    for tid, finished, aborted in session.exec(query):
        counts[tid, MatchStatus.FINISHED], counts[tid, MatchStatus.ABORTED] = finished, aborted
    return counts


def _tournament_info(row: TournamentRow, counts: dict[tuple[int, str], int]) -> TournamentInfo:
    assert row.id is not None
    finished, aborted = counts.get((row.id, MatchStatus.FINISHED), 0), counts.get((row.id, MatchStatus.ABORTED), 0)
    return TournamentInfo(
        row.id, row.name, row.game_id, row.ruleset, row.kind, json.loads(row.config), row.status,
        row.total_matches, finished + aborted, aborted, row.created_at, row.finished_at, row.updated_at, row.note,
    )


def _group_rated(rows: Any) -> list[RatedMatch]:
    matches: list[RatedMatch] = []
    current: list[Any] = []
    for row in rows:
        if current and row[0] != current[0][0]:
            matches.append(_rated(current))
            current = []
        current.append(row)
    if current:
        matches.append(_rated(current))
    return matches


def _rated(rows: list[Any]) -> RatedMatch:
    match_id, tournament_id, match_index = rows[0][0], rows[0][1], rows[0][2]
    return RatedMatch(
        match_id, (tournament_id, match_index),
        tuple(r[3] for r in rows), tuple(r[4] for r in rows), tuple(r[6] for r in rows),
        tuple(r[5] != Termination.NORMAL for r in rows),
    )


def _pair_columns(heads: list[ListedPair], names: dict[int, str]) -> PairColumns:
    """Pair columns from entrants' rows of their pairs."""
    firsts = np.repeat(np.array([head.a for head in heads], np.int64), [len(head.b) for head in heads])
    weight = np.concatenate([head.weight for head in heads]) / PAIR_SHARES
    score = np.concatenate([head.score for head in heads]) / PAIR_SHARES
    return PairColumns(firsts, np.concatenate([head.b for head in heads]), weight, score, names)
