"""Bot authors: people who register and submit bots through the authors' service (docs/authors.md)
with an author key, of which only a hash is kept. AuthorAccounts is mixed into Store.

A bot belongs to one author (`bot.author_id`) or, with none, to the arena's operator: every bot
registered on the arena's machine, and every bot that existed before authors did, is the
operator's until `arena bot assign NAME AUTHOR`. Removing an author gives their bots back to the
operator; their versions and match history stay.
"""

from __future__ import annotations

import hmac
import re
import secrets
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.errors import UsageError
from arena.store.bots import hash_token
from arena.store.records import BotInfo
from arena.store.tables import AuthorRow, BotRow, SubmissionRow

AUTHOR_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class AuthorInfo:
    """An author account (its key is never stored, only a hash of it)."""

    id: int
    name: str
    disabled: bool
    created_at: datetime
    bots: int = 0  # how many registered bots are theirs


KEY_PREFIX = "arena_author_"


def new_author_key(name: str) -> str:
    """A fresh author key (shown once; only its hash is stored): `arena_author_NAME:<random>`. The
    name lets the gateway and the dashboard count a failed key against the author it claims to be
    (`key_author`), so one stranger's guesses do not lock out the other authors at that address."""
    return f"{KEY_PREFIX}{name}:{secrets.token_urlsafe(32)}"


def key_author(key: str) -> str | None:
    """The author name a key claims (`arena_author_NAME:...`), or None for a key without one (issued
    before keys carried names, or not a key at all). Only a claim: the key's hash says whose it is."""
    if not key.startswith(KEY_PREFIX):
        return None
    name, colon, _ = key.removeprefix(KEY_PREFIX).partition(":")
    return name if colon and AUTHOR_NAME.match(name) else None


def check_author_name(name: str) -> None:
    """UsageError unless `name` can name an author."""
    if not AUTHOR_NAME.match(name):
        raise UsageError(f"bad author name {name!r}: use a letter, then up to 63 letters, digits, '_', '.' or '-'")


def _info(row: AuthorRow, bots: int = 0) -> AuthorInfo:
    assert row.id is not None
    return AuthorInfo(row.id, row.name, row.disabled, row.created_at, bots)


LIVE_BOT = col(BotRow.removed_at).is_(None)


class AuthorAccounts:
    """Mixed into Store: author accounts and which bots are theirs, over its `engine`."""

    engine: Engine
    _writing: Callable[[], AbstractContextManager[Session]]  # Store's: a refused write is a StoreError

    def add_author(self, name: str) -> str:
        """Store a new author and return their key; only a hash of it is kept."""
        check_author_name(name)
        key = new_author_key(name)
        with self._writing() as session:
            if session.exec(select(AuthorRow).where(AuthorRow.name == name)).first():
                raise UsageError(f"an author named {name!r} already exists; choose another name "
                                 f"(`arena author rotate {name}` issues them a new key)")
            session.add(AuthorRow(name=name, key_hash=hash_token(key)))
            session.commit()
        return key

    def authors(self) -> list[AuthorInfo]:
        """Every author, by name, with how many registered bots are theirs."""
        counts = (select(BotRow.author_id, func.count().label("bots")).where(LIVE_BOT)
                  .group_by(col(BotRow.author_id)).subquery())
        query = (select(AuthorRow, counts.c.bots).join(counts, counts.c.author_id == AuthorRow.id, isouter=True)
                 .order_by(AuthorRow.name))
        with Session(self.engine) as session:
            return [_info(row, bots or 0) for row, bots in session.exec(query)]

    def author(self, name: str) -> AuthorInfo:
        """The author with this name; UsageError when there is none."""
        with Session(self.engine) as session:
            return _info(_author_row(session, name))

    def author_for_key(self, key: str) -> AuthorInfo | None:
        """The author (disabled or not) whose key this is, or None. Every stored hash is compared
        in constant time (hmac.compare_digest), so timing does not tell how close a guess came."""
        wanted = hash_token(key)
        found = None
        with Session(self.engine) as session:
            for row in session.exec(select(AuthorRow)):
                if hmac.compare_digest(row.key_hash, wanted):
                    found = row
            return _info(found) if found is not None else None

    def rotate_author_key(self, name: str) -> str:
        """Give the author a new key and return it; the old one stops working at once."""
        key = new_author_key(name)
        self._change_author(name, key_hash=hash_token(key))
        return key

    def set_author_disabled(self, name: str, disabled: bool) -> None:
        """Disable (their key is refused) or enable an author; UsageError when nothing changes."""
        if self.author(name).disabled == disabled:
            raise UsageError(f"author {name!r} is {'already' if disabled else 'not'} disabled")
        self._change_author(name, disabled=disabled)

    def remove_author(self, name: str) -> int:
        """Forget the author; their bots become the operator's. Returns how many bots that was."""
        with self._writing() as session:
            row = _author_row(session, name)
            moved = session.execute(update(BotRow).where(col(BotRow.author_id) == row.id).values(author_id=None))
            session.execute(delete(AuthorRow).where(col(AuthorRow.id) == row.id))
            session.commit()
            return int(moved.rowcount or 0)  # type: ignore[attr-defined]

    def assign_bot(self, bot: str, author: str | None) -> None:
        """Make the registered bot `author`'s (None: the operator's)."""
        with self._writing() as session:
            author_id = _author_row(session, author).id if author is not None else None
            _bot_row(session, bot)
            session.execute(update(BotRow).where(col(BotRow.name) == bot).values(author_id=author_id))
            session.commit()

    def bot_author(self, bot: str) -> str | None:
        """The name of the registered bot's author, None when it is the operator's; UsageError
        when no bot of that name is registered."""
        with Session(self.engine) as session:
            row = _bot_row(session, bot)
            if row.author_id is None:
                return None
            author = session.get(AuthorRow, row.author_id)
            return author.name if author else None

    def author_bots(self, author: str) -> list[BotInfo]:
        """The author's registered bots, by name."""
        query = (select(BotRow).join(AuthorRow, col(AuthorRow.id) == col(BotRow.author_id))
                 .where(AuthorRow.name == author, LIVE_BOT).order_by(BotRow.name))
        with Session(self.engine) as session:
            return [BotInfo(row.id or 0, row.name, row.command, row.created_at, row.files, row.disabled)
                    for row in session.exec(query)]

    def author_submissions_since(self, author: str, since: datetime) -> list[datetime]:
        """When each version of the author's bots stored at or after `since` was stored, oldest first."""
        query = (select(SubmissionRow.created_at).join(BotRow, col(BotRow.id) == col(SubmissionRow.bot_id))
                 .join(AuthorRow, col(AuthorRow.id) == col(BotRow.author_id))
                 .where(AuthorRow.name == author, col(SubmissionRow.created_at) >= since)
                 .order_by(col(SubmissionRow.created_at)))
        with Session(self.engine) as session:
            return [_utc(stamp) for stamp in session.exec(query)]

    def _change_author(self, name: str, **values: Any) -> None:
        with self._writing() as session:
            _author_row(session, name)
            session.execute(update(AuthorRow).where(col(AuthorRow.name) == name).values(**values))
            session.commit()


def _utc(stamp: datetime) -> datetime:
    """SQLite hands back the stored UTC times without their zone."""
    return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=UTC)


def _author_row(session: Session, name: str) -> AuthorRow:
    row = session.exec(select(AuthorRow).where(AuthorRow.name == name)).first()
    if row is None:
        raise UsageError(f"no author is named {name!r} (see `arena author list`; `arena author add NAME` adds one)")
    return row


def _bot_row(session: Session, name: str) -> BotRow:
    row = session.exec(select(BotRow).where(BotRow.name == name, LIVE_BOT)).first()
    if row is None:
        raise UsageError(f"no registered bot is named {name!r} (see `arena bot list`)")
    return row
