"""Storing signed-in authors' dashboard sessions: one `author_session` row each.

The dashboards write them (dashboards/author_sessions.py Sessions), which seal the author's key and
the notice before they come here: this module sees only the hash of a session's id and sealed bytes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

from sqlalchemy import delete, func, insert, or_, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.store.tables import AuthorSessionRow


@dataclass(frozen=True)
class StoredSession:
    """A session's row: its id only as a hash, its key and notice sealed by the dashboard."""

    id_hash: str
    author: str
    csrf: str
    started: float
    seen: float
    bots: list[str]
    key: bytes  # sealed
    notice: bytes | None  # sealed; None: no notice


class AuthorSessionStore:
    """Store's author sessions."""

    engine: Engine
    _writing: Callable[[], AbstractContextManager[Session]]  # Store's: a refused write is a StoreError

    def add_author_session(self, stored: StoredSession, ended_before: float, started_before: float,
                           keep: int) -> None:
        """Store a new session, first deleting the ended ones (seen before `ended_before` or
        started before `started_before`) and, past `keep` sessions, the least recently seen."""
        with self._writing() as session:
            session.execute(delete(AuthorSessionRow).where(or_(col(AuthorSessionRow.seen) < ended_before,
                                                               col(AuthorSessionRow.started) < started_before)))
            count = session.execute(select(func.count()).select_from(AuthorSessionRow)).scalar_one()
            if count >= keep:
                oldest = select(AuthorSessionRow.id_hash).order_by(col(AuthorSessionRow.seen)).limit(count - keep + 1)
                session.execute(delete(AuthorSessionRow).where(col(AuthorSessionRow.id_hash).in_(oldest)))
            session.execute(insert(AuthorSessionRow), [dict(
                id_hash=stored.id_hash, author=stored.author, csrf=stored.csrf, started=stored.started,
                seen=stored.seen, bots=json.dumps(sorted(stored.bots)), key=stored.key, notice=stored.notice)])
            session.commit()

    def author_session(self, id_hash: str) -> StoredSession | None:
        with Session(self.engine) as session:
            row = session.get(AuthorSessionRow, id_hash)
            if row is None:
                return None
            return StoredSession(row.id_hash, row.author, row.csrf, row.started, row.seen, json.loads(row.bots),
                                 row.key, row.notice)

    def touch_author_session(self, id_hash: str, seen: float) -> None:
        self._update_author_session(id_hash, seen=seen)

    def keep_author_session_state(self, id_hash: str, bots: list[str], notice: bytes | None) -> None:
        """Write what a page changed: the author's bots as listed, the notice (None: none)."""
        self._update_author_session(id_hash, bots=json.dumps(sorted(bots)), notice=notice)

    def _update_author_session(self, id_hash: str, **values: object) -> None:
        with self._writing() as session:
            session.execute(update(AuthorSessionRow).where(col(AuthorSessionRow.id_hash) == id_hash).values(values))
            session.commit()

    def delete_author_sessions(self, *, id_hash: str | None = None, author: str | None = None) -> None:
        """Delete the session `id_hash`, or every session of `author`."""
        row = AuthorSessionRow
        which = col(row.id_hash) == id_hash if id_hash is not None else col(row.author) == author
        with self._writing() as session:
            session.execute(delete(AuthorSessionRow).where(which))
            session.commit()

    def count_author_sessions(self) -> int:
        with Session(self.engine) as session:
            return int(session.execute(select(func.count()).select_from(AuthorSessionRow)).scalar_one())
