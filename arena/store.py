"""The database: SQLModel tables and the queries on them — the only module that imports sqlmodel.

SQLite in `arena.db` by default (or `$ARENA_DB`), any SQLAlchemy URL otherwise, e.g.
`postgresql+psycopg://user@127.0.0.1:5432/arena`. Callers get plain dataclasses back, never
ORM objects, so nothing outside this module depends on a session being open.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError
from sqlmodel import Field, Session, SQLModel, create_engine, select

from arena.errors import UsageError

DEFAULT_DB_URL = "sqlite:///arena.db"
BOT_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")


def default_db_url() -> str:
    """`$ARENA_DB` when set, else `arena.db` in the current folder."""
    return os.environ.get("ARENA_DB", DEFAULT_DB_URL)


def _now() -> datetime:
    return datetime.now(UTC)


class BotRow(SQLModel, table=True):
    __tablename__ = "bot"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True)
    token_hash: str = Field(index=True)
    command: str | None = None
    created_at: datetime = Field(default_factory=_now)


@dataclass(frozen=True)
class BotInfo:
    """A registered external bot (its token is never stored, only a hash of it)."""

    id: int
    name: str
    command: str | None
    created_at: datetime


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _bot_info(row: BotRow) -> BotInfo:
    assert row.id is not None
    return BotInfo(row.id, row.name, row.command, row.created_at)


class Store:
    """One database, opened by URL; creates the tables it needs."""

    def __init__(self, url: str | None = None) -> None:
        self.url = url or default_db_url()
        self.engine = open_engine(self.url)

    def register_bot(self, name: str, command: str | None = None) -> str:
        """Store a new bot and return its token; only a hash of the token is kept."""
        if not BOT_NAME.match(name):
            raise UsageError(
                f"bad bot name {name!r}: use a letter, then up to 63 letters, digits, '_', '.' or '-'"
            )
        token = "arena_" + secrets.token_urlsafe(24)
        with Session(self.engine) as session:
            if session.exec(select(BotRow).where(BotRow.name == name)).first():
                raise UsageError(f"a bot named {name!r} is already registered; choose another name")
            session.add(BotRow(name=name, token_hash=hash_token(token), command=command))
            session.commit()
        return token

    def bot_by_token(self, token: str) -> BotInfo | None:
        """The bot whose token this is, or None."""
        with Session(self.engine) as session:
            row = session.exec(select(BotRow).where(BotRow.token_hash == hash_token(token))).first()
            return _bot_info(row) if row else None

    def bot(self, name: str) -> BotInfo | None:
        """The registered bot with this name, or None."""
        with Session(self.engine) as session:
            row = session.exec(select(BotRow).where(BotRow.name == name)).first()
            return _bot_info(row) if row else None

    def bots(self) -> list[BotInfo]:
        """Every registered bot, by name."""
        with Session(self.engine) as session:
            return [_bot_info(row) for row in session.exec(select(BotRow).order_by(BotRow.name))]


def open_engine(url: str):  # noqa: ANN201 - SQLAlchemy's Engine type
    """Connect and create missing tables; a bad URL is a UsageError that says what is valid."""
    try:
        engine = create_engine(url)
        SQLModel.metadata.create_all(engine)
    except (ArgumentError, NoSuchModuleError, OperationalError, ValueError) as error:
        raise UsageError(
            f"cannot open database {url!r} ({type(error).__name__}: {str(error).splitlines()[0]}); "
            "use sqlite:///path.db or postgresql+psycopg://user@host:port/dbname"
        ) from None
    return engine
