"""`pair_stats` in numbers: keyed by entrant numbers (a new table `entrant` numbers every name
once), its pairwise games and score in whole shares.

Revision ID: 0021
Revises: 0020

A refit reads every pair of a ruleset (5.7M rows at a million 4-player matches among 10k bots).
With the names in the rows the driver made two text objects per pair and the rating mapped each
name to its bot: most of a refit's time (BENCHMARKS.md). As numbers the rows are read as text lists
that numpy parses, and the table's key is shorter. The weight and score (sums of 1/(k-1)) become
`weight_shares` and `score_shares`, sums of PAIR_SHARES/(k-1) (arena/store/aggregates.py): whole
numbers, exact in any order and in text. A stored sum is rounded to its share: its float error is
far below half a share (~3.5e-7). The pair's order is kept: `a` is the entrant whose name sorts
first, and a_ahead counts for it.

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

COUNTS = "matches, a_ahead, b_ahead, ties"
PAIR_SHARES = 1441440  # arena/store/aggregates.py's, frozen here


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
    shares = [f"CAST(round(p.{name} * {PAIR_SHARES}) AS BIGINT)" for name in ("weight", "score")]
    _copy_pairs(sa.Integer(), f"SELECT p.ruleset, ea.id, eb.id, {COUNTS}, {', '.join(shares)} FROM pair_stats AS p "
                              "JOIN entrant AS ea ON ea.name = p.a JOIN entrant AS eb ON eb.name = p.b", shares=True)


def downgrade() -> None:
    floats = [f"CAST(p.{name}_shares AS FLOAT) / {PAIR_SHARES}" for name in ("weight", "score")]
    _copy_pairs(sa.String(), f"SELECT p.ruleset, ea.name, eb.name, {COUNTS}, {', '.join(floats)} FROM pair_stats AS p "
                             "JOIN entrant AS ea ON ea.id = p.a JOIN entrant AS eb ON eb.id = p.b", shares=False)
    op.drop_table("entrant")


def _copy_pairs(entrant: sa.Integer | sa.String, select: str, shares: bool) -> None:
    """pair_stats made again with `entrant` as the type of a and b and the totals in `shares` (or
    floats), its rows from `select` in key order."""
    totals = ([sa.Column(f"{name}_shares", sa.BigInteger(), nullable=False) for name in ("weight", "score")] if shares
              else [sa.Column(name, sa.Float(), nullable=False) for name in ("weight", "score")])
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
        *totals,
        *([sa.PrimaryKeyConstraint("ruleset", "a", "b")] if sqlite else []),
        sqlite_with_rowid=False,
    )
    names = ", ".join(column.name for column in totals)
    op.execute(f"INSERT INTO pair_stats_copy (ruleset, a, b, {COUNTS}, {names}) {select} ORDER BY 1, 2, 3")
    op.drop_table("pair_stats")
    op.rename_table("pair_stats_copy", "pair_stats")
    if not sqlite:  # the key's name free again now that the old table is gone
        op.create_primary_key("pair_stats_pkey", "pair_stats", ["ruleset", "a", "b"])
