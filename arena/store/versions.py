"""Submitted versions of registered bots: `NAME@1`, `NAME@2`, ... each with its command and files.

A version is never changed once stored, so a tournament that pinned `NAME@2` plays exactly those
files to its end (and on resume), whatever is submitted later. Mixed into Store.
"""

from __future__ import annotations

from sqlalchemy import func, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from arena.errors import UsageError
from arena.store.records import BotVersion
from arena.store.tables import BotRow, SubmissionRow

ATTEMPTS = 5  # two submissions of one bot at once: the loser of a number takes the next one


def _version(row: SubmissionRow, bot: str) -> BotVersion:
    return BotVersion(bot, row.number, row.sha256, row.command, row.files, row.created_at)


class Versions:
    """Reads and writes of bot versions over the Store's `engine`."""

    engine: Engine

    def add_version(self, name: str, command: str, files: str | None, sha256: str) -> BotVersion:
        """Store the next version of the registered bot `name` and make it the bot's command."""
        for _ in range(ATTEMPTS):
            try:
                return self._insert_version(name, command, files, sha256)
            except IntegrityError:
                continue
        raise UsageError(f"could not number a new version of {name!r}: {ATTEMPTS} other submissions "
                         "came first; try again")

    def _insert_version(self, name: str, command: str, files: str | None, sha256: str) -> BotVersion:
        with Session(self.engine) as session:
            bot = session.exec(select(BotRow).where(BotRow.name == name)).first()
            if bot is None or bot.id is None:
                raise UsageError(f"no bot named {name!r} is registered")
            last = session.exec(select(func.max(SubmissionRow.number)).where(SubmissionRow.bot_id == bot.id)).one()
            row = SubmissionRow(bot_id=bot.id, number=(last or 0) + 1, sha256=sha256, command=command, files=files)
            session.add(row)
            session.execute(update(BotRow).where(BotRow.id == bot.id).values(command=command, files=files))
            session.commit()
            session.refresh(row)
            return _version(row, name)

    def versions(self, name: str) -> list[BotVersion]:
        """Every stored version of a bot, oldest first (none for a bot that only dials in)."""
        query = (
            select(SubmissionRow).join(BotRow, BotRow.id == SubmissionRow.bot_id)
            .where(BotRow.name == name).order_by(SubmissionRow.number)
        )
        with Session(self.engine) as session:
            return [_version(row, name) for row in session.exec(query)]

    def version(self, name: str, number: int | None = None) -> BotVersion | None:
        """Version `number` of a bot, or its latest when `number` is None; None if there is none."""
        query = select(SubmissionRow).join(BotRow, BotRow.id == SubmissionRow.bot_id).where(BotRow.name == name)
        if number is None:
            query = query.order_by(SubmissionRow.number.desc())  # type: ignore[attr-defined]
        else:
            query = query.where(SubmissionRow.number == number)
        with Session(self.engine) as session:
            row = session.exec(query.limit(1)).first()
            return _version(row, name) if row else None
