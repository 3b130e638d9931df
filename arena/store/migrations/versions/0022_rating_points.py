"""The rating history's points in a table of their own: `rating_point` (ruleset, position, match
id), and `rating_history` rows keyed by (point, entrant).

Revision ID: 0022
Revises: 0021

A live update on a big field stores a new newest point and, as the history is thinned to a few
hundred points, the point before it usually goes: its rows moved on to the new position, up to one
per entrant (10,000 row updates at 10k bots, 52-91 ms of a live update: BENCHMARKS.md). With the
position in one row of `rating_point`, the newest point moves on by changing that row, and the
update writes only the entrants whose rating changed (arena/store/rating_history.py).

Every (ruleset, position) of the old rows becomes a point (its match id the rows'); the rows are
copied in key order (SQLite: a WITHOUT ROWID table; PostgreSQL gets its primary key after the copy).
Downgrade copies the positions back into the rows and drops `rating_point`.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "point_id" in {column["name"] for column in inspector.get_columns("rating_history")}:
        return  # a create_all database has both tables in their new shape
    if "rating_point" not in inspector.get_table_names():
        op.create_table(
            "rating_point",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("ruleset", sa.String(), nullable=False),
            sa.Column("position", sa.Integer(), nullable=False),
            sa.Column("match_id", sa.Integer(), nullable=False),
            sa.ForeignKeyConstraint(["match_id"], ["match.id"]),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_index("ix_rating_point_position", "rating_point", ["ruleset", "position"], unique=True)
    op.execute("INSERT INTO rating_point (ruleset, position, match_id) SELECT ruleset, position, MIN(match_id) "
               "FROM rating_history GROUP BY ruleset, position ORDER BY ruleset, position")
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.create_table(
        "rating_history_copy",
        sa.Column("point_id", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("entrant", sa.String(), nullable=False),
        sa.Column("elo", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["point_id"], ["rating_point.id"]),
        *([sa.PrimaryKeyConstraint("point_id", "entrant")] if sqlite else []),
        sqlite_with_rowid=False,
    )
    op.execute("INSERT INTO rating_history_copy (point_id, entrant, elo) SELECT p.id, h.entrant, h.elo "
               "FROM rating_history AS h JOIN rating_point AS p ON p.ruleset = h.ruleset AND p.position = h.position "
               "ORDER BY 1, 2")
    op.drop_table("rating_history")
    op.rename_table("rating_history_copy", "rating_history")
    if not sqlite:  # the key's name free again now that the old table is gone
        op.create_primary_key("rating_history_pkey", "rating_history", ["point_id", "entrant"])
    op.create_index("ix_rating_history_entrant", "rating_history", ["entrant", "point_id"])


def downgrade() -> None:
    op.create_table(
        "rating_history_copy",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("ruleset", sa.String(), nullable=False),
        sa.Column("entrant", sa.String(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("elo", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"]),
        sa.PrimaryKeyConstraint("id", name="rating_history_copy_pkey"),
    )
    op.execute("INSERT INTO rating_history_copy (ruleset, entrant, position, match_id, elo) "
               "SELECT p.ruleset, h.entrant, p.position, p.match_id, h.elo "
               "FROM rating_history AS h JOIN rating_point AS p ON p.id = h.point_id ORDER BY 1, 3, 2")
    op.drop_table("rating_history")
    op.drop_table("rating_point")
    op.rename_table("rating_history_copy", "rating_history")
    if op.get_bind().dialect.name != "sqlite":  # the key by its old name (the old table's is gone)
        op.execute("ALTER INDEX rating_history_copy_pkey RENAME TO rating_history_pkey")
    op.create_index("ix_rating_history_entrant", "rating_history", ["ruleset", "entrant", "position"])
    op.create_index("ix_rating_history_position", "rating_history", ["ruleset", "position"])
