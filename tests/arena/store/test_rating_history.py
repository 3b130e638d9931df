"""A live rerate writes only the ratings and history rows that changed (arena.rating.LiveRate,
arena/store/rating_history.py): the charts carry a bot's last value over the points without its
row, and show the same curves as a history with every bot at every point."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, func
from sqlmodel import Session, col, select

from arena.rating import LiveRate, rerate
from arena.store import RatingEntry, Store
from arena.store.tables import RatingHistoryRow, RatingPointRow, RatingRow
from arena.tournament.driver import rated_match
from dashboards import views
from tests.arena.postgres_server import postgres_server  # noqa: F401
from tests.arena.store.test_migrations import fresh_url  # noqa: F401
from tests.arena.store.test_store import result


def rows_at(store: Store, position: int) -> dict[str, float]:
    """The values stored at the point at `position`: its rows, and the ratings written at it (an
    entrant's newest value is its rating, not also a row; the newest point has no rows)."""
    with Session(store.engine) as session:
        point = session.exec(select(RatingPointRow).where(RatingPointRow.ruleset == "toy@1",
                                                          RatingPointRow.position == position)).first()
        if point is None:
            return {}
        rows = dict(session.exec(select(RatingHistoryRow.entrant, RatingHistoryRow.elo).where(
            RatingHistoryRow.point_id == point.id)).all())
        ratings = dict(session.exec(select(RatingRow.entrant, RatingRow.elo).where(
            RatingRow.ruleset == "toy@1", RatingRow.point_id == point.id)).all())
        newest = session.exec(select(func.max(RatingPointRow.position)).where(RatingPointRow.ruleset == "toy@1")).one()
    assert not (rows and position == newest), "the newest point has no rows"
    assert not set(rows) & set(ratings), "a value is a row or a rating, not both"
    return rows | ratings


def orphans(store: Store) -> list[int]:
    """The points that rating_history rows name but rating_point no longer holds (no foreign key
    keeps them out: arena/store/rating_history.py deletes a point's rows with it)."""
    with Session(store.engine) as session:
        named = set(session.exec(select(RatingHistoryRow.point_id)).all())
        return sorted(named - set(session.exec(select(RatingPointRow.id)).all()))


def chart(store: Store, bot: str) -> list[list[float]]:
    return views.rating_history(store, "toy@1", [bot])["series"][0]["points"]  # type: ignore[no-any-return]


def play(store: Store, tournament: int, first: int, pairs: list[tuple[str, str]]) -> list[object]:
    results = [result(tournament, first + i, pair, (1, 2)) for i, pair in enumerate(pairs)]
    assert store.record_matches(results) == len(results)
    return [rated_match(r) for r in results]


def test_a_bot_that_did_not_play_keeps_its_last_value_on_the_chart(tmp_path: Path) -> None:
    """Two fields that never meet: a live update after games of the first leaves the second's
    ratings as they were, so it writes neither their rating rows nor their history rows."""
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    tournament = store.create_tournament("toy", "toy@1", "round_robin", {}, 100)
    play(store, tournament, 0, [("a", "b"), ("b", "a"), ("a", "b"), ("c", "d"), ("d", "c"), ("c", "d")])
    live = LiveRate(store, "toy@1")
    live.rerate()
    assert set(rows_at(store, 5)) == {"a", "b", "c", "d"}, "the first rerate stores every bot"
    with Session(store.engine) as session:
        stamps = dict(session.exec(select(RatingRow.entrant, RatingRow.updated_at)).all())
    live.add(play(store, tournament, 6, [("a", "b"), ("b", "a"), ("b", "a")]))
    live.rerate()
    assert set(rows_at(store, 8)) == {"a", "b"}, "only the bots whose rating changed get a row"
    with Session(store.engine) as session:
        after = dict(session.exec(select(RatingRow.entrant, RatingRow.updated_at)).all())
    assert after["c"] == stamps["c"] and after["d"] == stamps["d"] and after["a"] != stamps["a"]
    board = {row.entrant: row.elo for row in store.leaderboard("toy@1")}
    assert chart(store, "c") == [[6, round(board["c"], 1)], [9, round(board["c"], 1)]], "carried to the new point"
    assert [(p.position, p.elo) for p in store.rating_history("toy@1", "c")] == [(5, board["c"]), (8, board["c"])]
    assert store.rating_history("toy@1", "c")[-1].match_id == store.rating_history("toy@1", "a")[-1].match_id
    assert [p[0] for p in chart(store, "a")] == [6, 9] and chart(store, "a")[-1][1] == round(board["a"], 1)
    assert store.rated_count("toy@1") == 9
    rerate(store, "toy@1")  # a full rerate: every bot at the last point again
    assert set(rows_at(store, 8)) == {"a", "b", "c", "d"} and store.history_positions("toy@1") == [5, 8]


def test_live_charts_show_the_curves_of_full_rerates(tmp_path: Path) -> None:
    """The same matches rated live (rows of the changed bots only) and by a full rerate after each
    batch (every bot at every point): the same points on every bot's chart, to the chart's 0.1 Elo
    (the live fit's own tolerance apart)."""
    live_store, full_store = Store(f"sqlite:///{tmp_path / 'live.db'}"), Store(f"sqlite:///{tmp_path / 'full.db'}")
    tournaments = [s.create_tournament("toy", "toy@1", "round_robin", {}, 500) for s in (live_store, full_store)]
    rng, names = random.Random(4), [f"bot{i}" for i in range(8)]
    live: LiveRate | None = None
    for batch in range(12):
        sitting = names[:3 + batch % 6]  # some bots sit out some batches
        pairs = [tuple(rng.sample(sitting, 2)) for _ in range(5 + batch)]
        start = batch * 20
        for store, tournament in zip((live_store, full_store), tournaments, strict=True):
            matches = play(store, tournament, start, pairs)  # type: ignore[arg-type]
        if live is None:
            live = LiveRate(live_store, "toy@1")
        else:
            live.add(matches)  # type: ignore[arg-type]
        live.rerate()
        rerate(full_store, "toy@1")
    assert live_store.history_positions("toy@1") == full_store.history_positions("toy@1")
    for name in names:
        mine, theirs = chart(live_store, name), chart(full_store, name)
        assert [p[0] for p in mine] == [p[0] for p in theirs], name
        assert [p[1] for p in mine] == pytest.approx([p[1] for p in theirs], abs=0.25), name
    assert orphans(live_store) == [] and orphans(full_store) == []


def stored_matches(url: str, count: int) -> tuple[Store, dict[int, int]]:
    """A store with `count` matches of one tournament, and their ids by match index."""
    store = Store(url)
    tournament = store.create_tournament("toy", "toy@1", "round_robin", {}, 100)
    store.record_matches([result(tournament, i) for i in range(count)])
    return store, {m.match_index: m.id for m in store.matches(limit=100)}


def entry(name: str, elo: float) -> RatingEntry:
    return RatingEntry(name, elo, elo - 50, elo + 50, 1, 0.0, 0, 0)


def test_thinning_the_history_moves_a_bots_last_row_on_to_the_next_kept_point(fresh_url: str) -> None:  # noqa: F811
    store, ids = stored_matches(fresh_url, 50)
    write = store.write_ratings
    write("toy@1", "toy", [entry("a", 1500), entry("b", 1510), entry("c", 1490)], (10, ids[10]))
    write("toy@1", "toy", [entry("a", 1520)], (20, ids[20]), every=False)
    write("toy@1", "toy", [entry("b", 1530)], (30, ids[30]), [20], every=False)  # a's 1520 moves on to 30
    assert rows_at(store, 30) == {"a": 1520, "b": 1530}
    write("toy@1", "toy", [entry("c", 1480)], (40, ids[40]), [10], every=False)  # only c's 1490 moves on
    assert rows_at(store, 10) == {} and rows_at(store, 30) == {"a": 1520, "b": 1530, "c": 1490}
    assert store.history_positions("toy@1") == [30, 40] and store.rated_count("toy@1") == 41
    assert [(p.position, p.match_id, p.elo) for p in store.rating_history("toy@1", "c")] == [
        (30, ids[30], 1490), (40, ids[40], 1480)]
    assert chart(store, "a") == [[31, 1520], [41, 1520]]
    write("toy@1", "toy", [entry("a", 1525)], (40, ids[40]), [40], every=False)  # nothing new: a's row replaced
    assert rows_at(store, 40) == {"a": 1525, "c": 1480}
    assert [row.entrant for row in store.leaderboard("toy@1")] == ["b", "a", "c"] and orphans(store) == []
    with Session(store.engine) as session:
        assert session.exec(select(func.count()).select_from(RatingRow)).one() == 3


def test_the_newest_point_moves_on_without_moving_its_rows(fresh_url: str) -> None:  # noqa: F811
    """A live update that replaces the newest point (too close to the one before to keep) changes
    that point's position in `rating_point` and writes the changed entrants' rows: the rows of the
    others stay where they are (migration 0022), and the charts carry them to the new position."""
    store, ids = stored_matches(fresh_url, 50)
    field = [entry(name, 1500 + n) for n, name in enumerate("abcdefgh")]
    store.write_ratings("toy@1", "toy", field, (10, ids[10]))
    store.write_ratings("toy@1", "toy", field[:5], (20, ids[20]), every=False)
    statements: list[str] = []

    def grab(_connection: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        statements.append(statement)

    event.listen(store.engine, "before_cursor_execute", grab)
    try:
        store.write_ratings("toy@1", "toy", [entry("a", 1600)], (30, ids[30]), [20], every=False)
    finally:
        event.remove(store.engine, "before_cursor_execute", grab)
    assert not [s for s in statements if s.lstrip().startswith(("UPDATE rating_history", "DELETE FROM rating_history"))]
    assert rows_at(store, 30) == {"a": 1600, "b": 1501, "c": 1502, "d": 1503, "e": 1504}
    assert store.history_positions("toy@1") == [10, 30] and store.rated_count("toy@1") == 31
    assert [(p.position, p.match_id, p.elo) for p in store.rating_history("toy@1", "b")] == [
        (10, ids[10], 1501), (30, ids[30], 1501)]
    assert chart(store, "h") == [[11, 1507], [31, 1507]], "a bot without a row at the point carries its value"


def test_a_row_thinned_out_before_the_newest_point_is_its_value_there_and_when_sealed(fresh_url: str) -> None:  # noqa: F811
    """Thinning drops the point just before the newest (which has no rows): an entrant's value there
    (a row, or its rating written there) moves on to the newest point as its rating, and becomes
    that point's row when its rating is written again at a newer one."""
    store, ids = stored_matches(fresh_url, 50)
    write = store.write_ratings
    write("toy@1", "toy", [entry("a", 1500), entry("b", 1510), entry("c", 1490)], (10, ids[10]))
    assert rows_at(store, 10) == {"a": 1500, "b": 1510, "c": 1490}
    write("toy@1", "toy", [entry("a", 1520)], (20, ids[20]), every=False)  # a's 1500 becomes a row
    assert rows_at(store, 10) == {"a": 1500, "b": 1510, "c": 1490} and rows_at(store, 20) == {"a": 1520}
    write("toy@1", "toy", [entry("b", 1530)], (30, ids[30]), [10, 20], every=False)  # 20 moves on; 10 goes
    assert store.history_positions("toy@1") == [30]
    assert rows_at(store, 30) == {"a": 1520, "b": 1530, "c": 1490}, "c's row moved on as its rating"
    write("toy@1", "toy", [entry("c", 1470)], (40, ids[40]), every=False)  # 30 sealed
    assert rows_at(store, 30) == {"a": 1520, "b": 1530, "c": 1490} and rows_at(store, 40) == {"c": 1470}
    assert chart(store, "c") == [[31, 1490], [41, 1470]] and chart(store, "a") == [[31, 1520], [41, 1520]]
    assert orphans(store) == []


def test_a_full_rerate_keeps_only_the_entrants_it_rates(fresh_url: str) -> None:  # noqa: F811
    """A full table is written by key (PostgreSQL updates the rows in their pages): the rows of
    entrants it no longer rates go, the others are overwritten."""
    store, ids = stored_matches(fresh_url, 20)
    store.write_ratings("toy@1", "toy", [entry("a", 1500), entry("b", 1510), entry("c", 1490)], (10, ids[10]))
    store.write_ratings("toy@1", "toy", [entry("a", 1505), entry("c", 1495)], (15, ids[15]))
    assert {row.entrant: row.elo for row in store.leaderboard("toy@1")} == {"a": 1505, "c": 1495}
    assert rows_at(store, 15) == {"a": 1505, "c": 1495} and rows_at(store, 10) == {"a": 1500, "b": 1510, "c": 1490}
