"""The dashboard's figures kept up to date as matches are written: per ruleset, per tournament,
per (ruleset, entrant) and per (ruleset, pair) (the tables at the end of arena/store/tables.py).

`add_matches` runs inside `Store.record_matches`' transaction, so the figures and the match rows
are committed together (a kill -9 loses both or neither). It adds with upserts (`count = count +
new`), so two writers at once (a ladder beside a tournament) never lose each other's counts.
`recompute` works the same figures out from the stored seats and matches: the tests check the two
agree, and migration 0013's backfill does the same in SQL.

The figures count as the pages always did: a match counts toward an entrant's matches, strikes and
forfeits whether it finished or aborted; pair records and the rating's pair totals count finished
matches only, and the pair totals leave SPRT games out (as `Queries.rated_matches` does). The rated
counts (a ruleset's rated matches; an entrant's rated games, wins, strikes and forfeits: what the
rating table shows, `Queries.entrant_totals`) count the same rated matches as the pair totals.
Nothing subtracts from them: a stored match and its seats are never deleted or changed (retention,
arena/store/retention.py, only drops a record), nor is a tournament's kind.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from sqlalchemy import Table, case
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from arena.outcomes import MatchStatus, Termination
from arena.store.bulk import execute_many
from arena.store.tables import (
    EntrantRow,
    EntrantStatsRow,
    MatchRow,
    PairStatsRow,
    RulesetStatsRow,
    SeatRow,
    TournamentRow,
    TournamentStatsRow,
    select_columns,
)

# A seat that ended like this is the bot's fault; "aborted" is the arena's, never the bot's.
FAULT_TERMINATIONS = (Termination.TIMEOUT, Termination.ILLEGAL_ACTION, Termination.PROTOCOL_ERROR,
                      Termination.DISCONNECT, Termination.CRASH)
RATED_ENTRANT = ("rated_games", "rated_win_shares", "rated_strikes", "rated_forfeits")  # entrant_stats' rated counts
# a first place in whole shares (a place shared by n winners is WIN_SHARES // n of them, exact for n <= 16):
# a sum of whole numbers is the same in whatever order the matches are written, a sum of 1/n is not
WIN_SHARES = 720720
# a pairwise game in whole shares: a k-player table gives each pair PAIR_SHARES // (k-1), a tie half of
# that (exact up to 17 seats); pair_stats keeps these sums (migration 0021)
PAIR_SHARES = 2 * WIN_SHARES


@dataclass
class Figures:
    """The aggregates' rows, keyed by their primary keys, as plain lists of values."""

    # (ruleset, game): [finished, aborted, rated]
    rulesets: dict[tuple[str, str], list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0, 0]))
    tournaments: dict[int, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    # (ruleset, entrant): [matches, strikes, forfeits, last match id, last played, version id,
    #                      rated games, rated win shares, rated strikes, rated forfeits]
    entrants: dict[tuple[str, str], list[Any]] = field(default_factory=dict)
    # (ruleset, a, b): [matches, a ahead, b ahead, ties, weight shares, score shares]
    pairs: dict[tuple[str, str, str], list[int]] = field(
        default_factory=lambda: defaultdict(lambda: [0, 0, 0, 0, 0, 0]))

    def add(self, match: dict[str, Any], seats: list[dict[str, Any]], rated: bool) -> None:
        """One stored match (its row's values) with its seats (theirs), in seat order."""
        ruleset, finished = match["ruleset"], match["status"] == MatchStatus.FINISHED
        self.rulesets[ruleset, match["game_id"]][0 if finished else 1] += 1
        self.rulesets[ruleset, match["game_id"]][2] += finished and rated
        self.tournaments[match["tournament_id"]][0 if finished else 1] += 1
        winners = sum(seat["rank"] == 1 for seat in seats)
        for seat in seats:
            figures = self._add_entrant((ruleset, seat["entrant"]), match, seat)
            if finished and rated:  # as Queries.rated_matches and arena.rating.Results.add count
                figures[6] += 1
                figures[7] += WIN_SHARES // winners if seat["rank"] == 1 else 0
                figures[8] += seat["faults"] or 0
                figures[9] += seat["termination"] != Termination.NORMAL
        if finished:
            self._add_pairs(ruleset, seats, rated)

    def _add_entrant(self, key: tuple[str, str], match: dict[str, Any], seat: dict[str, Any]) -> list[Any]:
        figures = self.entrants.setdefault(key, [0, 0, 0, 0, match["finished_at"], 0, 0, 0, 0, 0])
        figures[0] += 1
        figures[1] += seat["faults"] or 0
        figures[2] += seat["termination"] in FAULT_TERMINATIONS
        if match["id"] > figures[3]:
            figures[3], figures[4] = match["id"], match["finished_at"]
        figures[5] = max(figures[5], seat["bot_version_id"])
        return figures

    def _add_pairs(self, ruleset: str, seats: list[dict[str, Any]], rated: bool) -> None:
        k = len(seats)
        for i, mine in enumerate(seats):
            for theirs in seats[i + 1:]:
                if mine["entrant"] == theirs["entrant"]:
                    continue
                first, second = sorted((mine, theirs), key=lambda seat: str(seat["entrant"]))
                figures = self.pairs[ruleset, first["entrant"], second["entrant"]]
                rank_a, rank_b = first["rank"], second["rank"]
                figures[0] += 1
                figures[1 if rank_a < rank_b else 2 if rank_b < rank_a else 3] += 1
                if rated:
                    figures[4] += PAIR_SHARES // (k - 1)
                    halves = 2 if rank_a < rank_b else 1 if rank_a == rank_b else 0  # a's score, in halves
                    figures[5] += halves * PAIR_SHARES // (2 * (k - 1))

    def rows(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
        """The figures as rows of ruleset_stats, entrant_stats, pair_stats and tournament_stats."""
        rulesets = [dict(ruleset=r, game_id=g, finished=f, aborted=a, rated=n)
                    for (r, g), (f, a, n) in self.rulesets.items()]
        tournaments = [dict(tournament_id=t, finished=f, aborted=a) for t, (f, a) in self.tournaments.items()]
        entrants = [
            dict(ruleset=r, entrant=e, matches=n, strikes=s, forfeits=f, last_match_id=last, last_played=when,
                 version_id=v, rated_games=rated[0], rated_win_shares=rated[1], rated_strikes=rated[2],
                 rated_forfeits=rated[3])
            for (r, e), (n, s, f, last, when, v, *rated) in self.entrants.items()
        ]
        pairs = [dict(ruleset=r, a=a, b=b, matches=n, a_ahead=x, b_ahead=y, ties=t, weight_shares=w, score_shares=s)
                 for (r, a, b), (n, x, y, t, w, s) in self.pairs.items()]
        return rulesets, entrants, pairs, tournaments


def add_matches(session: Session, matches: list[dict[str, Any]], seats: list[dict[str, Any]],
                known_numbers: dict[str, int] | None = None) -> None:
    """Add just-inserted matches (their row values with "id") and seats to the aggregates
    (`known_numbers`: the writer's cache of entrant numbers, `entrant_numbers`)."""
    if not matches:
        return
    kinds = dict(session.exec(select(TournamentRow.id, TournamentRow.kind).where(
        col(TournamentRow.id).in_({m["tournament_id"] for m in matches}))).all())
    by_match: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for seat in sorted(seats, key=lambda s: (s["match_id"], s["seat"])):
        by_match[seat["match_id"]].append(seat)
    figures = Figures()
    for match in matches:
        figures.add(match, by_match[match["id"]], rated=kinds.get(match["tournament_id"]) != "sprt")
    rulesets, entrants, pairs, tournaments = figures.rows()
    _upsert(session, _table(RulesetStatsRow), rulesets, ("ruleset",), ("finished", "aborted", "rated"))
    _upsert(session, _table(TournamentStatsRow), tournaments, ("tournament_id",), ("finished", "aborted"))
    entrants.sort(key=itemgetter("ruleset", "entrant"))
    _upsert(session, _table(EntrantStatsRow), entrants, ("ruleset", "entrant"),
            ("matches", "strikes", "forfeits", *RATED_ENTRANT), newest=("last_match_id", "last_played"),
            highest="version_id")
    numbers = entrant_numbers(session, [name for pair in pairs for name in (pair["a"], pair["b"])], known_numbers)
    # in key order, as the entrants' rows above: the upserts walk each table's B-tree from one end to
    # the other instead of jumping about it (the pages a batch needs, once each), and two writers at
    # once take their row locks in the same order (PostgreSQL: no deadlock between them)
    pairs = sorted(({**pair, "a": numbers[pair["a"]], "b": numbers[pair["b"]]} for pair in pairs),
                   key=itemgetter("ruleset", "a", "b"))
    _upsert(session, _table(PairStatsRow), pairs, ("ruleset", "a", "b"),
            ("matches", "a_ahead", "b_ahead", "ties", "weight_shares", "score_shares"))


def entrant_numbers(session: Session, names: Iterable[str], known: dict[str, int] | None = None) -> dict[str, int]:
    """Each name's entrant number (EntrantRow), those new to the database numbered in the session's
    transaction (two writers at once: the second's insert gives way and it reads the first's).

    `known`: numbers a writer read before, which it keeps (a number, once committed, never changes:
    entrant rows are never deleted). Only the other names are looked up, and those found stored
    are added to it; the ones this transaction numbers are not, as it may yet roll back. An empty
    `known` is filled with every stored number first (one read of a small table: a row per
    entrant ever rated). A writer at 10k bots otherwise read ~400 numbers per batch of 100
    matches (~4 ms on PostgreSQL)."""
    wanted = sorted(set(names))
    if known is None:
        known = {}
    elif not known:
        known.update((name, int(number or 0)) for name, number in session.exec(select(EntrantRow.name, EntrantRow.id)))
    missing = [name for name in wanted if name not in known]
    stored = _stored_numbers(session, missing)
    known.update(stored)  # committed before this transaction began numbering: they stay
    numbers = {name: known[name] for name in wanted if name in known}
    new = [name for name in missing if name not in stored]
    if new:
        table = _table(EntrantRow)
        insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
        execute_many(session, table, insert(table).on_conflict_do_nothing(index_elements=["name"]),
                     [{"name": name} for name in new])
        numbers |= _stored_numbers(session, new)
    return numbers


def _stored_numbers(session: Session, names: list[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for start in range(0, len(names), 500):  # under SQLite's limit of bound parameters
        part = names[start:start + 500]
        query = select(EntrantRow.name, EntrantRow.id).where(col(EntrantRow.name).in_(part))
        found.update((name, int(number or 0)) for name, number in session.exec(query))
    return found


def _table(row: Any) -> Table:
    return row.__table__  # type: ignore[no-any-return]


def _upsert(session: Session, table: Table, rows: list[dict[str, Any]], keys: tuple[str, ...],
            summed: tuple[str, ...], newest: tuple[str, ...] = (), highest: str | None = None) -> None:
    """Insert rows, or add to the stored ones: `summed` columns are added, `newest` ones (the first
    orders) are taken from the row with the higher first, `highest` is the larger of the two."""
    if not rows:
        return
    dialect = session.get_bind().dialect.name
    statement = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)
    new, old = statement.excluded, table.c
    values: dict[str, Any] = {name: old[name] + new[name] for name in summed}
    for name in newest:
        values[name] = case((new[newest[0]] > old[newest[0]], new[name]), else_=old[name])
    if highest:
        values[highest] = case((new[highest] > old[highest], new[highest]), else_=old[highest])
    execute_many(session, table, statement.on_conflict_do_update(index_elements=list(keys), set_=values), rows)


# -- the same figures from the stored matches (tests; migration 0013 backfills them in SQL) ----------


def recompute(session: Session) -> Figures:
    """Every aggregate worked out afresh from the stored matches and seats."""
    matches = session.exec(select_columns(MatchRow.id, MatchRow.tournament_id, MatchRow.ruleset, MatchRow.game_id,
                                          MatchRow.status, MatchRow.finished_at).order_by(col(MatchRow.id))).all()
    kinds = dict(session.exec(select(TournamentRow.id, TournamentRow.kind)).all())
    seats: dict[int, list[dict[str, Any]]] = defaultdict(list)
    query = select_columns(SeatRow.match_id, SeatRow.entrant, SeatRow.rank, SeatRow.termination, SeatRow.faults,
                           SeatRow.bot_version_id).order_by(col(SeatRow.match_id), col(SeatRow.seat))
    for match_id, entrant, rank, termination, faults, version in session.exec(query):
        seats[match_id].append(dict(entrant=entrant, rank=rank, termination=termination, faults=faults,
                                    bot_version_id=version))
    figures = Figures()
    for match_id, tournament_id, ruleset, game_id, status, finished_at in matches:
        match = dict(id=match_id, tournament_id=tournament_id, ruleset=ruleset, game_id=game_id, status=status,
                     finished_at=finished_at)
        figures.add(match, seats[match_id], rated=kinds.get(tournament_id) != "sprt")
    return figures


def stored(session: Session) -> Figures:
    """The aggregates as stored, in the same shape as `recompute`'s."""
    figures = Figures()
    for r in session.exec(select(RulesetStatsRow)):
        figures.rulesets[r.ruleset, r.game_id] = [r.finished, r.aborted, r.rated]
    for t in session.exec(select(TournamentStatsRow)):
        figures.tournaments[t.tournament_id] = [t.finished, t.aborted]
    for e in session.exec(select(EntrantStatsRow)):
        figures.entrants[e.ruleset, e.entrant] = [e.matches, e.strikes, e.forfeits, e.last_match_id, e.last_played,
                                                  e.version_id, e.rated_games, e.rated_win_shares, e.rated_strikes,
                                                  e.rated_forfeits]
    first, second = aliased(EntrantRow), aliased(EntrantRow)
    pairs = (select(PairStatsRow, first.name, second.name).join(first, col(first.id) == PairStatsRow.a)
             .join(second, col(second.id) == PairStatsRow.b))
    for p, a, b in session.exec(pairs):
        figures.pairs[p.ruleset, a, b] = [p.matches, p.a_ahead, p.b_ahead, p.ties, p.weight_shares, p.score_shares]
    return figures


def with_ids(rows: Iterable[dict[str, Any]], ids: dict[str, int]) -> list[dict[str, Any]]:
    """Match rows as inserted, each with the id the database gave it (by its key)."""
    return [{**row, "id": ids[row["key"]]} for row in rows]
