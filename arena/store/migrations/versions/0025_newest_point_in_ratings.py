"""An entrant's newest rating-history value lives in the rating table: `rating.point_id` names the
point that was the newest when its rating was written, and that value is not also a rating_history
row (it becomes one when the rating is written again at a newer point: arena/store/rating_history.py);
so the newest point has no rows. On PostgreSQL the rating table also gets room in its pages
(fillfactor 50), and rating_history loses its foreign key to rating_point.

Revision ID: 0025
Revises: 0024

A live update wrote each changed rating twice, as its rating row and as a row of the newest point,
and on PostgreSQL at 1M matches / 10k bots the second write was a third of the update's time
(BENCHMARKS.md). Every rating row is rewritten at each update of its bot: with half of each page
free PostgreSQL writes the new version in the same page (a heap-only update: no index entry, and
the dead version pruned when the page is next read), so the table stays near its live size between
vacuums, and a full rerate now writes by key instead of deleting and inserting every row (10,000
live rows in 1,188 pages, 43,000 of them dead, after a day of benchmarks: every leaderboard query
read them all).

The rows that remain are written as one INSERT ... SELECT per update; PostgreSQL checked the
foreign key of each by locking the point's row, 16-18 ms of 40 for 3,282 rows at 1M / 10k
(EXPLAIN ANALYZE). The rows of a point are written and deleted only with it (rating_history.py).

Upgrade: each ruleset's ratings that have a row at its newest point are marked as written there,
and those rows go (their values are the ratings'); a row there whose entrant has no rating stays.
Downgrade puts the marked ratings back as rows of the newest point, and the foreign key back.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None

NEWEST = ("SELECT p.id FROM rating_point AS p "
          "WHERE p.position = (SELECT max(q.position) FROM rating_point AS q WHERE q.ruleset = p.ruleset)")


def upgrade() -> None:
    if "point_id" not in {column["name"] for column in sa.inspect(op.get_bind()).get_columns("rating")}:
        op.add_column("rating", sa.Column("point_id", sa.Integer(), nullable=True))  # a create_all one has it
    op.execute(f"""
        UPDATE rating SET point_id = (
            SELECT h.point_id FROM rating_history AS h
            WHERE h.entrant = rating.entrant AND h.point_id IN ({NEWEST} AND p.ruleset = rating.ruleset))
    """)
    op.execute(f"""
        DELETE FROM rating_history WHERE point_id IN ({NEWEST}) AND EXISTS (
            SELECT 1 FROM rating AS r WHERE r.point_id = rating_history.point_id AND r.entrant = rating_history.entrant)
    """)
    _point_key(present=False)
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE rating SET (fillfactor = 50)")
        op.execute("CLUSTER rating USING rating_pkey")  # rewritten at the new fill (VACUUM FULL needs no transaction)
        op.execute("ALTER TABLE rating SET WITHOUT CLUSTER")


def downgrade() -> None:
    op.execute(f"""
        INSERT INTO rating_history (point_id, entrant, elo)
        SELECT r.point_id, r.entrant, r.elo FROM rating AS r WHERE r.point_id IN ({NEWEST})
    """)
    _point_key(present=True)
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE rating RESET (fillfactor)")
    with op.batch_alter_table("rating") as batch:
        batch.drop_column("point_id")


def _point_key(present: bool) -> None:
    """rating_history's foreign key to rating_point added or dropped (SQLite: the table made again
    with or without it, its rows copied in key order, as 0022 made it)."""
    bind = op.get_bind()
    keys = [key for key in sa.inspect(bind).get_foreign_keys("rating_history")
            if key["referred_table"] == "rating_point"]
    if bool(keys) == present:
        return
    if bind.dialect.name == "postgresql":
        if present:
            op.create_foreign_key("rating_history_copy_point_id_fkey", "rating_history", "rating_point",
                                  ["point_id"], ["id"])
        for key in keys:  # PostgreSQL names every constraint
            op.drop_constraint(str(key["name"]), "rating_history", type_="foreignkey")
        return
    op.create_table(
        "rating_history_copy",
        sa.Column("point_id", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("entrant", sa.String(), nullable=False),
        sa.Column("elo", sa.Float(), nullable=False),
        *([sa.ForeignKeyConstraint(["point_id"], ["rating_point.id"])] if present else []),
        sa.PrimaryKeyConstraint("point_id", "entrant"),
        sqlite_with_rowid=False,
    )
    op.execute("INSERT INTO rating_history_copy (point_id, entrant, elo) "
               "SELECT point_id, entrant, elo FROM rating_history ORDER BY 1, 2")
    op.drop_table("rating_history")
    op.rename_table("rating_history_copy", "rating_history")
    op.create_index("ix_rating_history_entrant", "rating_history", ["entrant", "point_id"])
