"""A bot's fault history by a partial index of its faulted seats: `ix_seat_entrant_faulted`
(entrant, match_id) over the seats whose termination is not normal, instead of
`ix_seat_entrant_termination` (entrant, termination, match_id) over every seat.

Revision ID: 0023
Revises: 0022

Every seat written went into two indexes keyed by its entrant (this one and ix_seat_entrant_match),
each at a random place among 10k bots: a page written per seat and index. At a million 4-player
matches, writes in batches of 100 went from ~1,330/s to ~1,900/s without it (BENCHMARKS.md), and on
PostgreSQL it held ~250 bytes a match. The fault history reads the new index; a bot's matches page
filtered by termination reads ix_seat_entrant_match and ix_seat_termination_match as before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None

FAULTED = "termination != 'normal'"  # tables.py's, frozen here


def upgrade() -> None:
    names = {index["name"] for index in sa.inspect(op.get_bind()).get_indexes("seat")}
    if "ix_seat_entrant_termination" in names:
        op.drop_index("ix_seat_entrant_termination", table_name="seat")
    if "ix_seat_entrant_faulted" not in names:  # a create_all database has it
        op.create_index("ix_seat_entrant_faulted", "seat", ["entrant", "match_id"],
                        sqlite_where=sa.text(FAULTED), postgresql_where=sa.text(FAULTED))


def downgrade() -> None:
    op.drop_index("ix_seat_entrant_faulted", table_name="seat")
    op.create_index("ix_seat_entrant_termination", "seat", ["entrant", "termination", "match_id"])
