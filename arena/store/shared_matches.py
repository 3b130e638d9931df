"""The matches two entrants shared, for the dashboard's head-to-head (arena/store/head_to_head.py
has the pair's record).

Read in two statements, neither joining the match table to the seats: the seats first (one
entrant's, through its index, each probed for the other's seat at the same table), then those
matches by id. Joined in one statement, PostgreSQL's planner, before it had statistics of a
history written in bulk, walked the ruleset's whole match index backwards and probed each match for
the two seats: 300 ms at 100,000 matches instead of 3 ms (BENCHMARKS.md, "PostgreSQL at 1M / 10k").
"""

from __future__ import annotations

from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from arena.outcomes import MatchStatus
from arena.store.dashboard_queries import SUMMARY_COLUMNS, _summaries
from arena.store.database import Store
from arena.store.records import MatchSummary
from arena.store.tables import MatchRow, SeatRow, select_columns


def shared_matches(store: Store, ruleset: str, a: str, b: str, *, limit: int = 20) -> list[MatchSummary]:
    """The most recent finished matches of a ruleset where `a` and `b` both sat, newest stored first:
    read backwards from a's seats until `limit` are found (bounded by a's matches, never the history)."""
    mine, theirs = aliased(SeatRow), aliased(SeatRow)
    b_there = select(theirs.id).where(col(theirs.match_id) == col(mine.match_id), theirs.entrant == b).exists()
    shared = select(mine.match_id).where(mine.entrant == a, b_there).order_by(col(mine.match_id).desc())
    found: list[MatchSummary] = []
    with Session(store.engine) as session:
        older: int | None = None
        while len(found) < limit:
            page = shared if older is None else shared.where(col(mine.match_id) < older)
            ids = list(session.exec(page.limit(limit)))  # all that is needed when they met in this ruleset only
            # by id alone: the match's own filters (and an order) in SQL would offer the planner the
            # ruleset's index again
            by_id = select_columns(*SUMMARY_COLUMNS).where(col(MatchRow.id).in_(ids))
            matches = _summaries(session, by_id) if ids else []
            found += sorted((m for m in matches if m.ruleset == ruleset and m.status == MatchStatus.FINISHED),
                            key=lambda m: -m.id)
            if len(ids) < limit:
                break
            older = ids[-1]
    return found[:limit]
