"""Revision 0002 (the SPRT tables): a database at 0001 is upgraded in place, nothing stored is lost."""

from __future__ import annotations

from sqlalchemy import create_engine, inspect, text

from arena.sprt.driver import start_sprt
from arena.sprt.pairs import SprtConfig
from arena.store import Store, migrations
from tests.arena.postgres_server import PostgresServer, postgres_server  # noqa: F401
from tests.arena.store.test_migrations import differences, fresh_url  # noqa: F401
from tests.arena.store.test_store import new_tournament, result


def make_0001_database(url: str) -> None:
    """A database as the arena left it at revision 0001: a tournament's matches, no SPRT tables
    (and no submissions: revision 0003)."""
    store = Store(url)
    tid = new_tournament(store)
    store.record_matches([result(tid, i) for i in range(3)])
    with store.engine.begin() as connection:
        for statement in ["DROP TABLE sprt_llr", "DROP TABLE sprt", "DROP TABLE submission",
                          "UPDATE alembic_version SET version_num = '0001'"]:
            connection.execute(text(statement))
    store.engine.dispose()


def test_a_database_at_0001_gets_the_sprt_tables_in_place(fresh_url: str) -> None:  # noqa: F811
    make_0001_database(fresh_url)
    assert migrations.revision(create_engine(fresh_url)) == "0001"  # not a Store: that would upgrade it
    store = Store(fresh_url)
    assert migrations.revision(store.engine) == migrations.HEAD  # 0002, and every revision after it
    assert differences(store) == []
    assert {"sprt", "sprt_llr"} <= set(inspect(store.engine).get_table_names())
    assert store.count_matches() == 3, "nothing stored is lost"
    test_id = start_sprt(store, SprtConfig("gang_of_dice", "heuristic", "random"))
    found = store.sprt(test_id)
    assert found is not None and found.state.pairs == 0
