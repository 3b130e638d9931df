"""Live watching: live_match holds the steps so far of each match being played.

Revision ID: 0006
Revises: 0005

The driver writes a row per running match about once a second and deletes it when the match's
result is stored or its tournament's status changes (arena/match/live.py, arena/store/live.py).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "live_match" in sa.inspect(op.get_bind()).get_table_names():  # a create_all database has it
        return
    op.create_table(
        "live_match",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("match_index", sa.Integer(), nullable=False),
        sa.Column("table_no", sa.Integer(), nullable=False),
        sa.Column("rotation", sa.Integer(), nullable=False),
        sa.Column("chance_seed", sa.BigInteger(), nullable=False),
        sa.Column("seats", sa.Text(), nullable=False),
        sa.Column("steps", sa.Text(), nullable=False),
        sa.Column("num_steps", sa.Integer(), nullable=False),
        sa.Column("chance_steps", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournament.id"]),
        sa.PrimaryKeyConstraint("tournament_id", "match_index"),
    )


def downgrade() -> None:
    op.drop_table("live_match")
