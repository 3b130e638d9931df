"""The store's and the dashboard's reads of matches, seats and pairs find their rows by an index
(SQLite's EXPLAIN QUERY PLAN of every statement they run): none reads a whole table, so none grows
with the history. Guards the indexes migration 0019 dropped as served by longer ones."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from arena.store import Store
from arena.store import dashboard_queries as queries
from arena.store.shared_matches import shared_matches
from tests.arena.store.test_store import new_tournament, result

TABLES = ("seat", "match", "pair_stats")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    path: Path = tmp_path_factory.mktemp("plans") / "arena.db"
    store = Store(f"sqlite:///{path}")
    tid = new_tournament(store)
    store.record_matches([result(tid, i, ("a#1", "b#2", "slow"), (1, 2, 3)) for i in range(30)])
    return store


def reads(store: Store) -> dict[str, Callable[[], Any]]:
    tid = store.tournaments()[0].id
    mid = store.matches(tournament_id=tid)[0].id
    since = datetime(2020, 1, 1, tzinfo=UTC)
    return {
        "matches of an entrant": lambda: store.matches(entrant="a#1"),
        "matches of a game": lambda: store.matches(game_id="toy"),
        "matches of a tournament": lambda: store.matches(tournament_id=tid),
        "count of an entrant": lambda: store.count_matches(entrant="a#1"),
        "stored indexes": lambda: store.stored_indexes(tid),
        "one match": lambda: queries.match_summary(store, mid),
        "page of an entrant": lambda: queries.match_page(store, entrant="a#1", limit=5),
        "page of an entrant in a tournament": lambda: queries.match_page(store, entrant="a#1", tournament_id=tid),
        "page of a game, deep": lambda: queries.match_page(store, game_id="toy", limit=5, offset=20),
        "page of faults in a game": lambda: queries.match_page(store, termination="any_fault", game_id="toy"),
        "fault history": lambda: queries.fault_history(store, "slow"),
        "shared matches": lambda: shared_matches(store, "toy@1", "a#1", "b#2"),
        "matches of bots": lambda: queries.matches_of(store, ["a#1"]),
        "last terminations": lambda: store.last_terminations(tid, "a#1", 5),
        "games since, some": lambda: store.games_since(tid, since, ["a#1"]),
        "games since, all": lambda: store.games_since(tid, since),
        "pair records": lambda: queries.pair_records(store, "toy@1"),
    }


def plans(store: Store, read: Callable[[], Any]) -> list[list[str]]:
    """The plan of every SELECT of those tables that `read` runs."""
    statements: list[tuple[str, Any]] = []

    def grab(_c: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, many: bool) -> None:
        if statement.lstrip().upper().startswith("SELECT") and not many and any(t in statement for t in TABLES):
            statements.append((statement, parameters))

    event.listen(store.engine, "before_cursor_execute", grab)
    try:
        read()
    finally:
        event.remove(store.engine, "before_cursor_execute", grab)
    with store.engine.connect() as connection:
        return [[row[3] for row in connection.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)]
                for statement, parameters in statements]


def test_every_read_of_matches_seats_and_pairs_uses_an_index(store: Store) -> None:
    for name, read in reads(store).items():
        found = plans(store, read)
        assert found, f"{name}: ran no query of {TABLES}"
        for plan in found:
            scans = [step for step in plan if step.startswith("SCAN") and "USING" not in step]
            assert not scans, f"{name} reads a whole table: {plan}"


def test_an_entrants_seats_and_a_matchs_seats_are_found_by_the_longer_indexes(store: Store) -> None:
    steps = [step for read in ("page of an entrant", "fault history", "one match")
             for plan in plans(store, reads(store)[read]) for step in plan]
    assert any("ix_seat_entrant_match (entrant=?)" in step for step in steps), steps
    assert any("sqlite_autoindex_seat_1 (match_id=?)" in step for step in steps), steps


def test_a_bots_fault_history_reads_only_its_faulted_seats(store: Store) -> None:
    """Migration 0023: the partial index of faulted seats, not every seat of the bot."""
    steps = [step for plan in plans(store, reads(store)["fault history"]) for step in plan]
    assert any("ix_seat_entrant_faulted (entrant=?)" in step for step in steps), steps


@pytest.mark.parametrize("termination", ["any_fault", "timeout"])
def test_the_matches_filtered_by_a_fault_read_only_the_faulted_seats(store: Store, termination: str) -> None:
    """The partial index of migration 0024: the seats that did not end normally, nothing else."""
    steps = [step for plan in plans(store, lambda: queries.match_page(store, termination=termination))
             for step in plan]
    assert any("ix_seat_faulted_match" in step for step in steps), steps
