"""Revision 0022 (the rating history's points in `rating_point`, rows keyed by point and entrant):
a database at 0021 keeps every entrant's chart and its points' match ids; downgrading gives the
rows their positions back; live updates go on after it."""

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

NAMES = [f"bot{n}" for n in range(6)]


def histories(store: Store) -> dict[str, list[tuple[int, int, float]]]:
    """Every entrant's rating history: (position, match id, elo) at every point from its first."""
    return {name: [(p.position, p.match_id, p.elo) for p in store.rating_history("toy@1", name)] for name in NAMES}


def old_rows(url: str) -> list[tuple[Any, ...]]:
    """The rows of a rating_history at 0021: (entrant, position, match id, elo)."""
    engine = create_engine(url, poolclass=NullPool)
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT entrant, position, match_id, elo FROM rating_history ORDER BY 2, 1"))
        found = [tuple(row) for row in rows]
    engine.dispose()
    return found


def test_a_database_at_0021_keeps_every_chart_through_0022(fresh_url: str) -> None:  # noqa: F811
    store = Store(fresh_url)
    tournament = store.create_tournament("toy", "toy@1", "round_robin", {}, 500)
    live = LiveRate(store, "toy@1")
    for batch in range(5):  # points holding the whole field, then only the bots that played
        pairs = [(NAMES[(batch + i) % 4], NAMES[(batch + i + 1) % 4 + batch % 2 * 2]) for i in range(6)]
        live.add(play(store, tournament, batch * 10, pairs))  # type: ignore[arg-type]
        live.rerate()
    before = histories(store)
    positions = store.history_positions("toy@1")
    assert len(positions) == 5 and all(before[name] for name in NAMES[:4])
    store.engine.dispose()

    move_to(fresh_url, "0021", downgrade=True)
    rows = old_rows(fresh_url)
    assert {position for _, position, _, _ in rows} == set(positions)
    assert len(rows) < 5 * len(NAMES), "the points hold only the entrants that changed, as before"
    for entrant, position, match_id, elo in rows:
        assert (position, match_id, elo) in before[entrant]

    store = Store(fresh_url)  # opening it runs 0022 again
    assert migrations.revision(store.engine) == migrations.HEAD and differences(store) == []
    assert histories(store) == before and store.history_positions("toy@1") == positions
    live = LiveRate(store, "toy@1")
    live.rerate()
    live.add(play(store, tournament, 60, [("bot4", "bot5")] * 3))  # type: ignore[arg-type]
    live.rerate()
    after, newest = histories(store), store.rated_count("toy@1") - 1
    assert after["bot0"][:-2] == before["bot0"][:-1], "the older points as they were"
    board = {row.entrant: row.elo for row in store.leaderboard("toy@1")}
    assert {name: points[-1][::2] for name, points in after.items()} == {name: (newest, board[name]) for name in NAMES}
