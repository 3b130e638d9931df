"""Revision 0025 (the rating history's newest point in the rating table: `rating.point_id`, no rows
at the newest point): a database at 0024 keeps every chart; downgrading puts the newest point's
rows back; live updates go on after it and seal the point with the values it showed."""

from __future__ import annotations

from typing import Any

from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from arena.rating import LiveRate
from arena.store import Store, migrations
from tests.arena.postgres_server import postgres_server  # noqa: F401
from tests.arena.store.test_index_migration import move_to
from tests.arena.store.test_migrations import differences, fresh_url  # noqa: F401
from tests.arena.store.test_rating_history import play
from tests.arena.store.test_rating_point_migration import NAMES, histories

NEWEST_ROWS = """
    SELECT h.entrant, h.elo FROM rating_history AS h JOIN rating_point AS p ON p.id = h.point_id
    WHERE p.position = (SELECT max(position) FROM rating_point) ORDER BY 1
"""


def fetched(url: str, sql: str) -> list[tuple[Any, ...]]:
    engine = create_engine(url, poolclass=NullPool)
    with engine.connect() as connection:
        found = [tuple(row) for row in connection.execute(text(sql))]
    engine.dispose()
    return found


def rated_in_batches(store: Store, batches: range) -> LiveRate:
    """Live updates after batches of matches among NAMES, some sitting out (rows of the changed
    bots only); each a new point (too few matches for thinning)."""
    tournament = store.tournaments()[0].id if store.tournaments() else store.create_tournament(
        "toy", "toy@1", "round_robin", {}, 500)
    live = LiveRate(store, "toy@1")
    for batch in batches:
        pairs = [(NAMES[(batch + i) % 4], NAMES[(batch + i + 1) % 4 + batch % 2 * 2]) for i in range(3 + batch)]
        live.add(play(store, tournament, batch * 20, pairs))  # type: ignore[arg-type]
        live.rerate()
    return live


def test_a_database_at_0024_keeps_every_chart_through_0025(fresh_url: str) -> None:  # noqa: F811
    store = Store(fresh_url)
    rated_in_batches(store, range(6))
    before, positions = histories(store), store.history_positions("toy@1")
    board = {row.entrant: row.elo for row in store.leaderboard("toy@1")}
    assert fetched(fresh_url, NEWEST_ROWS) == [], "at HEAD the newest point has no rows"
    store.engine.dispose()

    move_to(fresh_url, "0024", downgrade=True)
    rows = dict(fetched(fresh_url, NEWEST_ROWS))
    assert rows and all(board[entrant] == elo for entrant, elo in rows.items()), "the ratings back as rows"

    store = Store(fresh_url)  # opening it runs 0025 again
    assert migrations.revision(store.engine) == migrations.HEAD and differences(store) == []
    assert histories(store) == before and store.history_positions("toy@1") == positions
    assert fetched(fresh_url, NEWEST_ROWS) == []
    marked = fetched(fresh_url, "SELECT entrant FROM rating WHERE point_id IS NOT NULL ORDER BY 1")
    assert [entrant for entrant, in marked] == sorted(rows), "the ratings written at the newest point marked"
    if store.engine.dialect.name == "postgresql":
        assert fetched(fresh_url, "SELECT reloptions FROM pg_class WHERE relname = 'rating'") == [(["fillfactor=50"],)]

    rated_in_batches(store, range(6, 9))  # newer points follow: the migrated newest one is sealed
    assert store.history_positions("toy@1")[:len(positions)] == positions
    assert store.history_positions("toy@1")[-1] > positions[-1]
    assert {name: at(histories(store)[name], positions[-1]) for name in NAMES} == {
        name: at(before[name], positions[-1]) for name in NAMES}, "sealed with the values it showed"


def at(points: list[tuple[int, int, float]], position: int) -> float | None:
    return next((elo for p, _, elo in points if p == position), None)
