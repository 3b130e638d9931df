"""Signed-in authors' dashboard sessions in the database: `author_session`.

Revision ID: 0020
Revises: 0019

A session lived in the memory of the dashboard that signed its author in; in the database, several
dashboards behind a proxy share it and a restart signs nobody out (docs/scaling.md, "Author
sessions in the database"). A row is found by sha256(session id), never the id; the author's key
and the notice (which may hold a bot token shown once) are sealed with AES-GCM under a secret the
dashboards share and the database does not hold (dashboards/author_sessions.py).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "author_session" in sa.inspect(op.get_bind()).get_table_names():  # a create_all database has it
        return
    op.create_table(
        "author_session",
        sa.Column("id_hash", sa.String(), nullable=False),
        sa.Column("author", sa.String(), nullable=False),
        sa.Column("csrf", sa.String(), nullable=False),
        sa.Column("started", sa.Float(), nullable=False),
        sa.Column("seen", sa.Float(), nullable=False),
        sa.Column("bots", sa.Text(), nullable=False),
        sa.Column("key", sa.LargeBinary(), nullable=False),
        sa.Column("notice", sa.LargeBinary(), nullable=True),
        sa.PrimaryKeyConstraint("id_hash"),
    )
    op.create_index("ix_author_session_author", "author_session", ["author"])
    op.create_index("ix_author_session_seen", "author_session", ["seen"])


def downgrade() -> None:
    op.drop_index("ix_author_session_seen", table_name="author_session")
    op.drop_index("ix_author_session_author", table_name="author_session")
    op.drop_table("author_session")
