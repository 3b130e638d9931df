"""The matches list filtered by a fault reads a partial index of the faulted seats:
`ix_seat_faulted_match` (termination, match_id) over the seats whose termination is not normal,
instead of `ix_seat_termination_match` over every seat.

Revision ID: 0024
Revises: 0023

The matches list filters by a termination that is a fault, `aborted`, or `any_fault` (what an
author looks for); almost every seat ends normally, so the full index held an entry per seat that
no filter reads fast (a filter by `normal` matches nearly every match either way). At a million
4-player matches it held ~60 bytes a match on PostgreSQL (BENCHMARKS.md), and every seat written
went into it.
"""

from __future__ import annotations

from arena.store.migrations.faulted_seats import index_every_seat, index_faulted_seats

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    index_faulted_seats("ix_seat_termination_match", "ix_seat_faulted_match", ["termination", "match_id"])


def downgrade() -> None:
    index_every_seat("ix_seat_faulted_match", "ix_seat_termination_match", ["termination", "match_id"])
