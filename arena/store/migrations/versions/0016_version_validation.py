"""Validated versions: `submission.validated_at`.

Revision ID: 0016
Revises: 0015

A new version joins the ladder only after a validation match (arena/ladder/validation.py) without a
fault of its own: `validated_at` is when it passed; NULL: not yet (or rejected, with the reason in
`suspended_reason`). The versions stored before this revision played already: they count as
validated when they were submitted. A plain nullable column: SQLite adds it in place.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    columns = {column["name"] for column in sa.inspect(op.get_bind()).get_columns("submission")}
    if "validated_at" not in columns:
        op.add_column("submission", sa.Column("validated_at", sa.DateTime(timezone=True), nullable=True))
        op.execute("UPDATE submission SET validated_at = created_at")


def downgrade() -> None:
    with op.batch_alter_table("submission") as batch:
        batch.drop_column("validated_at")
