"""SPRT tests: a test's state (`sprt`) and its LLR after every counted pair (`sprt_llr`).

Revision ID: 0002
Revises: 0001

A test's games are the matches of a tournament of kind `sprt`; these two tables hold what the test
made of them (docs/sprt.md). A database made by `create_all` with the SPRT tables already in it
keeps them: only missing tables are created.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

STAMP = sa.DateTime(timezone=True)


def _sprt() -> None:
    op.create_table(
        "sprt",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("pairs", sa.Integer(), nullable=False),
        sa.Column("aborted_pairs", sa.Integer(), nullable=False),
        sa.Column("pentanomial", sa.Text(), nullable=False),
        sa.Column("llr", sa.Float(), nullable=False),
        sa.Column("lower", sa.Float(), nullable=False),
        sa.Column("upper", sa.Float(), nullable=False),
        sa.Column("elo", sa.Float(), nullable=False),
        sa.Column("low", sa.Float(), nullable=False),
        sa.Column("high", sa.Float(), nullable=False),
        sa.Column("los", sa.Float(), nullable=False),
        sa.Column("verdict", sa.String(), nullable=True),
        sa.Column("updated_at", STAMP, nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournament.id"]),
        sa.PrimaryKeyConstraint("tournament_id"),
    )


def _sprt_llr() -> None:
    op.create_table(
        "sprt_llr",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("pairs", sa.Integer(), nullable=False),
        sa.Column("llr", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournament.id"]),
        sa.PrimaryKeyConstraint("tournament_id", "pairs"),
    )


def upgrade() -> None:
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    for name, create in (("sprt", _sprt), ("sprt_llr", _sprt_llr)):
        if name not in existing:
            create()


def downgrade() -> None:
    op.drop_table("sprt_llr")
    op.drop_table("sprt")
