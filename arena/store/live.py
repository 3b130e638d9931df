"""Storing live matches: one `live_match` row per match being played, with its steps so far.

Only the tournament driver writes them (arena/match/live.py); the dashboard reads them. A row is
deleted when its match's result is stored (Store.record_matches, same transaction) and when its
tournament's status changes (finished, interrupted, or running again on resume), so a resumed
tournament never shows a match that an earlier run was playing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.store.tables import LiveMatchRow, MatchRow, now


@dataclass(frozen=True)
class LiveMatch:
    """A running match as the driver last wrote it."""

    tournament_id: int
    match_index: int
    table_no: int
    rotation: int
    chance_seed: int
    seats: list[str]  # entrant names by seat
    steps: list[dict[str, Any]]  # the record's steps so far (arena/match/runner.py step_json)
    updated_at: datetime | None = None

    @property
    def chance_steps(self) -> int:
        return sum(step.get("chance") is not None for step in self.steps)


class LiveStore:
    """Store's live matches."""

    engine: Engine
    _writing: Callable[[], AbstractContextManager[Session]]  # Store's: a refused write is a StoreError

    def put_live(self, matches: Sequence[LiveMatch]) -> None:
        """Write (or replace) the rows of these running matches in one transaction."""
        if not matches:
            return
        stamp = now()
        rows = [dict(tournament_id=m.tournament_id, match_index=m.match_index, table_no=m.table_no,
                     rotation=m.rotation, chance_seed=m.chance_seed, seats=json.dumps(m.seats),
                     steps=json.dumps(m.steps), num_steps=len(m.steps), chance_steps=m.chance_steps,
                     updated_at=stamp) for m in matches]
        with self._writing() as session:
            delete_live(session, [(m.tournament_id, m.match_index) for m in matches])
            session.execute(insert(LiveMatchRow), rows)
            session.commit()

    def live_matches(self, tournament_id: int) -> list[LiveMatch]:
        """The tournament's running matches, by match index."""
        with Session(self.engine) as session:
            query = select(LiveMatchRow).where(LiveMatchRow.tournament_id == tournament_id)
            return [_live(row) for row in session.exec(query.order_by(col(LiveMatchRow.match_index)))]

    def live_match(self, tournament_id: int, match_index: int) -> LiveMatch | None:
        """One running match, or None (not started, finished, or its tournament is not running)."""
        with Session(self.engine) as session:
            row = session.get(LiveMatchRow, (tournament_id, match_index))
            return _live(row) if row else None

    def match_id_at(self, tournament_id: int, match_index: int) -> int | None:
        """The id of a tournament's stored match at this index, or None (not stored yet)."""
        with Session(self.engine) as session:
            query = select(MatchRow.id).where(col(MatchRow.tournament_id) == tournament_id,
                                              col(MatchRow.match_index) == match_index)
            return session.exec(query).first()

    def stored_in_table(self, tournament_id: int, table_no: int) -> set[int]:
        """The match indexes of one table of a tournament whose results are stored."""
        with Session(self.engine) as session:
            query = select(MatchRow.match_index).where(MatchRow.tournament_id == tournament_id,
                                                       MatchRow.table_no == table_no)
            return set(session.exec(query))


def delete_live(session: Session, keys: Sequence[tuple[int, int]]) -> None:
    """Delete the live rows of these (tournament id, match index) keys, inside `session`."""
    by_tournament: dict[int, list[int]] = {}
    for tournament_id, index in keys:
        by_tournament.setdefault(tournament_id, []).append(index)
    for tournament_id, indexes in by_tournament.items():
        session.execute(delete(LiveMatchRow).where(col(LiveMatchRow.tournament_id) == tournament_id,
                                                   col(LiveMatchRow.match_index).in_(indexes)))


def _live(row: LiveMatchRow) -> LiveMatch:
    return LiveMatch(row.tournament_id, row.match_index, row.table_no, row.rotation, row.chance_seed,
                     json.loads(row.seats), json.loads(row.steps), row.updated_at)
