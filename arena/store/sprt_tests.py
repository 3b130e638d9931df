"""Storing SPRT tests: the `sprt` row (counts, LLR, Elo estimate, verdict) and the LLR after every pair.

An SPRT's games are stored as the matches of a tournament of kind `sprt` (replays and match
lists work for them as for any match); these tables hold what the test made of them. The state
is derived data: a resumed test recomputes it from the stored matches and replaces it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import delete, func, insert, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.store.queries import Queries
from arena.store.records import TournamentInfo
from arena.store.tables import SprtLlrRow, SprtRow, TournamentRow, now

SPRT_KIND = "sprt"


@dataclass(frozen=True)
class SprtState:
    """What a test made of its pairs so far (pairs counted in pair order)."""

    pairs: int
    aborted_pairs: int
    pentanomial: list[int]
    llr: float
    lower: float
    upper: float
    elo: float
    low: float
    high: float
    los: float
    verdict: str | None = None


@dataclass(frozen=True)
class SprtInfo:
    """A stored test: its tournament (config, status, games) and its state."""

    tournament: TournamentInfo
    state: SprtState
    updated_at: datetime | None = None
    history: list[tuple[int, float]] = field(default_factory=list)  # (pairs, LLR), when asked for

    @property
    def id(self) -> int:
        return self.tournament.id


class SprtStore(Queries):
    """Store's SPRT tables, on top of the read queries (tests are tournaments of kind `sprt`)."""

    engine: Engine
    _writing: Callable[[], AbstractContextManager[Session]]  # Store's: a refused write is a StoreError

    def save_sprt(self, tournament_id: int, state: SprtState, points: Sequence[tuple[int, float]] = (),
                  replace_history: bool = False) -> None:
        """Store a test's state and the (pairs, LLR) points that are new (or all, replacing)."""
        values = {**vars(state), "pentanomial": json.dumps(state.pentanomial), "updated_at": now()}
        rows = [dict(tournament_id=tournament_id, pairs=p, llr=v) for p, v in points]
        with self._writing() as session:
            found = session.exec(update(SprtRow).where(col(SprtRow.tournament_id) == tournament_id).values(**values))
            if found.rowcount == 0:
                session.execute(insert(SprtRow).values(tournament_id=tournament_id, **values))
            if replace_history:
                session.execute(delete(SprtLlrRow).where(col(SprtLlrRow.tournament_id) == tournament_id))
            if rows:
                session.execute(insert(SprtLlrRow), rows)
            session.commit()

    def sprt(self, tournament_id: int, history: bool = False) -> SprtInfo | None:
        """One test with its state (and its LLR after every pair when `history`), or None."""
        info = self.tournament(tournament_id)
        if info is None or info.kind != SPRT_KIND:
            return None
        with Session(self.engine) as session:
            row = session.get(SprtRow, tournament_id)
            points = self._history(session, tournament_id) if history else []
        return _sprt_info(info, row, points)

    def sprts(self, limit: int = 100, offset: int = 0) -> list[SprtInfo]:
        """Tests, newest first."""
        infos = self.tournaments(kind=SPRT_KIND, limit=limit, offset=offset)
        with Session(self.engine) as session:
            rows = {r.tournament_id: r for r in session.exec(
                select(SprtRow).where(col(SprtRow.tournament_id).in_([i.id for i in infos])))}
        return [_sprt_info(info, rows.get(info.id), []) for info in infos]

    def count_sprts(self) -> int:
        """How many tests are stored."""
        with Session(self.engine) as session:
            query = select(func.count(col(TournamentRow.id))).where(TournamentRow.kind == SPRT_KIND)
            return int(session.exec(query).one())

    @staticmethod
    def _history(session: Session, tournament_id: int) -> list[tuple[int, float]]:
        query = select(SprtLlrRow.pairs, SprtLlrRow.llr).where(SprtLlrRow.tournament_id == tournament_id)
        return [(p, v) for p, v in session.exec(query.order_by(col(SprtLlrRow.pairs)))]


def _sprt_info(info: TournamentInfo, row: SprtRow | None, points: list[tuple[int, float]]) -> SprtInfo:
    if row is None:  # stored by a driver killed before its first write: nothing counted yet
        alpha, beta = info.config["alpha"], info.config["beta"]
        lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
        return SprtInfo(info, SprtState(0, 0, [0] * 5, 0.0, lower, upper, 0.0, -math.inf, math.inf, 0.5), None, points)
    state = SprtState(row.pairs, row.aborted_pairs, json.loads(row.pentanomial), row.llr, row.lower, row.upper,
                      row.elo, row.low, row.high, row.los, row.verdict)
    return SprtInfo(info, state, row.updated_at, points)
