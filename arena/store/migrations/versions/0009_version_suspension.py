"""Suspended versions: `submission.suspended_reason` and `submission.suspended_at`.

Revision ID: 0009
Revises: 0008

A version the ladder suspends (its last matches all ended in its own crash) keeps the reason,
shown to its author and on its bot page, until a new version is submitted or `arena bot enable`
lifts it (arena/store/bots.py). NULL: not suspended. Plain nullable columns: SQLite adds them in
place. A database made by create_all from a newer tables.py already has them.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    columns = {column["name"] for column in sa.inspect(op.get_bind()).get_columns("submission")}
    if "suspended_reason" not in columns:
        op.add_column("submission", sa.Column("suspended_reason", sa.String(), nullable=True))
    if "suspended_at" not in columns:
        op.add_column("submission", sa.Column("suspended_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("submission") as batch:
        batch.drop_column("suspended_at")
        batch.drop_column("suspended_reason")
