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

from arena.store.migrations.faulted_seats import index_every_seat, index_faulted_seats

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    index_faulted_seats("ix_seat_entrant_termination", "ix_seat_entrant_faulted", ["entrant", "match_id"])


def downgrade() -> None:
    index_every_seat("ix_seat_entrant_faulted", "ix_seat_entrant_termination", ["entrant", "termination", "match_id"])
