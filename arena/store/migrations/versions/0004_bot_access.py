"""Bots that may be disabled or removed (`arena bot disable|enable|remove`, docs/protocol.md "Tokens").

Revision ID: 0004
Revises: 0003

`bot.disabled`: the bot may not connect or be seated (false for every existing bot).
`bot.removed_at`: set when the bot was removed; its row stays so that its name, which its match
history uses, is not registered again.

A database without `alembic_version` made by create_all after these columns were added to
tables.py already has them; they are added only where missing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


COLUMNS: dict[str, Callable[[], sa.Column[Any]]] = {
    "disabled": lambda: sa.Column("disabled", sa.Boolean(), server_default=sa.false(), nullable=False),
    "removed_at": lambda: sa.Column("removed_at", sa.DateTime(timezone=True), nullable=True),
}


def upgrade() -> None:
    existing = {column["name"] for column in sa.inspect(op.get_bind()).get_columns("bot")}
    for name, column in COLUMNS.items():
        if name not in existing:
            op.add_column("bot", column())


def downgrade() -> None:
    with op.batch_alter_table("bot") as batch:
        batch.drop_column("removed_at")
        batch.drop_column("disabled")
