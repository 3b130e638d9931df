"""The rating's per-entrant totals kept as matches are written (`entrant_stats.rated_*`, `ruleset_stats.rated`).

Revision ID: 0018
Revises: 0017

A refit read every rated match's seats to count each bot's rated games, wins, strikes and forfeits
(`Queries.entrant_totals`): entrant_stats counts aborted and SPRT seats too and kept no wins. These
columns count the rated matches only (finished, not in an SPRT test), as `Queries.rated_matches`
does, so a refit reads a row per entrant and one per pair instead of every seat; `ruleset_stats.rated`
is the number of rated matches (`Queries.rated_span`). From here on `Store.record_matches` adds to them
in its own transaction (arena/store/aggregates.py); the backfill below counts the stored matches in SQL,
one grouped query per table (a row per entrant read back), which SQLite and PostgreSQL run alike.

Also an index of the rating history by (ruleset, position): a live update now stores only the
entrants whose rating changed (arena/store/rating_history.py), so a ruleset's points, its newest
and its positions are found by this index rather than by one entrant's rows.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

ENTRANT_COLUMNS = ("rated_games", "rated_win_shares", "rated_strikes", "rated_forfeits")
WIN_SHARES = 720720  # a first place in shares: divisible by every number of winners up to 16
# the rated seats of a ruleset, grouped by entrant: a first place shared by n seats is WIN_SHARES/n
RATED_ENTRANT_TOTALS = f"""
    SELECT match.ruleset, seat.entrant, COUNT(*),
           SUM(CASE WHEN seat.rank = 1 THEN {WIN_SHARES} / winners.n ELSE 0 END),
           COALESCE(SUM(seat.faults), 0),
           SUM(CASE WHEN seat.termination = 'normal' THEN 0 ELSE 1 END)
    FROM seat
    JOIN match ON match.id = seat.match_id
    JOIN tournament ON tournament.id = match.tournament_id
    LEFT JOIN (SELECT match_id, COUNT(*) AS n FROM seat WHERE rank = 1 GROUP BY match_id) AS winners
        ON winners.match_id = seat.match_id
    WHERE match.status = 'finished' AND tournament.kind != 'sprt'
    GROUP BY match.ruleset, seat.entrant
"""
RATED_MATCHES = """
    SELECT match.ruleset, COUNT(*) FROM match JOIN tournament ON tournament.id = match.tournament_id
    WHERE match.status = 'finished' AND tournament.kind != 'sprt' GROUP BY match.ruleset
"""


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    # (a create_all database from after 0022 has its positions in rating_point instead)
    history = {column["name"] for column in inspector.get_columns("rating_history")}
    if "position" in history and "ix_rating_history_position" not in {
            index["name"] for index in inspector.get_indexes("rating_history")}:
        op.create_index("ix_rating_history_position", "rating_history", ["ruleset", "position"])
    if "rated_games" in {column["name"] for column in inspector.get_columns("entrant_stats")}:
        return  # a create_all database has them, kept since its first match
    # plain ALTER TABLE (as 0017): SQLite adds a column in place; the default fills the old rows
    op.add_column("ruleset_stats", sa.Column("rated", sa.Integer(), nullable=False, server_default="0"))
    for name in ENTRANT_COLUMNS:
        kind = sa.BigInteger() if name == "rated_win_shares" else sa.Integer()
        op.add_column("entrant_stats", sa.Column(name, kind, nullable=False, server_default="0"))
    _backfill(op.get_bind())


def _backfill(connection: sa.Connection) -> None:
    """Every ruleset's and entrant's rated counts from the stored matches (one UPDATE by key each:
    the grouped rows are as many as the entrants, and every one has its entrant_stats row)."""
    entrants = [dict(ruleset=r, entrant=e, games=g, wins=w, strikes=s, forfeits=f)
                for r, e, g, w, s, f in connection.execute(sa.text(RATED_ENTRANT_TOTALS))]
    if entrants:
        connection.execute(sa.text(
            "UPDATE entrant_stats SET rated_games = :games, rated_win_shares = :wins, rated_strikes = :strikes, "
            "rated_forfeits = :forfeits WHERE ruleset = :ruleset AND entrant = :entrant"), entrants)
    rulesets = [dict(ruleset=r, rated=n) for r, n in connection.execute(sa.text(RATED_MATCHES))]
    if rulesets:
        connection.execute(sa.text("UPDATE ruleset_stats SET rated = :rated WHERE ruleset = :ruleset"), rulesets)


def downgrade() -> None:
    op.drop_index("ix_rating_history_position", table_name="rating_history")
    for name in ENTRANT_COLUMNS:
        op.drop_column("entrant_stats", name)
    op.drop_column("ruleset_stats", "rated")
