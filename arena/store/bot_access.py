"""Who may play: rotating a bot's token, disabling, enabling and removing a bot.

These run in the CLI's process while a gateway (`arena serve`) runs in another; the gateway
asks `live_token_hashes()` every second and closes the streams these changes revoke.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.errors import UsageError
from arena.store.tables import BotRow, now
from arena.store.tokens import hash_token


def new_token() -> str:
    """A fresh bot token (shown once; only its hash is stored)."""
    return "arena_" + secrets.token_urlsafe(24)


class BotAccess:
    """Mixed into Store: changes to the registered bots' access, over its `engine`."""

    engine: Engine
    _writing: Callable[[], AbstractContextManager[Session]]  # Store's: a refused write is a StoreError

    def rotate_token(self, name: str) -> str:
        """Give the bot a new token and return it; the old one stops working at once."""
        token = new_token()
        self._change_bot(name, token_hash=hash_token(token))
        return token

    def set_disabled(self, name: str, disabled: bool) -> None:
        """Disable (may not connect or be seated) or enable a bot; UsageError when nothing changes."""
        with Session(self.engine) as session:
            row = _live_row(session, name)
            if row.disabled == disabled:
                raise UsageError(f"bot {name!r} is {'already' if disabled else 'not'} disabled")
        self._change_bot(name, disabled=disabled)

    def remove_bot(self, name: str) -> None:
        """Forget the bot's token and command; its name stays, with its match history."""
        self._change_bot(name, token_hash="", command=None, files=None, disabled=True, removed_at=now())

    def live_token_hashes(self, names: Iterable[str] | None = None) -> dict[str, str]:
        """The token hash of every bot (of `names`, when given) that may connect now: registered,
        not disabled, not removed."""
        query = select(BotRow.name, BotRow.token_hash).where(
            col(BotRow.removed_at).is_(None), col(BotRow.disabled).is_(False))
        if names is not None:
            query = query.where(col(BotRow.name).in_(list(names)))
        with Session(self.engine) as session:
            return dict(session.exec(query).all())

    def _change_bot(self, name: str, **values: Any) -> None:
        with self._writing() as session:
            _live_row(session, name)
            session.execute(update(BotRow).where(col(BotRow.name) == name).values(**values))
            session.commit()


def _live_row(session: Session, name: str) -> BotRow:
    row = session.exec(select(BotRow).where(BotRow.name == name, col(BotRow.removed_at).is_(None))).first()
    if row is None:
        raise UsageError(f"no registered bot is named {name!r} (see `arena bot list`)")
    return row
