"""Keeping the database's size in hand: export matches to files, prune old records (`arena store`).

An export is one gzip-compressed JSON Lines file per ruleset, `<ruleset>.jsonl.gz` (e.g.
`riga@1.jsonl.gz`), one line per match in id order:

    {"match": {id, key, tournament_id, match_index, round, table_no, rotation, game_id, ruleset,
               num_players, seed, chance_seed, status, aborted_reason, decisions, duration_ms,
               attempts, node, finished_at (ISO 8601)},
     "seats": [{seat, entrant, spec, kind, version, score, rank, termination, reason, faults}, ...],
     "record": the MatchRecord JSON exactly as stored, or null when it was pruned}

Pruning sets a match's record to NULL: its row and seats stay, so ratings, standings and
leaderboards (read from the seats) do not change; the dashboard says the record was pruned. A
match of a tournament that is not finished is refused: a running one may still need it, and its
replays may not all be released yet (the dashboard shows a replay once its table's rotations are all
played: arena/store/release.py).
"""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from sqlalchemy import func, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.errors import UsageError
from arena.outcomes import TournamentStatus
from arena.store.record_codec import record_text
from arena.store.tables import BotVersionRow, MatchRow, SeatRow, TournamentRow

BATCH = 1_000  # matches read per query
RUNNING = (TournamentStatus.RUNNING, TournamentStatus.PAUSED, TournamentStatus.STOPPING)  # still playing
FIELDS = ["id", "key", "tournament_id", "match_index", "round", "table_no", "rotation", "game_id", "ruleset",
          "num_players", "seed", "chance_seed", "status", "aborted_reason", "decisions", "duration_ms",
          "attempts", "node", "finished_at"]


@dataclass(frozen=True)
class Selection:
    """Which matches: finished before `before` and at or after `since` (None: no bound), of one
    ruleset or all, and not among the newest `keep_last` (by id)."""

    before: datetime | None = None
    since: datetime | None = None
    ruleset: str | None = None
    keep_last: int | None = None

    def where(self, session: Session) -> list[Any]:
        clauses: list[Any] = []
        if self.before is not None:
            clauses.append(col(MatchRow.finished_at) < self.before)
        if self.since is not None:
            clauses.append(col(MatchRow.finished_at) >= self.since)
        if self.ruleset is not None:
            clauses.append(MatchRow.ruleset == self.ruleset)
        if self.keep_last is not None:
            newest = select(MatchRow.id).order_by(col(MatchRow.id).desc()).offset(self.keep_last).limit(1)
            last_pruned = session.exec(newest).first()
            clauses.append(col(MatchRow.id) <= (last_pruned if last_pruned is not None else 0))
        return clauses


def export_matches(engine: Engine, folder: Path, selection: Selection) -> dict[str, int]:
    """Write the selected matches to `folder` (one file per ruleset); returns matches per file name."""
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, IO[str]] = {}
    counts: dict[str, int] = defaultdict(int)
    try:
        for ruleset, line in _lines(engine, selection):
            name = f"{ruleset}.jsonl.gz"
            if name not in files:
                if (folder / name).exists():
                    raise UsageError(f"{folder / name} exists already; export to a new folder (or remove it)")
                files[name] = gzip.open(folder / name, "wt", encoding="utf-8")
            files[name].write(line + "\n")
            counts[name] += 1
    finally:
        for out in files.values():
            out.close()
    return dict(counts)


def read_export(path: Path) -> Iterator[dict[str, Any]]:
    """The matches of one export file, as written."""
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            yield json.loads(line)


def _lines(engine: Engine, selection: Selection) -> Iterator[tuple[str, str]]:
    """(ruleset, JSON line) of every selected match, BATCH at a time in id order; the record goes
    into the line as its stored text, untouched."""
    after = 0
    with Session(engine) as session:
        clauses = selection.where(session)
        while True:
            query = select(MatchRow).where(col(MatchRow.id) > after, *clauses).order_by(col(MatchRow.id)).limit(BATCH)
            rows = list(session.exec(query))
            if not rows:
                return
            seats = _seats(session, [row.id for row in rows if row.id is not None])
            for row in rows:
                meta = {name: getattr(row, name) for name in FIELDS}
                meta["finished_at"] = row.finished_at.isoformat()
                record = "null" if row.record is None else record_text(row.record, row.id or 0)
                yield row.ruleset, (f'{{"match": {json.dumps(meta)}, "seats": {json.dumps(seats[row.id or 0])}, '
                                    f'"record": {record}}}')
            after = rows[-1].id or 0
            session.expunge_all()  # a batch's records are not kept in memory past it


def _seats(session: Session, match_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    query = (select(SeatRow, BotVersionRow).join(BotVersionRow, col(BotVersionRow.id) == col(SeatRow.bot_version_id))
             .where(col(SeatRow.match_id).in_(match_ids)).order_by(col(SeatRow.match_id), col(SeatRow.seat)))
    seats: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for seat, version in session.exec(query):
        seats[seat.match_id].append(dict(
            seat=seat.seat, entrant=seat.entrant, spec=version.spec, kind=version.kind, version=version.version,
            score=seat.score, rank=seat.rank, termination=seat.termination, reason=seat.reason, faults=seat.faults))
    return seats


def prune_records(engine: Engine, selection: Selection, *, unreleased: bool = False) -> int:
    """Drop the records of the selected matches (their rows and seats stay); returns how many.

    A UsageError (one line) and nothing pruned when a selected match belongs to a running
    tournament or ladder, or, unless `unreleased`, to one not finished (its replay not released)."""
    with Session(engine) as session:
        clauses = [col(MatchRow.record).is_not(None), *selection.where(session)]
        _refuse_unfinished(session, clauses, unreleased)
        pruned = session.execute(update(MatchRow).where(*clauses).values(record=None))
        session.commit()
        return int(pruned.rowcount)  # type: ignore[attr-defined]


def _refuse_unfinished(session: Session, clauses: list[Any], unreleased: bool) -> None:
    query = (select(TournamentRow.id, TournamentRow.kind, TournamentRow.status, func.count(col(MatchRow.id)))
             .join(MatchRow, col(MatchRow.tournament_id) == col(TournamentRow.id))
             .where(TournamentRow.status != TournamentStatus.FINISHED, *clauses)
             .group_by(col(TournamentRow.id), col(TournamentRow.kind), col(TournamentRow.status))
             .order_by(col(TournamentRow.id)))
    for tournament_id, kind, status, matches in session.execute(query):
        what = f"{kind.replace('_', ' ')} {tournament_id}"
        if status in RUNNING:
            raise UsageError(f"refusing to prune: {matches} of the matches are of {what}, which is {status}; "
                             "stop it first, or prune --before an earlier date")
        if not unreleased:
            raise UsageError(f"refusing to prune: the replays of {matches} matches of {what} ({status}) are not "
                             "released yet (not all: one is shown once every rotation of its table is played); "
                             "add --unreleased to prune them anyway")
