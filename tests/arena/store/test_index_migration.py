"""Revision 0019 (fewer seat indexes; SQLite's pair_stats WITHOUT ROWID) on a database at 0018:
every record byte for byte, every replay and every aggregate stay as they were."""

from __future__ import annotations

from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.pool import NullPool

from arena.store import MatchResult, SeatResult, Store, migrations
from arena.store.aggregates import PAIR_SHARES
from tests.arena.postgres_server import postgres_server  # noqa: F401
from tests.arena.store.test_aggregates import assert_kept
from tests.arena.store.test_migrations import differences, fresh_url  # noqa: F401
from tests.arena.store.test_record_codec import real_records, without_dictionary
from tests.arena.store.test_record_migration import replay

DROPPED = {"ix_seat_entrant", "ix_seat_match_id"}
# pair_stats in the same form before 0021 (names; the totals as floats) and after (entrant numbers; in shares)
PAIRS_BY_NAME = ("SELECT p.ruleset, ea.name, eb.name, p.matches, p.a_ahead, p.b_ahead, p.ties, p.weight_shares, "
                 "p.score_shares FROM pair_stats AS p JOIN entrant AS ea ON ea.id = p.a "
                 "JOIN entrant AS eb ON eb.id = p.b ORDER BY p.ruleset, ea.name, eb.name")
OLD_PAIRS = (f"SELECT ruleset, a, b, matches, a_ahead, b_ahead, ties, CAST(round(weight * {PAIR_SHARES}) AS BIGINT), "
             f"CAST(round(score * {PAIR_SHARES}) AS BIGINT) FROM pair_stats ORDER BY ruleset, a, b")


def move_to(url: str, revision: str, downgrade: bool) -> None:
    engine = migrations._locking_engine(create_engine(url, poolclass=NullPool))
    with engine.begin() as connection:
        config = Config()
        config.set_main_option("script_location", str(migrations.SCRIPTS))
        config.attributes["connection"] = connection
        (command.downgrade if downgrade else command.upgrade)(config, revision)
    engine.dispose()


def played_results(store: Store, records: list[dict[str, Any]]) -> list[MatchResult]:
    """Each real record stored three times over, with entrants that overlap (pairs, ties, faults);
    every other one encoded as the arena encoded records before 0019 (no dictionary)."""
    names = ["ann", "bob", "cat", "dan", "eve", "fay"]
    results = []
    for number, record in enumerate(records * 3):
        tid = store.create_tournament(record["game_id"], record["ruleset"], "round_robin", {}, 100, "t")
        seats = [SeatResult(seat, names[(number + seat) % len(names)], "random", score=float(record["returns"][seat]),
                            rank=record["ranks"][seat], termination="timeout" if number == seat else "normal",
                            faults=number % 2)
                 for seat in range(len(record["seats"]))]
        old = {"encoded_record": without_dictionary(record)} if number % 2 else {}
        results.append(MatchResult(tid, 0, 0, 0, 0, record["game_id"], record["ruleset"], record["seed"],
                                   record["seed"], seats, record, decisions=5, duration_ms=1.0, **old))
    return results


def snapshot(store: Store) -> tuple[Any, ...]:
    """The stored records' bytes, every aggregate, and each match's replay."""
    with store.engine.connect() as connection:
        records = [(i, bytes(r)) for i, r in connection.execute(text('SELECT id, record FROM "match" ORDER BY id'))]
        pairs = connection.execute(text(PAIRS_BY_NAME if "entrant" in inspect(connection).get_table_names()
                                        else OLD_PAIRS)).all()
        entrants = connection.execute(text("SELECT * FROM entrant_stats ORDER BY ruleset, entrant")).all()
        rulesets = connection.execute(text("SELECT * FROM ruleset_stats ORDER BY ruleset")).all()
    replays = [replay(store.match_record(match_id)) for match_id, _ in records]  # type: ignore[arg-type]
    return records, [tuple(p) for p in pairs], [tuple(e) for e in entrants], [tuple(r) for r in rulesets], replays


def indexes(store: Store, table: str) -> set[str]:
    return {index["name"] for index in inspect(store.engine).get_indexes(table)}


def pair_stats_without_rowid(store: Store) -> bool:
    with store.engine.connect() as connection:
        sql = connection.execute(text("SELECT sql FROM sqlite_master WHERE name = 'pair_stats'")).scalar()
    return "WITHOUT ROWID" in str(sql).upper()


def test_a_database_at_0018_keeps_its_records_replays_and_aggregates(fresh_url: str) -> None:  # noqa: F811
    store = Store(fresh_url)
    store.record_matches(played_results(store, real_records()))
    store.engine.dispose()
    move_to(fresh_url, "0018", downgrade=True)
    old = Store.__new__(Store)  # the database as 0018 left it, read without opening (which would upgrade it)
    old.engine = create_engine(fresh_url, poolclass=NullPool)
    assert DROPPED <= indexes(old, "seat")
    sqlite = old.engine.dialect.name == "sqlite"
    assert not (sqlite and pair_stats_without_rowid(old))
    before = snapshot(old)
    assert {record[:1] for _, record in before[0]} == {b"\x01", b"\x02", b"\x03"}, "old and new encodings"
    old.engine.dispose()

    store = Store(fresh_url)  # opening it runs 0019
    assert migrations.revision(store.engine) == migrations.HEAD and differences(store) == []
    assert not DROPPED & indexes(store, "seat")
    assert not sqlite or pair_stats_without_rowid(store)
    assert snapshot(store) == before
    assert_kept(store)


def test_a_new_sqlite_database_keeps_pair_stats_without_rowid(tmp_path: Any) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    assert pair_stats_without_rowid(store) and not DROPPED & indexes(store, "seat")
