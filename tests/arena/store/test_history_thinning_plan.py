"""Thinning the rating history on PostgreSQL reads the kept point's entrants once (a hashed
subplan), whatever the statistics: as a correlated NOT EXISTS, when both points were newer than
the table's statistics (a live update's newest ones), the planner took each for one row and
compared every row of one with every row of the other (50 million comparisons, 3.5-6.6 s at 10,000
entrants: BENCHMARKS.md, "PostgreSQL at 1M / 10k")."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import event, text

from arena.store import RatingEntry, Store
from tests.arena.postgres_server import PostgresServer, postgres_server  # noqa: F401 - the fixture
from tests.arena.store.test_store import new_tournament, result

ENTRANTS = [f"e{n:03d}" for n in range(300)]


def entries(shift: float) -> list[RatingEntry]:
    return [RatingEntry(name, 1500.0 + n + shift, 1400.0 + n, 1600.0 + n, 10, 5.0, 0, 0)
            for n, name in enumerate(ENTRANTS)]


def nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from nodes(child)


@pytest.mark.postgres
def test_points_newer_than_the_statistics_are_thinned_through_a_hash_of_the_kept_one(
        postgres_server: PostgresServer) -> None:  # noqa: F811 - the fixture
    store = Store(postgres_server.fresh_database())
    with store.engine.begin() as connection:  # the statistics stay as ANALYZE below leaves them
        connection.execute(text("ALTER TABLE rating_history SET (autovacuum_enabled = false)"))
    tid = new_tournament(store)
    store.record_matches([result(tid, 0, ("a", "b"))])
    match_id = store.matches(tournament_id=tid)[0].id
    for position in (10, 20):  # the whole field at two points
        store.write_ratings("toy@1", "toy", entries(position), (position, match_id))
    with store.engine.begin() as connection:
        connection.execute(text("ANALYZE rating_history"))
    for position in (30, 40):  # the newest two, not in the statistics, as a live ladder's are
        store.write_ratings("toy@1", "toy", entries(position), (position, match_id))
    carried: list[tuple[str, Any]] = []

    def grab(_c: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, many: bool) -> None:
        if statement.lstrip().startswith("UPDATE rating_history"):
            carried.append((statement, parameters))

    event.listen(store.engine, "before_cursor_execute", grab)
    try:  # a live update's point at 50 that drops 30: its rows not at 40 move on to 40
        store.write_ratings("toy@1", "toy", entries(50)[:5], (50, match_id), drop=[30], every=False)
    finally:
        event.remove(store.engine, "before_cursor_execute", grab)
    [(statement, parameters)] = carried
    with store.engine.connect() as connection:
        found = connection.exec_driver_sql("EXPLAIN (FORMAT JSON) " + statement, parameters).scalar_one()
    plan = (json.loads(found) if isinstance(found, str) else found)[0]["Plan"]
    steps = [(node["Node Type"], node.get("Index Name"), node.get("Filter"), node.get("Join Filter"))
             for node in nodes(plan)]
    # the kept point's entrants hashed once, never compared with each moved row in a loop
    assert not any("entrant" in (node.get("Join Filter") or "") for node in nodes(plan)), steps
    assert any("hashed SubPlan" in (node.get("Filter") or "") for node in nodes(plan)), steps
    store.engine.dispose()
