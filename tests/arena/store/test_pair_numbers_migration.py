"""Revision 0021 (pair_stats keyed by entrant numbers, the `entrant` table naming them): a database
at 0020 keeps every pair's figures and its refit; downgrading gives the names back."""

from __future__ import annotations

from typing import Any

from sqlalchemy import create_engine, inspect, text
from sqlalchemy.pool import NullPool

from arena.rating import rerate
from arena.store import Store, migrations
from tests.arena.postgres_server import postgres_server  # noqa: F401
from tests.arena.store.test_aggregates import assert_kept
from tests.arena.store.test_index_migration import move_to, played_results, snapshot
from tests.arena.store.test_migrations import differences, fresh_url  # noqa: F401
from tests.arena.store.test_record_codec import real_records


def raw_pairs(url: str) -> list[tuple[Any, ...]]:
    engine = create_engine(url, poolclass=NullPool)
    with engine.connect() as connection:
        rows = [tuple(row) for row in connection.execute(text("SELECT a, b FROM pair_stats"))]
        tables = inspect(connection).get_table_names()
    engine.dispose()
    return rows if "entrant" in tables else [("no entrant table", *row) for row in rows]


def test_a_database_at_0020_gets_entrant_numbers_and_keeps_its_pairs_and_ratings(fresh_url: str) -> None:  # noqa: F811
    store = Store(fresh_url)
    store.record_matches(played_results(store, real_records()))
    rulesets = store.rulesets()
    ratings = {ruleset: sorted(rerate(store, ruleset), key=lambda entry: entry.entrant) for ruleset in rulesets}
    before = snapshot(store)
    assert all(isinstance(a, int) and isinstance(b, int) for a, b in raw_pairs(fresh_url))
    store.engine.dispose()

    move_to(fresh_url, "0020", downgrade=True)
    named = raw_pairs(fresh_url)
    assert named and all(isinstance(a, str) and isinstance(b, str) and a < b for _, a, b in named), named[:3]

    store = Store(fresh_url)  # opening it runs 0021 again
    assert migrations.revision(store.engine) == migrations.HEAD and differences(store) == []
    assert snapshot(store) == before
    assert_kept(store)
    for ruleset in rulesets:
        again = sorted(rerate(store, ruleset), key=lambda entry: entry.entrant)
        for mine, theirs in zip(again, ratings[ruleset], strict=True):
            assert (mine.entrant, mine.games) == (theirs.entrant, theirs.games)
            assert abs(mine.elo - theirs.elo) < 1e-3 and abs(mine.low - theirs.low) < 1e-3


def test_a_new_entrant_gets_the_next_number_and_old_ones_keep_theirs(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    store = Store(url)
    results = played_results(store, real_records())
    store.record_matches(results[:2])
    first = dict(store.engine.connect().execute(text("SELECT name, id FROM entrant")).all())
    store.record_matches(results[2:])
    later = dict(store.engine.connect().execute(text("SELECT name, id FROM entrant")).all())
    assert later.items() >= first.items() and len(later) > len(first)
    assert sorted(later.values()) == list(range(1, len(later) + 1))
