"""PLACEHOLDER until the `botlogs` branch is merged: `Store.bot_logs(match_id, bot_name)`.

The botlogs branch stores the tail of a launched bot's output for each match it plays and adds
`Store.bot_logs(match_id: int, bot_name: str) -> list[BotLog]` (BotLog in arena/store/records.py:
match_id, seat, bot, version, termination, reason, text). The authors' service (ReadLog,
arena/gateway/authoring.py) is written against that signature. Merging: delete this file and the
`BotLogsPlaceholder` base of Store in arena/store/database.py; nothing else refers to it.
"""

from __future__ import annotations

from typing import Any


class BotLogsPlaceholder:
    """Mixed into Store, last: the botlogs branch's own `bot_logs` takes precedence over this one."""

    def bot_logs(self, match_id: int, bot_name: str) -> list[Any]:
        """No logs are stored before the botlogs branch: always empty."""
        return []
