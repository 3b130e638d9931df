"""Revision 0014 compresses the records of a database at 0012 in place: every replay stays the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from arena.store import Store, migrations
from dashboards.replay import Replay
from tests.arena.postgres_server import PostgresServer, postgres_server  # noqa: F401
from tests.arena.store.test_migrations import differences
from tests.arena.store.test_record_codec import real_records

MATCH = """INSERT INTO "match" (key, tournament_id, match_index, round, table_no, rotation, game_id, ruleset,
    num_players, seed, chance_seed, status, decisions, duration_ms, attempts, node, record, finished_at)
    VALUES (:key, 1, :index, 0, :index, 0, :game, :ruleset, :players, :seed, :seed, 'finished', 1, 1.0, 1, '',
    :record, '2026-01-01')"""


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'arena.db'}"
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.fresh_database()


def database_at_0012(url: str, records: list[dict[str, Any]]) -> None:
    """A database made by the arena of revision 0012, its records stored as JSON text, BATCH+1
    matches so that the upgrade takes more than one batch."""
    engine = migrations._locking_engine(create_engine(url, poolclass=NullPool))
    with engine.begin() as connection:
        config = Config()
        config.set_main_option("script_location", str(migrations.SCRIPTS))
        config.attributes["connection"] = connection
        command.upgrade(config, "0012")
        connection.execute(text("""INSERT INTO tournament (name, game_id, ruleset, kind, config, status,
            total_matches, created_at, updated_at) VALUES ('t', 'riga', 'riga@1', 'round_robin', '{}', 'finished',
            0, '2026-01-01', '2026-01-01')"""))
        connection.execute(text(MATCH), [
            dict(key=f"t1:m{n}", index=n, game=r["game_id"], ruleset=r["ruleset"], players=len(r["seats"]),
                 seed=r["seed"], record=json.dumps(r))
            for n, r in ((n, records[n % len(records)]) for n in range(MIGRATION_BATCH + 1))
        ])
    engine.dispose()


MIGRATION_BATCH = 2_000  # 0014's BATCH


def replay(record: dict[str, Any]) -> tuple[Any, ...]:
    played = Replay.from_record(record)
    return played.log(), played.frame(played.positions - 1, "public"), played.result()


@pytest.mark.slow
def test_the_migration_keeps_every_replay_identical(url: str) -> None:
    records = real_records()
    database_at_0012(url, records)
    before = [replay(r) for r in records]
    store = Store(url)  # opening it runs 0013 and 0014
    assert migrations.revision(store.engine) == migrations.HEAD and differences(store) == []
    summaries = store.matches(limit=MIGRATION_BATCH + 2)
    assert len(summaries) == MIGRATION_BATCH + 1
    for summary in summaries:
        record = store.match_record(summary.id)
        assert record is not None and json.dumps(record) == json.dumps(records[summary.match_index % len(records)])
    for n, expected in enumerate(before):
        assert replay(store.match_record(summaries[n].id)) == expected  # type: ignore[arg-type]
    with store.engine.connect() as connection:
        stored = connection.execute(text('SELECT MAX(LENGTH(record)) FROM "match"')).scalar()
    assert stored is not None and stored * 5 < max(len(json.dumps(r)) for r in records), (
        "the records are stored compressed")
