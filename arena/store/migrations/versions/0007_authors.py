"""Bot authors: the `author` table and `bot.author_id` (arena/store/authors.py, docs/authors.md).

Revision ID: 0007
Revises: 0006

`author`: who may register and submit bots through the authors' service, by a key of which only
the hash is kept. `bot.author_id`: the bot's author; NULL for every existing bot, which stays the
operator's until `arena bot assign NAME AUTHOR`. On SQLite the column and its foreign key are
added by a batch (the table is copied), since SQLite cannot add a constraint in place. A database
made by create_all from a newer tables.py already has both: nothing is added twice.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "author" not in inspector.get_table_names():
        op.create_table(
            "author",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("name", sa.String(), nullable=False),
            sa.Column("key_hash", sa.String(), nullable=False),
            sa.Column("disabled", sa.Boolean(), server_default=sa.false(), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_index("ix_author_name", "author", ["name"], unique=True)
        op.create_index("ix_author_key_hash", "author", ["key_hash"])
    if "author_id" not in {column["name"] for column in inspector.get_columns("bot")}:
        _defer_foreign_keys()
        with op.batch_alter_table("bot") as batch:
            batch.add_column(sa.Column("author_id", sa.Integer(), nullable=True))
            batch.create_index("ix_bot_author_id", ["author_id"])
            batch.create_foreign_key("fk_bot_author_id_author", "author", ["author_id"], ["id"])


def _defer_foreign_keys() -> None:
    """SQLite's batch drops and re-creates `bot`, which submission rows refer to: on a connection
    with foreign keys on (connect.py turns them on; the upgrade's own connection has them off),
    they are checked at commit, when the new `bot` holds the same ids."""
    if op.get_bind().dialect.name == "sqlite":
        op.execute("PRAGMA defer_foreign_keys = ON")


def downgrade() -> None:
    _defer_foreign_keys()
    with op.batch_alter_table("bot") as batch:
        batch.drop_constraint("fk_bot_author_id_author", type_="foreignkey")
        batch.drop_index("ix_bot_author_id")
        batch.drop_column("author_id")
    op.drop_index("ix_author_key_hash", table_name="author")
    op.drop_index("ix_author_name", table_name="author")
    op.drop_table("author")
