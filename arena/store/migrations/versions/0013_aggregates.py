"""The dashboard's aggregates: `ruleset_stats`, `tournament_stats`, `entrant_stats`, `pair_stats`, backfilled.

Revision ID: 0013
Revises: 0012

From here on `Store.record_matches` adds every match to them in its own transaction
(arena/store/aggregates.py), so the pages read a row per ruleset, entrant or pair instead of every
seat. The backfill below works the same figures out in SQL from the stored matches: matches,
strikes and forfeits count every stored match, pair records the finished ones, and the rating's
pair totals (weight, score) the finished ones outside SPRT tests. Also an index for a bot's fault
history (its faulted seats, newest first, without reading all its seats).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

FAULTS = "('timeout', 'illegal_action', 'protocol_error', 'disconnect', 'crash')"


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "ruleset_stats" not in inspector.get_table_names():  # a create_all database has them
        _create_tables()
        _backfill()
    if "ix_seat_entrant_termination" not in {index["name"] for index in inspector.get_indexes("seat")}:
        op.create_index("ix_seat_entrant_termination", "seat", ["entrant", "termination", "match_id"])


def _create_tables() -> None:
    op.create_table(
        "ruleset_stats",
        sa.Column("ruleset", sa.String(), nullable=False),
        sa.Column("game_id", sa.String(), nullable=False),
        sa.Column("finished", sa.Integer(), nullable=False),
        sa.Column("aborted", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("ruleset"),
    )
    op.create_index("ix_ruleset_stats_game_id", "ruleset_stats", ["game_id"])
    op.create_table(
        "tournament_stats",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("finished", sa.Integer(), nullable=False),
        sa.Column("aborted", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournament.id"]),
        sa.PrimaryKeyConstraint("tournament_id"),
    )
    op.create_table(
        "entrant_stats",
        sa.Column("ruleset", sa.String(), nullable=False),
        sa.Column("entrant", sa.String(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("strikes", sa.Integer(), nullable=False),
        sa.Column("forfeits", sa.Integer(), nullable=False),
        sa.Column("last_match_id", sa.Integer(), nullable=False),
        sa.Column("last_played", sa.DateTime(timezone=True), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("ruleset", "entrant"),
    )
    op.create_index("ix_entrant_stats_entrant", "entrant_stats", ["entrant"])
    op.create_table(
        "pair_stats",
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
    )


def _backfill() -> None:
    op.execute("""
        INSERT INTO ruleset_stats (ruleset, game_id, finished, aborted)
        SELECT ruleset, MIN(game_id), SUM(CASE WHEN status = 'finished' THEN 1 ELSE 0 END),
               SUM(CASE WHEN status = 'finished' THEN 0 ELSE 1 END)
        FROM match GROUP BY ruleset
    """)
    op.execute("""
        INSERT INTO tournament_stats (tournament_id, finished, aborted)
        SELECT tournament_id, SUM(CASE WHEN status = 'finished' THEN 1 ELSE 0 END),
               SUM(CASE WHEN status = 'finished' THEN 0 ELSE 1 END)
        FROM match GROUP BY tournament_id
    """)
    op.execute(f"""
        INSERT INTO entrant_stats (ruleset, entrant, matches, strikes, forfeits, last_match_id, last_played, version_id)
        SELECT t.ruleset, t.entrant, t.matches, t.strikes, t.forfeits, t.last_match_id, m.finished_at, t.version_id
        FROM (
            SELECT match.ruleset AS ruleset, seat.entrant AS entrant, COUNT(*) AS matches,
                   COALESCE(SUM(seat.faults), 0) AS strikes,
                   SUM(CASE WHEN seat.termination IN {FAULTS} THEN 1 ELSE 0 END) AS forfeits,
                   MAX(seat.match_id) AS last_match_id, MAX(seat.bot_version_id) AS version_id
            FROM seat JOIN match ON match.id = seat.match_id
            GROUP BY match.ruleset, seat.entrant
        ) AS t JOIN match AS m ON m.id = t.last_match_id
    """)
    # per pair of seats at a finished table, a = the entrant that sorts first
    op.execute("""
        INSERT INTO pair_stats (ruleset, a, b, matches, a_ahead, b_ahead, ties, weight, score)
        SELECT match.ruleset, x.entrant, y.entrant, COUNT(*),
               SUM(CASE WHEN x.rank < y.rank THEN 1 ELSE 0 END),
               SUM(CASE WHEN y.rank < x.rank THEN 1 ELSE 0 END),
               SUM(CASE WHEN x.rank = y.rank THEN 1 ELSE 0 END),
               SUM(CASE WHEN tournament.kind = 'sprt' THEN 0.0 ELSE 1.0 / (match.num_players - 1) END),
               SUM(CASE WHEN tournament.kind = 'sprt' THEN 0.0
                        ELSE (CASE WHEN x.rank < y.rank THEN 1.0 WHEN x.rank = y.rank THEN 0.5 ELSE 0.0 END)
                             / (match.num_players - 1) END)
        FROM seat AS x
        JOIN seat AS y ON y.match_id = x.match_id AND y.entrant > x.entrant
        JOIN match ON match.id = x.match_id
        JOIN tournament ON tournament.id = match.tournament_id
        WHERE match.status = 'finished'
        GROUP BY match.ruleset, x.entrant, y.entrant
    """)


def downgrade() -> None:
    op.drop_index("ix_seat_entrant_termination", table_name="seat")
    op.drop_table("pair_stats")
    op.drop_index("ix_entrant_stats_entrant", table_name="entrant_stats")
    op.drop_table("entrant_stats")
    op.drop_table("tournament_stats")
    op.drop_index("ix_ruleset_stats_game_id", table_name="ruleset_stats")
    op.drop_table("ruleset_stats")
