"""Where each match ran: match.node, the node that played it (docs/tournaments.md, "Where matches run").

Revision ID: 0010
Revises: 0009

Matches stored before this revision get "" (not recorded).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    columns = {column["name"] for column in sa.inspect(op.get_bind()).get_columns("match")}
    if "node" in columns:  # a create_all database has it
        return
    # plain ALTER TABLE, no batch copy: SQLite (3.35+) adds and drops a column in place, and a copy
    # of `match` would trip the foreign keys of its seats and logs
    op.add_column("match", sa.Column("node", sa.String(), nullable=False, server_default=""))


def downgrade() -> None:
    op.drop_column("match", "node")
