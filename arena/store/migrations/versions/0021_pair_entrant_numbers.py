"""`pair_stats` keyed by entrant numbers: a new table `entrant` numbers every name once.

Revision ID: 0021
Revises: 0020

A refit reads every pair of a ruleset (5.7M rows at a million 4-player matches among 10k bots).
With the names in the rows the driver made two text objects per pair and the rating mapped each
name to its bot: most of a refit's time (BENCHMARKS.md, "The refit's read"). As numbers the rows
become arrays at once, and the table's key is shorter. The pair's order is kept: `a` is the entrant
whose name sorts first, and a_ahead counts for it.

The rows are copied in key order through the names (SQLite's WITHOUT ROWID table is made again;
PostgreSQL's table is made anew and given its primary key after the copy). Downgrade copies them
back by name and drops `entrant`.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None

COUNTS = "matches, a_ahead, b_ahead, ties, weight, score"


def upgrade() -> None:
    if "entrant" in sa.inspect(op.get_bind()).get_table_names():  # a create_all database has it, numbered
        return
    op.create_table(
        "entrant",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.execute("INSERT INTO entrant (name) SELECT a FROM pair_stats UNION SELECT b FROM pair_stats ORDER BY 1")
    _copy_pairs(sa.Integer(), f"SELECT p.ruleset, ea.id, eb.id, {COUNTS} FROM pair_stats AS p "
                              "JOIN entrant AS ea ON ea.name = p.a JOIN entrant AS eb ON eb.name = p.b")


def downgrade() -> None:
    _copy_pairs(sa.String(), f"SELECT p.ruleset, ea.name, eb.name, {COUNTS} FROM pair_stats AS p "
                             "JOIN entrant AS ea ON ea.id = p.a JOIN entrant AS eb ON eb.id = p.b")
    op.drop_table("entrant")


def _copy_pairs(entrant: sa.Integer | sa.String, select: str) -> None:
    """pair_stats made again with `entrant` as the type of a and b, its rows from `select` in key order."""
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.create_table(
        "pair_stats_copy",
        sa.Column("ruleset", sa.String(), nullable=False),
        sa.Column("a", entrant, nullable=False),
        sa.Column("b", entrant, nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("a_ahead", sa.Integer(), nullable=False),
        sa.Column("b_ahead", sa.Integer(), nullable=False),
        sa.Column("ties", sa.Integer(), nullable=False),
        sa.Column("weight", sa.Float(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        *([sa.PrimaryKeyConstraint("ruleset", "a", "b")] if sqlite else []),
        sqlite_with_rowid=False,
    )
    op.execute(f"INSERT INTO pair_stats_copy (ruleset, a, b, {COUNTS}) {select} ORDER BY 1, 2, 3")
    op.drop_table("pair_stats")
    op.rename_table("pair_stats_copy", "pair_stats")
    if not sqlite:  # the key's name free again now that the old table is gone
        op.create_primary_key("pair_stats_pkey", "pair_stats", ["ruleset", "a", "b"])
