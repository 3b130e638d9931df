"""The ladder: `ladder_match` (the matches it planned, replayed after a kill -9) and `submission.keep_active`.

Revision ID: 0011
Revises: 0010

A ladder is a tournament of kind `ladder` whose matches are appended as it plans them
(arena/ladder/driver.py); `keep_active` keeps a version other than its bot's latest in the
ladder (`arena ladder keep NAME@N`). A database made by create_all from a newer tables.py
already has both.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "keep_active" not in {column["name"] for column in inspector.get_columns("submission")}:
        op.add_column("submission", sa.Column("keep_active", sa.Boolean(), nullable=False, server_default=sa.false()))
    if "ladder_match" in inspector.get_table_names():
        return
    op.create_table(
        "ladder_match",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("match_index", sa.Integer(), nullable=False),
        sa.Column("table_no", sa.Integer(), nullable=False),
        sa.Column("rotation", sa.Integer(), nullable=False),
        sa.Column("seats", sa.Text(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("chance_seed", sa.BigInteger(), nullable=False),
        sa.Column("why", sa.String(), nullable=False),
        sa.Column("planned_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournament.id"]),
        sa.PrimaryKeyConstraint("tournament_id", "match_index"),
    )


def downgrade() -> None:
    op.drop_table("ladder_match")
    with op.batch_alter_table("submission") as batch:
        batch.drop_column("keep_active")
