"""Alembic migrations: a new database matches tables.py, an old create_all database is upgraded in
place, and several processes opening the same new database at once all succeed (SQLite and
PostgreSQL)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlmodel import SQLModel

from arena.errors import UsageError
from arena.rating import rerate
from arena.store import MatchResult, SeatResult, Store, migrations
from tests.arena.postgres_server import PostgresServer, postgres_server  # noqa: F401
from tests.arena.store.test_store import new_tournament, result

ROOT = Path(__file__).resolve().parents[3]
OLD_RATING_TABLE = """CREATE TABLE rating (ruleset VARCHAR NOT NULL, entrant VARCHAR NOT NULL,
    game_id VARCHAR NOT NULL, elo FLOAT NOT NULL, error FLOAT NOT NULL, games INTEGER NOT NULL,
    wins FLOAT NOT NULL, faults INTEGER NOT NULL, updated_at TIMESTAMP NOT NULL, PRIMARY KEY (ruleset, entrant))"""
LATER_INDEXES = ("ix_match_ruleset_status_finished", "ix_match_game_order", "ix_seat_entrant_match",
                 "ix_seat_match_cover", "ix_seat_faulted_match")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def fresh_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'arena.db'}"
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.fresh_database()


def differences(store: Store) -> list[object]:
    """What Alembic's autogenerate would change to make the database match tables.py."""
    with store.engine.connect() as connection:
        return list(compare_metadata(MigrationContext.configure(connection), SQLModel.metadata))


def test_head_is_the_newest_revision() -> None:
    config = Config()
    config.set_main_option("script_location", str(migrations.SCRIPTS))
    assert ScriptDirectory.from_config(config).get_heads() == [migrations.HEAD]


def test_a_new_database_matches_the_tables_exactly(fresh_url: str) -> None:
    store = Store(fresh_url)
    assert differences(store) == [], "tables.py changed without a migration revision"
    assert migrations.revision(store.engine) == migrations.HEAD


def make_create_all_database(url: str) -> None:
    """A database as the arena made it before migrations, in its oldest shape: create_all's
    tables, then a seat without `faults`, a bot without `files`, ratings with one symmetric
    `error`, none of the dashboard's later indexes, and no `alembic_version`."""
    store = Store(url)
    tid = new_tournament(store)
    store.record_matches([result(tid, i, ("a", "b", "c"), (1, 2, 3)) for i in range(4)])
    store.register_bot("dialer", command="python bot.py")
    with store.engine.begin() as connection:
        for statement in ["DROP TABLE alembic_version", "ALTER TABLE seat DROP COLUMN faults",
                          "ALTER TABLE bot DROP COLUMN files", "DROP TABLE rating_history", "DROP TABLE rating",
                          OLD_RATING_TABLE,
                          "INSERT INTO rating VALUES ('toy@1', 'a', 'toy', 1600, 50, 4, 4, 0, '2026-01-01')",
                          *(f"DROP INDEX {name}" for name in LATER_INDEXES)]:
            connection.execute(text(statement))
    store.engine.dispose()


def test_a_database_made_before_migrations_is_upgraded_in_place(fresh_url: str) -> None:
    make_create_all_database(fresh_url)
    store = Store(fresh_url)
    assert differences(store) == []
    assert migrations.revision(store.engine) == migrations.HEAD
    assert store.count_matches() == 4 and store.bot("dialer") is not None, "nothing stored is lost"
    assert [s.faults for s in store.matches()[0].seats] == [0, 0, 0]
    assert store.leaderboard("toy@1") == [], "old ratings are dropped; the leaderboard rates again"
    assert store.record_match(result(new_tournament(store), 0))


OPENER = """
import sys
from arena.store import Store
print("ready", flush=True)
for url in sys.stdin:
    try:
        Store(url.strip()).bots()
        print("ok", flush=True)
    except Exception as error:
        print(type(error).__name__, str(error).replace(chr(10), " "), flush=True)
"""


class Openers:
    """Real processes that open a database each time they are told, all at the same moment
    (each imports the store once, up front: that is most of a process's start-up)."""

    def __init__(self, processes: int) -> None:
        self.running = [subprocess.Popen([sys.executable, "-c", OPENER], cwd=ROOT, text=True,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE) for _ in range(processes)]
        assert [self._answer(p) for p in self.running] == ["ready"] * processes

    def open(self, url: str) -> list[str]:
        """Every process opens `url` at once; returns what each says ("ok" or its error)."""
        for process in self.running:
            assert process.stdin is not None
            process.stdin.write(url + "\n")
            process.stdin.flush()
        return [self._answer(p) for p in self.running]

    def close(self) -> None:
        for process in self.running:
            assert process.stdin is not None
            process.stdin.close()
            process.wait(timeout=30)

    @staticmethod
    def _answer(process: subprocess.Popen[str]) -> str:
        assert process.stdout is not None
        return process.stdout.readline().strip()


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_processes_opening_a_new_database_at_once_all_succeed(backend: str, tmp_path: Path,
                                                              request: pytest.FixtureRequest) -> None:
    openers = Openers(5)
    try:
        for trial in range(5):
            if backend == "sqlite":
                url = f"sqlite:///{tmp_path / f'trial{trial}.db'}"
            else:
                url = request.getfixturevalue("postgres_server").fresh_database()
            assert openers.open(url) == ["ok"] * 5, f"trial {trial}"
            store = Store(url)
            assert migrations.revision(store.engine) == migrations.HEAD and differences(store) == []
    finally:
        openers.close()


def test_an_up_to_date_database_is_opened_without_alembic(tmp_path: Path) -> None:
    """The dashboard and every worker open stores: at HEAD that is one SELECT, no Alembic import."""
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    Store(url)
    code = f"import sys; from arena.store import Store; Store({url!r}); print('alembic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert inspect(Store(url).engine).has_table("alembic_version")


def test_a_database_from_a_newer_arena_is_one_line(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    with Store(url).engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    with pytest.raises(UsageError) as error:
        Store(url)
    assert "9999" in str(error.value) and "newer arena" in str(error.value) and "\n" not in str(error.value)


def test_a_database_at_0002_gets_submissions_and_its_launched_bots_become_version_1(fresh_url: str) -> None:
    store = Store(fresh_url)
    store.register_bot("dialer")
    store.register_bot("launched", command="python bot.py", files="/bots/launched")
    with store.engine.begin() as connection:
        connection.execute(text("DROP TABLE submission"))
        connection.execute(text("UPDATE alembic_version SET version_num = '0002'"))
    store.engine.dispose()
    reopened = Store(fresh_url)
    assert differences(reopened) == [] and migrations.revision(reopened.engine) == migrations.HEAD
    assert reopened.versions("dialer") == []
    assert [(v.entrant, v.command, v.files, v.sha256) for v in reopened.versions("launched")] == \
           [("launched@1", "python bot.py", "/bots/launched", "")]
    assert reopened.add_version("launched", "python bot.py --v2", None, "c" * 64).entrant == "launched@2"


def test_ratings_with_one_faults_count_are_dropped_and_rated_again_with_strikes_and_forfeits(fresh_url: str) -> None:
    """A database at revision 0004 (rating.faults, one count for strikes and forfeits) is upgraded
    in place: its matches stay, its derived ratings go, and rating again counts the two apart."""
    store = Store(fresh_url)
    tid = new_tournament(store)
    first = result(tid, 0)
    lost = SeatResult(1, "b", "b", rank=2, faults=3, termination="timeout", reason="3 faulty decisions")
    gone = SeatResult(1, "b", "b", rank=2, faults=0, termination="crash", reason="never connected")
    second = result(tid, 1)
    store.record_matches([MatchResult(**{**first.__dict__, "seats": [first.seats[0], lost]}),
                          MatchResult(**{**second.__dict__, "seats": [second.seats[0], gone]})])
    match_id = store.matches()[0].id
    with store.engine.begin() as connection:  # back to revision 0004, with a rating stored then
        config = Config()
        config.set_main_option("script_location", str(migrations.SCRIPTS))
        config.attributes["connection"] = connection
        command.downgrade(config, "0004")
        crash_faults = "SELECT faults FROM seat WHERE termination = 'crash'"
        assert connection.execute(text(crash_faults)).scalar() == 1, "0004 counted the crash as a fault"
        for statement in ["INSERT INTO rating (ruleset, entrant, game_id, elo, low, high, games, wins, faults, "
                          "updated_at) "
                          "VALUES ('toy@1', 'b', 'toy', 1400, 1300, 1500, 1, 0, 1, '2026-01-01')",
                          "INSERT INTO rating_history (id, ruleset, entrant, position, match_id, elo) "
                          f"VALUES (1, 'toy@1', 'b', 0, {match_id}, 1400)"]:
            connection.execute(text(statement))
    store.engine.dispose()
    assert Store(fresh_url).rated_count("toy@1") == 0
    upgraded = Store(fresh_url)
    assert migrations.revision(upgraded.engine) == migrations.HEAD and differences(upgraded) == []
    assert upgraded.count_matches() == 2, "nothing stored is lost"
    assert sorted(m.seats[1].faults for m in upgraded.matches()) == [0, 3], "a crash was counted as a strike"
    assert upgraded.leaderboard("toy@1") == [] and upgraded.rated_count("toy@1") == 0
    rerate(upgraded, "toy@1")
    assert {r.entrant: (r.strikes, r.forfeits) for r in upgraded.leaderboard("toy@1")} == {"a": (0, 0), "b": (3, 2)}


def test_a_database_at_0006_gets_authors_and_its_bots_stay_the_operators(fresh_url: str) -> None:
    """Revision 0007 adds `author` and `bot.author_id` to a database that has bots and versions:
    every bot and version stays, with no author (the operator's)."""
    store = Store(fresh_url)
    store.register_bot("dialer")
    store.register_bot("launched", command="python bot.py", files="/bots/launched")
    downgrading = migrations._locking_engine(store.engine)  # as an upgrade runs: in one real transaction
    with downgrading.begin() as connection:
        config = Config()
        config.set_main_option("script_location", str(migrations.SCRIPTS))
        config.attributes["connection"] = connection
        command.downgrade(config, "0006")
        assert "author" not in inspect(connection).get_table_names()
    downgrading.dispose()
    store.engine.dispose()
    upgraded = Store(fresh_url)
    assert migrations.revision(upgraded.engine) == migrations.HEAD and differences(upgraded) == []
    assert [b.name for b in upgraded.bots()] == ["dialer", "launched"]
    assert [v.entrant for v in upgraded.versions("launched")] == ["launched@1"]
    assert upgraded.bot_author("dialer") is None
