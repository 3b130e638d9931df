"""The store on SQLite and on a real PostgreSQL: idempotent match writes, queries, ratings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from arena.cli import main
from arena.errors import UsageError
from arena.rating import rerate
from arena.store import MatchResult, RatingEntry, SeatResult, Store
from tests.arena.postgres_server import postgres_server, store_on_both  # noqa: F401 - fixtures

BIG_SEED = 2**63 - 25  # seeds are 63-bit: a 32-bit INTEGER column would overflow


def result(tournament_id: int, index: int, entrants: tuple[str, ...] = ("a", "b"),
           ranks: tuple[int, ...] = (1, 2), aborted: str | None = None) -> MatchResult:
    seats = [SeatResult(i, e, e.split("#")[0], score=float(len(entrants) - r), rank=None if aborted else r,
                        termination="timeout" if e == "slow" else "normal")
             for i, (e, r) in enumerate(zip(entrants, ranks))]
    return MatchResult(
        tournament_id=tournament_id, match_index=index, round=0, table_no=index // 2, rotation=index % 2,
        game_id="toy", ruleset="toy@1", seed=BIG_SEED - index, chance_seed=BIG_SEED, seats=seats,
        record={"game_id": "toy", "seed": BIG_SEED - index, "steps": [{"chance": 3}], "ranks": list(ranks)},
        aborted_reason=aborted, decisions=1, duration_ms=1.5,
    )


def new_tournament(store: Store, total: int = 10) -> int:
    return store.create_tournament("toy", "toy@1", "round_robin", {"entrants": ["a", "b"]}, total, "t")


def test_a_match_is_recorded_once_however_often_it_is_written(store: Store) -> None:
    tid = new_tournament(store)
    assert store.record_match(result(tid, 0)) is True
    assert store.record_match(result(tid, 0)) is False
    assert store.record_matches([result(tid, 0), result(tid, 1), result(tid, 1), result(tid, 2)]) == 2
    second_writer = Store(store.url)  # another driver on the same database
    assert second_writer.record_matches([result(tid, 2), result(tid, 3)]) == 1
    assert store.stored_indexes(tid) == {0, 1, 2, 3}
    assert store.count_matches(tournament_id=tid) == 4
    info = store.tournament(tid)
    assert info is not None and (info.done_matches, info.total_matches) == (4, 10)


def test_seeds_records_and_seats_come_back_exactly(store: Store) -> None:
    tid = new_tournament(store)
    store.record_matches([result(tid, 0, ("a", "slow", "c#2"), (2, 3, 1))])
    [summary] = store.matches(tournament_id=tid)
    assert (summary.seed, summary.chance_seed) == (BIG_SEED, BIG_SEED)
    assert summary.key == f"t{tid}:m0" and summary.status == "finished"
    assert [(s.entrant, s.spec, s.rank, s.termination) for s in summary.seats] == [
        ("a", "a", 2, "normal"), ("slow", "slow", 3, "timeout"), ("c#2", "c", 1, "normal")]
    assert store.match_record(summary.id) == result(tid, 0, ("a", "slow", "c#2"), (2, 3, 1)).record
    assert store.match_record(summary.id + 1000) is None


def test_match_queries_filter_and_page(store: Store) -> None:
    first, second = new_tournament(store), new_tournament(store)
    store.record_matches([result(first, i, ("a", "b") if i % 2 else ("b", "c")) for i in range(7)])
    store.record_matches([result(second, 0, ("a", "c")), result(second, 1, aborted="engine exploded")])
    pages = [store.matches(tournament_id=first, limit=3, offset=o) for o in (0, 3, 6)]
    assert [[m.match_index for m in page] for page in pages] == [[0, 1, 2], [3, 4, 5], [6]]
    assert store.count_matches(entrant="a") == 3 + 2  # three in the first tournament, both of the second
    assert {m.key for m in store.matches(entrant="c")} == {f"t{first}:m{i}" for i in (0, 2, 4, 6)} | {f"t{second}:m0"}
    [aborted] = store.matches(status="aborted")
    assert aborted.aborted_reason == "engine exploded"
    assert [t.id for t in store.tournaments()] == [second, first], "newest first"
    assert store.tournament(second).aborted_matches == 1  # type: ignore[union-attr]


def test_rerate_stores_ratings_and_history_from_the_matches(store: Store) -> None:
    tid = new_tournament(store)
    store.record_matches([result(tid, i, ("a", "b", "c"), (1, 2, 3)) for i in range(6)]
                         + [result(tid, 6, ("a", "b", "c"), aborted="arena error")])
    entries = rerate(store, "toy@1")
    board = store.leaderboard("toy@1")
    assert [row.entrant for row in board] == ["a", "b", "c"] == [e.entrant for e in entries]
    assert [row.place for row in board] == [1, 2, 3]
    assert board[0].games == 6 and board[0].wins == 6 and board[0].win_rate == 1.0
    assert all(row.low < row.elo < row.high for row in board)
    history = store.rating_history("toy@1", "a")
    assert [p.position for p in history] == [5], "one point per rerate: the fit over the 6 rated matches"
    assert history[-1].elo == pytest.approx(board[0].elo)
    assert store.rulesets("toy") == ["toy@1"] and store.rulesets("riga") == []
    rerate(store, "toy@1")
    assert store.leaderboard("toy@1") == board, "rerating is idempotent"
    assert [p.position for p in store.rating_history("toy@1", "a")] == [5], "nothing new: the point is replaced"


OLD_RATING_TABLE = """CREATE TABLE rating (ruleset VARCHAR NOT NULL, entrant VARCHAR NOT NULL,
    game_id VARCHAR NOT NULL, elo FLOAT NOT NULL, error FLOAT NOT NULL, games INTEGER NOT NULL,
    wins FLOAT NOT NULL, faults INTEGER NOT NULL, updated_at DATETIME NOT NULL, PRIMARY KEY (ruleset, entrant))"""


def test_ratings_from_before_the_likelihood_intervals_are_dropped_and_rated_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A database whose rating table still has the old symmetric `error` column: opening it drops
    the derived ratings, and `arena leaderboard` rates the ruleset again from its matches."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    store = Store(url)
    tid = new_tournament(store)
    store.record_matches([result(tid, i, ("a", "b", "c"), (1, 2, 3)) for i in range(4)])
    with store.engine.begin() as connection:  # a database made before migrations (create_all)
        connection.execute(text("DROP TABLE alembic_version"))
        connection.execute(text("DROP TABLE rating_history"))
        connection.execute(text("DROP TABLE rating"))
        connection.execute(text(OLD_RATING_TABLE))
        connection.execute(text("INSERT INTO rating VALUES ('toy@1', 'a', 'toy', 1600, 50, 4, 4, 0, '2026-01-01')"))
    store.engine.dispose()
    assert Store(url).leaderboard("toy@1") == []
    assert main(["leaderboard", "--ruleset", "toy@1", "--db", url, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["toy@1"]
    assert [r["bot"] for r in rows] == ["a", "b", "c"] and all(r["low95"] < r["elo"] < r["high95"] for r in rows)
    Store(url).replace_ratings("toy@1", "toy", [RatingEntry("c", 1600.0, 1500.0, 1700.0, 4, 0.0, 0, 0)], [])
    assert main(["leaderboard", "--ruleset", "toy@1", "--db", url, "--json", "--rerate"]) == 0
    # fitted from the stored ratings this time: the same ratings, and interval ends found to 1e-4 Elo again
    again = json.loads(capsys.readouterr().out)["toy@1"]
    assert again == [pytest.approx(row, abs=1e-3) for row in rows], "--rerate recomputes stored ratings"


def test_replace_ratings_swaps_a_ruleset_atomically(store: Store) -> None:
    tid = new_tournament(store)
    store.record_match(result(tid, 0))
    match_id = store.matches()[0].id
    store.replace_ratings("toy@1", "toy", [RatingEntry("a", 1510.0, 1460.0, 1560.0, 1, 1.0, 0, 0)],
                          [(0, match_id, "a", 1510.0)])
    store.replace_ratings("toy@1", "toy", [RatingEntry("b", 1490.0, 1440.0, 1540.0, 1, 0.0, 0, 0)], [])
    assert [row.entrant for row in store.leaderboard("toy@1")] == ["b"]
    assert store.rating_history("toy@1", "a") == []


def test_registered_bots_keep_working(store: Store) -> None:
    token = store.register_bot("dialer", command="python bot.py")
    info = store.bot_by_token(token)
    assert info is not None and info.name == "dialer" and info.command == "python bot.py"
    assert store.bot("dialer") == info and store.bot("nobody") is None
    assert store.bot_by_token(token + "x") is None
    with pytest.raises(UsageError, match="already registered"):
        store.register_bot("dialer")


def test_bots_registered_at_once_are_as_if_registered_one_by_one(store: Store) -> None:
    tokens = store.register_bots(["b1", "b2", "b3"], command="python3 bot.py")
    store.register_bot("single", command="python3 bot.py")
    assert len(set(tokens)) == 3
    for name, token in zip(["b1", "b2", "b3"], tokens):
        info = store.bot_by_token(token)
        assert info is not None and info.name == name and info.command == "python3 bot.py" and not info.disabled
        [version] = store.versions(name)
        [alone] = store.versions("single")
        assert (version.number, version.command, version.sha256, version.files) == (1, alone.command, "", None)
    assert store.register_bots(["dialer"]) and store.versions("dialer") == [], "no command: no version"
    with pytest.raises(UsageError, match="'b2' is already registered"):
        store.register_bots(["new1", "b2"])
    with pytest.raises(UsageError, match="a name twice"):
        store.register_bots(["x1", "x1"])
    with pytest.raises(UsageError, match="bad bot name"):
        store.register_bots(["ok", "no@pe"])
    assert store.bot("new1") is None and store.bot("ok") is None, "all or none"


def test_a_sqlite_writer_checkpoints_its_wal_every_20000_pages(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    with store.engine.connect() as connection:
        assert connection.execute(text("PRAGMA wal_autocheckpoint")).scalar() == 20_000
        assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"


@pytest.mark.parametrize("url", ["nonsense://x", "postgresql+psycopg://nobody@127.0.0.1:1/none", "sqlite:////no/such/dir/a.db"])
def test_a_bad_url_is_one_line_that_says_what_is_valid(url: str) -> None:
    with pytest.raises(UsageError) as error:
        Store(url)
    assert "use sqlite:///path.db or postgresql+psycopg://" in str(error.value)
    assert "\n" not in str(error.value)


def test_strikes_and_forfeits_are_stored_and_counted_apart(store: Store) -> None:
    tid = new_tournament(store)
    clean, struck, forfeited = result(tid, 0), result(tid, 1), result(tid, 2)
    struck = MatchResult(**{**struck.__dict__, "seats": [struck.seats[0], SeatResult(1, "b", "b", rank=2, faults=2)]})
    lost = SeatResult(1, "b", "b", rank=2, faults=3, termination="timeout", reason="3 faulty decisions")
    forfeited = MatchResult(**{**forfeited.__dict__, "seats": [forfeited.seats[0], lost]})
    store.record_matches([clean, struck, forfeited])
    rated = store.rated_matches("toy@1")
    assert [m.strikes for m in rated] == [(0, 0), (0, 2), (0, 3)]
    assert [m.forfeits for m in rated] == [(False, False), (False, False), (False, True)]
    assert store.matches(limit=1, offset=1)[0].seats[1].faults == 2
    rerate(store, "toy@1")
    board = {row.entrant: (row.strikes, row.forfeits) for row in store.leaderboard("toy@1")}
    assert board == {"a": (0, 0), "b": (5, 1)}


def test_a_database_from_before_the_faults_column_gets_it(store: Store) -> None:
    from sqlalchemy import text

    with store.engine.begin() as connection:  # a database made before migrations (create_all)
        connection.execute(text("DROP TABLE alembic_version"))
        connection.execute(text("ALTER TABLE seat DROP COLUMN faults"))
    reopened = Store(store.url)
    tid = new_tournament(reopened)
    assert reopened.record_match(result(tid, 0))
    assert reopened.matches()[0].seats[0].faults == 0


def test_versions_are_numbered_per_bot_and_never_change(store: Store) -> None:
    store.register_bot("sub")
    assert store.versions("sub") == [] and store.version("sub") is None
    first = store.add_version("sub", "node bot.js", "/files/a", "a" * 64)
    second = store.add_version("sub", "node bot.js --fast", "/files/b", "b" * 64)
    assert (first.entrant, second.entrant) == ("sub@1", "sub@2")
    assert store.versions("sub") == [first, second]
    assert store.version("sub") == second and store.version("sub", 1) == first and store.version("sub", 3) is None
    bot = store.bot("sub")
    assert bot is not None and (bot.command, bot.files) == ("node bot.js --fast", "/files/b"), "the latest launches"
    store.register_bot("launched", command="python bot.py", files="/files/c")
    assert [(v.entrant, v.command, v.files, v.sha256) for v in store.versions("launched")] == \
           [("launched@1", "python bot.py", "/files/c", "")]
    with pytest.raises(UsageError, match="no bot named 'ghost' is registered"):
        store.add_version("ghost", "x", None, "")


def test_the_leaderboard_header_counts_the_matches_its_table_rates(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Another writer stores matches after the last rerate: the header still counts the matches
    the stored ratings were fitted to, so that it and the table's games agree."""
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    store = Store(url)
    tid = new_tournament(store)
    store.record_matches([result(tid, i) for i in range(4)])
    rerate(store, "toy@1")
    assert store.rated_count("toy@1") == 4 and store.rated_count("nothing@1") == 0
    Store(url).record_matches([result(tid, i) for i in range(4, 6)])  # the other writer, not rated yet
    assert main(["leaderboard", "--ruleset", "toy@1", "--db", url]) == 0
    out = capsys.readouterr().out
    assert "toy@1: 2 bots, 4 rated matches" in out, out
    assert [row.games for row in store.leaderboard("toy@1")] == [4, 4]
