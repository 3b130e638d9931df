"""The registered bots: their tokens (kept only as hashes), who may play (rotating a token,
disabling, enabling and removing a bot) and their submitted versions (`NAME@1`, `NAME@2`, ... each
with its command and files). BotAccess and Versions are mixed into Store.

Access changes run in the CLI's process while a gateway (`arena serve`) runs in another; the
gateway asks `live_token_hashes()` every second and closes the streams these changes revoke.
A version is never changed once stored, so a tournament that pinned `NAME@2` plays exactly those
files to its end (and on resume), whatever is submitted later.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import func, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from arena.errors import UsageError
from arena.store.records import BotVersion, RetiredToken
from arena.store.tables import BotRow, RetiredTokenRow, SubmissionRow, now


def hash_token(token: str) -> str:
    """The SHA-256 hex digest under which a token is stored."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A fresh bot token (shown once; only its hash is stored)."""
    return "arena_" + secrets.token_urlsafe(24)


class BotAccess:
    """Mixed into Store: changes to the registered bots' access, over its `engine`."""

    engine: Engine
    _writing: Callable[[], AbstractContextManager[Session]]  # Store's: a refused write is a StoreError

    def rotate_token(self, name: str) -> str:
        """Give the bot a new token and return it; the old one stops working at once (its hash is
        kept as retired, so that a bot still using it is told so)."""
        token = new_token()
        self._change_bot(name, token_hash=hash_token(token), retiring="rotated")
        return token

    def set_disabled(self, name: str, disabled: bool) -> None:
        """Disable (may not connect or be seated) or enable a bot; UsageError when nothing changes.
        Enabling also lifts the suspension of every version of the bot (Versions.suspend_version)."""
        with Session(self.engine) as session:
            row = _live_row(session, name)
            if row.disabled == disabled and (disabled or not _suspended(session, row)):
                raise UsageError(f"bot {name!r} is {'already' if disabled else 'not'} disabled")
        if not disabled:
            self._lift_suspensions(name)
        self._change_bot(name, disabled=disabled)

    def _lift_suspensions(self, name: str) -> None:
        with self._writing() as session:
            bot = _live_row(session, name)
            session.execute(update(SubmissionRow).where(col(SubmissionRow.bot_id) == bot.id)
                            .values(suspended_reason=None, suspended_at=None))
            session.commit()

    def remove_bot(self, name: str) -> None:
        """Forget the bot's token and command; its name stays, with its match history."""
        self._change_bot(name, token_hash="", command=None, files=None, disabled=True, removed_at=now(),
                         retiring="removed")

    def retired_token(self, token: str) -> RetiredToken | None:
        """Whose this token was and why it stopped working, for a token that was rotated or whose
        bot was removed; None for any other (a live one, or one that never existed)."""
        query = (select(RetiredTokenRow, BotRow.name).join(BotRow, col(BotRow.id) == RetiredTokenRow.bot_id)
                 .where(RetiredTokenRow.token_hash == hash_token(token))
                 .order_by(col(RetiredTokenRow.retired_at).desc()))
        with Session(self.engine) as session:
            found = session.exec(query.limit(1)).first()
        return RetiredToken(found[1], found[0].why, found[0].retired_at) if found else None

    def live_token_hashes(self, names: Iterable[str] | None = None) -> dict[str, str]:
        """The token hash of every bot (of `names`, when given) that may connect now: registered,
        not disabled, not removed."""
        query = select(BotRow.name, BotRow.token_hash).where(
            col(BotRow.removed_at).is_(None), col(BotRow.disabled).is_(False))
        if names is not None:
            query = query.where(col(BotRow.name).in_(list(names)))
        with Session(self.engine) as session:
            return dict(session.exec(query).all())

    def _change_bot(self, name: str, retiring: str | None = None, **values: Any) -> None:
        """Change the bot's row; `retiring`: why its current token stops working, kept by its hash."""
        with self._writing() as session:
            row = _live_row(session, name)
            if retiring and row.token_hash and row.id is not None:
                session.add(RetiredTokenRow(token_hash=row.token_hash, bot_id=row.id, why=retiring))
            session.execute(update(BotRow).where(col(BotRow.name) == name).values(**values))
            session.commit()


def _suspended(session: Session, bot: BotRow) -> bool:
    query = select(SubmissionRow.id).where(col(SubmissionRow.bot_id) == bot.id,
                                           col(SubmissionRow.suspended_reason).is_not(None))
    return session.exec(query.limit(1)).first() is not None


def _live_row(session: Session, name: str) -> BotRow:
    row = session.exec(select(BotRow).where(BotRow.name == name, col(BotRow.removed_at).is_(None))).first()
    if row is None:
        raise UsageError(f"no registered bot is named {name!r} (see `arena bot list`)")
    return row


ATTEMPTS = 5  # two submissions of one bot at once: the loser of a number takes the next one


def _version(row: SubmissionRow, bot: str) -> BotVersion:
    return BotVersion(bot, row.number, row.sha256, row.command, row.files, row.created_at, row.suspended_reason,
                      row.validated_at is not None)


class Versions:
    """Reads and writes of bot versions over the Store's `engine`."""

    engine: Engine
    _writing: Callable[[], AbstractContextManager[Session]]

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
            session.execute(update(BotRow).where(col(BotRow.id) == bot.id).values(command=command, files=files))
            session.commit()
            session.refresh(row)
            return _version(row, name)

    def suspend_version(self, name: str, number: int, reason: str) -> None:
        """Stop seating `NAME@number` (the ladder's call when its last matches all ended in its own
        crash) with a reason for its author; a new version or `arena bot enable` lifts it."""
        with self._writing() as session:
            bot = _live_row(session, name)
            changed = session.execute(
                update(SubmissionRow).where(col(SubmissionRow.bot_id) == bot.id, col(SubmissionRow.number) == number)
                .values(suspended_reason=reason, suspended_at=now()))
            if changed.rowcount == 0:  # type: ignore[attr-defined]
                raise UsageError(f"bot {name!r} has no version {number}")
            session.commit()

    def mark_validated(self, name: str, number: int) -> bool:
        """`NAME@number` passed its validation match: the ladder may seat it. False (and nothing
        changes) when it was rejected or suspended meanwhile (another ladder's validation failed)."""
        with self._writing() as session:
            bot = _live_row(session, name)
            changed = session.execute(
                update(SubmissionRow).where(col(SubmissionRow.bot_id) == bot.id, col(SubmissionRow.number) == number,
                                            col(SubmissionRow.suspended_reason).is_(None))
                .values(validated_at=now()))
            session.commit()
            return bool(changed.rowcount)  # type: ignore[attr-defined]

    def versions(self, name: str) -> list[BotVersion]:
        """Every stored version of a bot, oldest first (none for a bot that only dials in)."""
        query = (
            select(SubmissionRow).join(BotRow, col(BotRow.id) == SubmissionRow.bot_id)
            .where(BotRow.name == name).order_by(col(SubmissionRow.number))
        )
        with Session(self.engine) as session:
            return [_version(row, name) for row in session.exec(query)]

    def version(self, name: str, number: int | None = None) -> BotVersion | None:
        """Version `number` of a bot, or its latest when `number` is None; None if there is none."""
        query = select(SubmissionRow).join(BotRow, col(BotRow.id) == SubmissionRow.bot_id).where(BotRow.name == name)
        if number is None:
            query = query.order_by(SubmissionRow.number.desc())  # type: ignore[attr-defined]
        else:
            query = query.where(SubmissionRow.number == number)
        with Session(self.engine) as session:
            row = session.exec(query.limit(1)).first()
            return _version(row, name) if row else None
