"""Storing launched bots' logs: one `bot_log` row per seat a launched bot played in a stored match.

A row holds what the bot printed while that match was open (its last 64 KiB: the launcher's
`output_bytes`), with the seat's termination and reason. It is written with its match, in the same
transaction (Store.record_matches), with where each decision's part of it starts (`decisions`:
what the bot printed from that decision's request to the next one's), and is private: only the
bot's author and the operator read it (`arena bot logs`, the authors' service and the author's own
pages under /my); no public dashboard page, API or public record carries it. The
table grows by at most 64 KiB per launched seat per match.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import insert
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.store.records import BotLog, MatchResult
from arena.store.tables import BotLogRow


def log_rows(match_ids: dict[str, int], results: Sequence[MatchResult]) -> list[dict[str, Any]]:
    """The bot_log rows of the results' logs (`match_ids`: each result's key -> its match id)."""
    rows = []
    for result in results:
        for seat in result.seats:
            if (text := result.logs.get(seat.seat)) is None:
                continue
            bot, _, number = seat.spec.partition("@")
            rows.append(dict(
                match_id=match_ids[result.key], seat=seat.seat, bot=bot,
                version=int(number) if number.isdigit() else None,
                termination=seat.termination, reason=seat.reason,
                text=text.replace("\x00", "\ufffd"),  # PostgreSQL text holds no NUL; a bot may print one
                decisions=json.dumps(result.log_steps.get(seat.seat) or []),
            ))
    return rows


def insert_logs(session: Session, match_ids: dict[str, int], results: Sequence[MatchResult]) -> None:
    if rows := log_rows(match_ids, results):
        session.execute(insert(BotLogRow), rows)


class BotLogStore:
    """The Store's reading of bot logs (mixed into Store)."""

    engine: Engine

    def bot_logs(self, match_id: int, bot_name: str) -> list[BotLog]:
        """The logs bot `bot_name` (a registered name, any version) left in stored match
        `match_id` (the id the dashboard shows at /matches/ID), one per seat it played, by seat;
        [] when there are none (no such match, the bot did not play it, or it was not launched)."""
        with Session(self.engine) as session:
            query = select(BotLogRow).where(BotLogRow.match_id == match_id, BotLogRow.bot == bot_name)
            return [
                BotLog(row.match_id, row.seat, row.bot, row.version, row.termination, row.reason, row.text,
                       [(step, start) for step, start in json.loads(row.decisions or "[]")])
                for row in session.exec(query.order_by(col(BotLogRow.seat)))
            ]
