"""Two entrants' shared matches (the dashboard's head-to-head): the right ones, newest first, on
both backends; and on PostgreSQL read through the seats' indexes and the match's primary key, before
the planner has statistics of a history written in bulk as well as after. Joined in one statement,
PostgreSQL walked the ruleset's whole match index instead (BENCHMARKS.md, "PostgreSQL at 1M / 10k")."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import event, text

from arena.store import MatchResult, Store
from arena.store.shared_matches import shared_matches
from tests.arena.postgres_server import PostgresServer, postgres_server, store_on_both  # noqa: F401 - fixtures
from tests.arena.store.test_store import new_tournament, result

PLAYERS, FIELD = ("a#1", "b#1"), [f"e{n}#1" for n in range(40)]


def test_the_newest_finished_shared_matches_of_the_ruleset_come_back(store: Store) -> None:
    """Past a read of seats: the pair's tables of another ruleset and aborted ones are more than a
    page (20), between those of this ruleset."""
    tid = new_tournament(store, 400)
    other = ("a#1", "c#1", "b#1")
    matches = [result(tid, i, other if i % 2 else ("a#1", "c#1"), (1, 2, 3)) for i in range(20)]  # 10 shared
    matches += [dataclasses.replace(result(tid, 20 + i, other, (1, 2, 3)), ruleset="toy@2")
                for i in range(45)]
    matches += [result(tid, 100 + i, other, (1, 2, 3), aborted="crash") for i in range(5)]
    matches += [result(tid, 200 + i, ("b#1", "a#1"), (2, 1)) for i in range(15)]
    store.record_matches(matches)
    shared = [m.match_index for m in store.matches(tournament_id=tid, limit=1000)
              if m.ruleset == "toy@1" and m.status == "finished" and {"a#1", "b#1"} <= {s.entrant for s in m.seats}]
    newest = sorted(shared, reverse=True)
    found = shared_matches(store, "toy@1", "a#1", "b#1")
    assert [m.match_index for m in found] == newest[:20]
    assert [m.id for m in found] == sorted((m.id for m in found), reverse=True)
    assert {"a#1", "b#1"} <= {s.entrant for s in found[0].seats}
    assert [m.match_index for m in shared_matches(store, "toy@1", "b#1", "a#1", limit=100)] == newest
    assert len(shared_matches(store, "toy@2", "a#1", "b#1", limit=100)) == 45
    assert shared_matches(store, "toy@1", "a#1", "nobody") == []


@pytest.fixture(scope="module")
def bulk_history(postgres_server: PostgresServer) -> Iterator[Store]:  # noqa: F811 - the fixture
    """2,000 matches of 4 among 40 entrants (and a#1 with b#1 at 100 of them) on PostgreSQL, with
    autovacuum off on the match and seat tables: their statistics not yet gathered."""
    store = Store(postgres_server.fresh_database())
    with store.engine.begin() as connection:
        for table in ("match", "seat"):
            connection.execute(text(f"ALTER TABLE {table} SET (autovacuum_enabled = false)"))
    tid = new_tournament(store, 2000)
    rng = random.Random(1)
    store.record_matches([_table(tid, i, rng) for i in range(2000)])
    yield store
    store.engine.dispose()


def _table(tid: int, index: int, rng: random.Random) -> MatchResult:
    others = rng.sample(FIELD, 2 if index % 20 == 0 else 4)
    return result(tid, index, (*PLAYERS, *others) if index % 20 == 0 else tuple(others), (1, 2, 3, 4))


def _plans(store: Store, ruleset: str) -> list[dict[str, Any]]:
    """PostgreSQL's plan (EXPLAIN's JSON) of every SELECT that shared_matches runs."""
    statements: list[tuple[str, Any]] = []

    def grab(_c: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, many: bool) -> None:
        statements.append((statement, parameters))

    event.listen(store.engine, "before_cursor_execute", grab)
    try:
        assert len(shared_matches(store, ruleset, *PLAYERS)) == 20
    finally:
        event.remove(store.engine, "before_cursor_execute", grab)
    with store.engine.connect() as connection:
        return [_json(connection.exec_driver_sql("EXPLAIN (FORMAT JSON) " + statement, parameters).scalar_one())
                for statement, parameters in statements if statement.lstrip().upper().startswith("SELECT")]


def _json(found: Any) -> dict[str, Any]:
    return dict((json.loads(found) if isinstance(found, str) else found)[0]["Plan"])


def _nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


@pytest.mark.postgres
@pytest.mark.parametrize("statistics", ["none yet", "analyzed"])
def test_postgresql_reads_shared_matches_by_the_seats_and_the_primary_key(bulk_history: Store, statistics: str) -> None:
    if statistics == "analyzed":
        with bulk_history.engine.begin() as connection:
            connection.execute(text("ANALYZE"))
    shared, *rest = [list(_nodes(plan)) for plan in _plans(bulk_history, "toy@1")]
    steps = [(node["Node Type"], node.get("Relation Name"), node.get("Index Name")) for node in shared]
    # the pair's tables from the seats' indexes alone
    assert {node.get("Relation Name") for node in shared} - {None} == {"seat"}, steps
    assert all(node["Node Type"] != "Seq Scan" for node in shared), steps
    assert any(node.get("Index Name", "").startswith("ix_seat_entrant") for node in shared), steps
    # then the match rows by their primary key (the seats of a page are read as every page's are)
    reads = [node for nodes in rest for node in nodes if node.get("Relation Name") == "match"]
    assert reads and all(node["Node Type"] != "Seq Scan" for node in reads), reads
    indexes = {node["Index Name"] for nodes in rest for node in nodes if "Index Name" in node}
    assert "match_pkey" in indexes and not {name for name in indexes if name.startswith("ix_match")}, indexes
