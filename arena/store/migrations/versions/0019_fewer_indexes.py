"""Fewer bytes per stored match: indexes that another index already serves go; `pair_stats` keyed once.

Revision ID: 0019
Revises: 0018

Each dropped index is a leading part of another one, which answers every query it answered
(tests/arena/store/test_query_plans.py checks the plans): `ix_seat_entrant` (entrant) of
`ix_seat_entrant_match` (entrant, match_id); `ix_seat_match_id` (match_id) of the unique
(match_id, seat) and `ix_seat_match_cover`. At a million 4-player matches they held ~0.13 kB a
match, and every write updated them. Not dropped although they are prefixes too: `ix_match_game_id`
and `ix_match_tournament_id` (the rowid after the key lets "this game's (tournament's) matches among
these ids" probe by id, where the longer index would be read through; ~0.015 kB a match each).

On SQLite `pair_stats` becomes a WITHOUT ROWID table: its rows are stored in its primary key's
order, the key (ruleset, a, b) once instead of in the table and again in its key's index (~0.2 kB
a match at 10k bots). PostgreSQL keeps its table as it is. The rows are copied in key order.

The space freed is reused by new rows; the file (SQLite) shrinks only with a VACUUM.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

# (index, table, columns): the ones dropped, as 0001 made them
DROPPED = [
    ("ix_seat_entrant", "seat", ["entrant"]),
    ("ix_seat_match_id", "seat", ["match_id"]),
]
PAIR_COLUMNS = "ruleset, a, b, matches, a_ahead, b_ahead, ties, weight, score"


def upgrade() -> None:
    _drop_indexes()
    if op.get_bind().dialect.name == "sqlite" and not _without_rowid(op.get_bind()):
        _rebuild_pair_stats(with_rowid=False)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _rebuild_pair_stats(with_rowid=True)
    for name, table, columns in DROPPED:
        op.create_index(name, table, columns)


def _drop_indexes() -> None:
    inspector = sa.inspect(op.get_bind())
    for name, table, _ in DROPPED:
        if name in {index["name"] for index in inspector.get_indexes(table)}:
            op.drop_index(name, table_name=table)


def _without_rowid(connection: sa.Connection) -> bool:
    """Whether SQLite's pair_stats is a WITHOUT ROWID table already (a database created at 0019)."""
    sql = connection.execute(sa.text("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'pair_stats'"))
    return "WITHOUT ROWID" in (sql.scalar() or "").upper()


def _rebuild_pair_stats(with_rowid: bool) -> None:
    """pair_stats made again (SQLite cannot change a table's storage in place), its rows copied in key order."""
    op.create_table(
        "pair_stats_rebuilt",
        sa.Column("ruleset", sa.String(), nullable=False),
        sa.Column("a", sa.String(), nullable=False),
        sa.Column("b", sa.String(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("a_ahead", sa.Integer(), nullable=False),
        sa.Column("b_ahead", sa.Integer(), nullable=False),
        sa.Column("ties", sa.Integer(), nullable=False),
        sa.Column("weight", sa.Float(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("ruleset", "a", "b"),
        sqlite_with_rowid=with_rowid,
    )
    op.execute(f"INSERT INTO pair_stats_rebuilt ({PAIR_COLUMNS}) "
               f"SELECT {PAIR_COLUMNS} FROM pair_stats ORDER BY ruleset, a, b")
    op.drop_table("pair_stats")
    op.rename_table("pair_stats_rebuilt", "pair_stats")
