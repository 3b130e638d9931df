"""What migrations 0023 and 0024 share: a full index of the seat table replaced by a partial one
over the seats that did not end normally (a fault, or aborted). Frozen with them: a later change
to the schema is a new revision, not an edit here."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

FAULTED = "termination != 'normal'"  # tables.py's


def index_faulted_seats(full: str, partial: str, columns: list[str]) -> None:
    """Drop the index `full`, make `partial` on `columns` of the faulted seats (a create_all
    database may have either already)."""
    names = {index["name"] for index in sa.inspect(op.get_bind()).get_indexes("seat")}
    if full in names:
        op.drop_index(full, table_name="seat")
    if partial not in names:
        op.create_index(partial, "seat", columns, sqlite_where=sa.text(FAULTED), postgresql_where=sa.text(FAULTED))


def index_every_seat(partial: str, full: str, columns: list[str]) -> None:
    """The downgrade: `partial` dropped, `full` made again on `columns` of every seat."""
    op.drop_index(partial, table_name="seat")
    op.create_index(full, "seat", columns)
