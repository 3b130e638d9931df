"""Submitted bot versions: the `submission` table (NAME@N: its command, stored files, tree hash).

Revision ID: 0003
Revises: 0002

A bot registered with a command before versions existed becomes its own version 1 (with the
command and files it was registered with, and no tree hash: its files were never stored), so a
new tournament pins it to `NAME@1` as it would a bot registered today. A database made by
`create_all` while submissions existed but migrations did not already has the table: it is kept.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "submission" not in sa.inspect(op.get_bind()).get_table_names():
        _create_submission()
    op.execute(
        "INSERT INTO submission (bot_id, number, sha256, command, files, created_at) "
        "SELECT id, 1, '', command, files, created_at FROM bot WHERE command IS NOT NULL AND command <> '' "
        "AND NOT EXISTS (SELECT 1 FROM submission WHERE submission.bot_id = bot.id)"
    )


def _create_submission() -> None:
    op.create_table(
        "submission",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(), nullable=False),
        sa.Column("command", sa.String(), nullable=False),
        sa.Column("files", sa.String(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bot.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("bot_id", "number"),
    )
    op.create_index("ix_submission_bot_id", "submission", ["bot_id"])


def downgrade() -> None:
    op.drop_index("ix_submission_bot_id", table_name="submission")
    op.drop_table("submission")
