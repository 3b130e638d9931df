"""Retired bot tokens: `retired_token` keeps the hash of each token that stopped working.

Revision ID: 0012
Revises: 0011

A token stops working when it is rotated (`arena bot token NAME --rotate`, the authors' service's
RotateToken) or its bot is removed. Its hash is kept with the bot and why, so that a bot dialling
in with it is told so (arena/gateway/service.py) rather than "unknown token". Only hashes, as for
live tokens (arena/store/bots.py).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "retired_token" in sa.inspect(op.get_bind()).get_table_names():  # a create_all database has it
        return
    op.create_table(
        "retired_token",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("why", sa.String(), nullable=False),
        sa.Column("retired_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bot.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_retired_token_token_hash", "retired_token", ["token_hash"])
    op.create_index("ix_retired_token_bot_id", "retired_token", ["bot_id"])


def downgrade() -> None:
    op.drop_index("ix_retired_token_bot_id", table_name="retired_token")
    op.drop_index("ix_retired_token_token_hash", table_name="retired_token")
    op.drop_table("retired_token")
