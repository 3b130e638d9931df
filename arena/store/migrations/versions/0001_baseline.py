"""The schema as it was before migrations: every table, and what create_all databases lacked.

Revision ID: 0001
Revises: (none)

On a new database this creates everything. A database made by `create_all` before Alembic (it
has tables but no `alembic_version`) is brought to the same shape in place: the columns added
since (`seat.faults`, `bot.files`) are added, ratings from before the likelihood intervals
(no `rating.low`) are dropped (derived data: `arena leaderboard` rates them again) and missing
tables and indexes are created. The definitions are frozen here: later changes to
arena/store/tables.py belong in later revisions, never in this file.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

STAMP = sa.DateTime(timezone=True)


def _bot() -> None:
    op.create_table(
        "bot",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("token_hash", sa.String(), nullable=False),
        sa.Column("command", sa.String(), nullable=True),
        sa.Column("files", sa.String(), nullable=True),
        sa.Column("created_at", STAMP, nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )


def _bot_version() -> None:
    op.create_table(
        "bot_version",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("spec", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("version", sa.String(), nullable=False),
        sa.Column("created_at", STAMP, nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name", "spec", "version"),
    )


def _tournament() -> None:
    op.create_table(
        "tournament",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("game_id", sa.String(), nullable=False),
        sa.Column("ruleset", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("config", sa.Text(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("total_matches", sa.Integer(), nullable=False),
        sa.Column("created_at", STAMP, nullable=False),
        sa.Column("updated_at", STAMP, nullable=False),
        sa.Column("finished_at", STAMP, nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )


def _match() -> None:
    op.create_table(
        "match",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("match_index", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("table_no", sa.Integer(), nullable=False),
        sa.Column("rotation", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(), nullable=False),
        sa.Column("ruleset", sa.String(), nullable=False),
        sa.Column("num_players", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("chance_seed", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("aborted_reason", sa.String(), nullable=True),
        sa.Column("decisions", sa.Integer(), nullable=False),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("record", sa.Text(), nullable=False),
        sa.Column("finished_at", STAMP, nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournament.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key"),
        sa.UniqueConstraint("tournament_id", "match_index"),
    )


def _seat() -> None:
    op.create_table(
        "seat",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("entrant", sa.String(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("rank", sa.Integer(), nullable=True),
        sa.Column("termination", sa.String(), nullable=False),
        sa.Column("reason", sa.String(), nullable=False),
        sa.Column("faults", sa.Integer(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(["bot_version_id"], ["bot_version.id"]),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("match_id", "seat"),
    )


def _rating() -> None:
    op.create_table(
        "rating",
        sa.Column("ruleset", sa.String(), nullable=False),
        sa.Column("entrant", sa.String(), nullable=False),
        sa.Column("game_id", sa.String(), nullable=False),
        sa.Column("elo", sa.Float(), nullable=False),
        sa.Column("low", sa.Float(), nullable=False),
        sa.Column("high", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Float(), nullable=False),
        sa.Column("faults", sa.Integer(), nullable=False),
        sa.Column("updated_at", STAMP, nullable=False),
        sa.PrimaryKeyConstraint("ruleset", "entrant"),
    )


def _rating_history() -> None:
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("ruleset", sa.String(), nullable=False),
        sa.Column("entrant", sa.String(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("elo", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"]),
        sa.PrimaryKeyConstraint("id"),
    )


# in the order their foreign keys need them
TABLES: dict[str, Callable[[], None]] = {
    "bot": _bot, "bot_version": _bot_version, "tournament": _tournament, "match": _match,
    "seat": _seat, "rating": _rating, "rating_history": _rating_history,
}

# (name, table, columns, unique); the dashboard's covering indexes came later than the tables,
# so a create_all database may lack them
INDEXES = [
    ("ix_bot_name", "bot", ["name"], True),
    ("ix_bot_token_hash", "bot", ["token_hash"], False),
    ("ix_bot_version_name", "bot_version", ["name"], False),
    ("ix_tournament_game_id", "tournament", ["game_id"], False),
    ("ix_tournament_ruleset", "tournament", ["ruleset"], False),
    ("ix_tournament_status", "tournament", ["status"], False),
    ("ix_match_finished_at", "match", ["finished_at"], False),
    ("ix_match_game_id", "match", ["game_id"], False),
    ("ix_match_status", "match", ["status"], False),
    ("ix_match_tournament_id", "match", ["tournament_id"], False),
    ("ix_match_ruleset_order", "match", ["ruleset", "tournament_id", "match_index"], False),
    ("ix_match_game_order", "match", ["game_id", "tournament_id", "match_index"], False),
    ("ix_match_ruleset_status_finished", "match", ["ruleset", "status", "id", "finished_at"], False),
    ("ix_seat_entrant", "seat", ["entrant"], False),
    ("ix_seat_match_id", "seat", ["match_id"], False),
    ("ix_seat_entrant_match", "seat", ["entrant", "match_id"], False),
    ("ix_seat_match_cover", "seat", ["match_id", "entrant", "rank", "bot_version_id"], False),
    ("ix_seat_termination_match", "seat", ["termination", "match_id"], False),
    ("ix_rating_game_id", "rating", ["game_id"], False),
    ("ix_rating_history_entrant", "rating_history", ["ruleset", "entrant", "position"], False),
]


def upgrade() -> None:
    _bring_create_all_columns_up_to_date()
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    for name, create in TABLES.items():
        if name not in existing:
            create()
    inspector = sa.inspect(op.get_bind())
    for name, table, columns, unique in INDEXES:
        if name not in {index["name"] for index in inspector.get_indexes(table)}:
            op.create_index(name, table, columns, unique=unique)


def _bring_create_all_columns_up_to_date() -> None:
    inspector = sa.inspect(op.get_bind())
    tables = set(inspector.get_table_names())
    columns = {table: {c["name"] for c in inspector.get_columns(table)} for table in tables}
    if "seat" in tables and "faults" not in columns["seat"]:
        op.add_column("seat", sa.Column("faults", sa.Integer(), server_default="0", nullable=False))
    if "bot" in tables and "files" not in columns["bot"]:
        op.add_column("bot", sa.Column("files", sa.String(), nullable=True))
    if "rating" in tables and "low" not in columns["rating"]:
        # ratings from before the likelihood intervals (one symmetric error): derived, so drop
        # them; `arena leaderboard` rates a ruleset whose ratings are missing again
        if "rating_history" in tables:
            op.drop_table("rating_history")
        op.drop_table("rating")


def downgrade() -> None:
    for name in reversed(TABLES):
        op.drop_table(name)
