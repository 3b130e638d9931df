"""Debug output beside each decision: bot_log.decisions, where each decision's part of the log starts.

Revision ID: 0017
Revises: 0016

A JSON list of [step, character offset into text], oldest first (arena/store/bot_logs.py); logs
stored before this revision get NULL: their text is shown whole, tied to no decision. Private, as
the text is.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    columns = {column["name"] for column in sa.inspect(op.get_bind()).get_columns("bot_log")}
    if "decisions" in columns:  # a create_all database has it
        return
    # plain ALTER TABLE, no batch copy (as 0010): SQLite adds a column in place
    op.add_column("bot_log", sa.Column("decisions", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("bot_log", "decisions")
