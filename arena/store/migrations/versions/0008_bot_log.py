"""Bot logs: bot_log holds what each launched bot printed during a stored match, per seat.

Revision ID: 0008
Revises: 0007

Written by the driver with its match (arena/store/bot_logs.py); private to the bot's author and
the operator.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "bot_log" in sa.inspect(op.get_bind()).get_table_names():  # a create_all database has it
        return
    op.create_table(
        "bot_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("bot", sa.String(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=True),
        sa.Column("termination", sa.String(), nullable=False),
        sa.Column("reason", sa.String(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("match_id", "seat"),
    )
    op.create_index("ix_bot_log_match_bot", "bot_log", ["match_id", "bot"])


def downgrade() -> None:
    op.drop_index("ix_bot_log_match_bot", table_name="bot_log")
    op.drop_table("bot_log")
