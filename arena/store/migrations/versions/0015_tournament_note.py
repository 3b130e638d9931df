"""What last happened to a tournament, in one line: tournament.note (a ladder's account of a fault:
the gateway gone and back, a takeover after a kill -9; docs/operations.md).

Revision ID: 0015
Revises: 0014

Tournaments stored before this revision get "" (nothing to tell).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    columns = {column["name"] for column in sa.inspect(op.get_bind()).get_columns("tournament")}
    if "note" in columns:  # a create_all database has it
        return
    op.add_column("tournament", sa.Column("note", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    op.drop_column("tournament", "note")
