"""The ladder's one-line accounts of the arena's faults: said in its log, stored as its note, shown by
`arena ladder status`, /api/ladder and the ladder page (the slow tests in test_chaos*.py cause
the faults themselves)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.cli.ladder import format_report
from arena.errors import StoreError
from arena.ladder import driver
from arena.ladder.account import Account
from arena.ladder.driver import open_ladder
from arena.ladder.field import LadderConfig
from arena.ladder.report import ladder_report
from arena.store import Store
from dashboards.app import create_app
from tests.arena.ladder.test_ladder import Running, wait_until


@pytest.fixture
def ladder(tmp_path: Path) -> tuple[Store, Account]:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    ladder_id = open_ladder(store, LadderConfig("gang_of_dice", 2, ("random", "heuristic")))
    info = store.tournament(ladder_id)
    assert info is not None
    return store, Account(store, info)


def test_the_gateway_gone_and_back_is_told_once_each_and_shown_everywhere(
        ladder: tuple[Store, Account], capsys: pytest.CaptureFixture[str]) -> None:
    store, account = ladder
    for index in (4, 5, 4):  # match 4 came back gone twice: one match to play again, not two
        account.gateway_gone(index, "GatewayError: UNAVAILABLE: the gateway closed the connection")
    account.played()
    account.played()  # nothing more to tell
    log = capsys.readouterr().err.splitlines()
    assert len(log) == 2 and "the gateway stopped or cannot be reached (GatewayError: UNAVAILABLE" in log[0]
    assert "the gateway answers again after 0 s; 2 matches" in log[1] and "no bot blamed" in log[1]
    [info] = store.ladders()
    assert log[1].endswith(info.note) and "UTC: the gateway answers again" in info.note
    report = ladder_report(store, info)
    assert report["note"] == info.note
    assert f"  last incident: {info.note}" in format_report(report).splitlines()
    with TestClient(create_app(store)) as client:
        assert client.get("/api/ladder").json()["ladders"][0]["note"] == info.note
        assert "Last incident: " + info.note.replace("'", "&#39;") in client.get("/ladder").text


def test_a_database_that_is_down_is_told_in_the_log_without_storing_it(
        ladder: tuple[Store, Account], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    store, account = ladder

    def down(*_: object) -> None:
        raise StoreError("no space left for database arena.db (database or disk is full)")

    monkeypatch.setattr(store, "set_tournament_note", down)
    account.database_down(StoreError("no space left for database arena.db (database or disk is full)"), 7)
    err = capsys.readouterr().err
    assert "the database cannot be written or read (StoreError: no space left" in err and "7 results kept" in err
    monkeypatch.undo()
    account.database_back(7)
    assert "the database answers again" in store.ladders()[0].note


def test_matches_the_gateway_cut_short_while_the_database_was_down_are_told_with_the_database(
        ladder: tuple[Store, Account], capsys: pytest.CaptureFixture[str]) -> None:
    """A gateway that cannot read its database answers as gone: once the database is back, the
    note says so, and the next match played does not tell of the gateway's return over it."""
    store, account = ladder
    account.gateway_gone(3, "GatewayError: UNAVAILABLE: the database cannot be written or read")
    account.database_down(StoreError("cannot open database"), 0)
    account.database_back(0)
    account.played()
    assert "the database answers again" in store.ladders()[0].note
    assert "the gateway answers again" not in capsys.readouterr().err
    account.gateway_gone(4, "GatewayError: UNAVAILABLE: the gateway is stopping")  # gone for real later: told
    assert "the gateway stopped or cannot be reached" in store.ladders()[0].note


def test_a_ladder_waits_out_a_database_that_refuses_writes_and_loses_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    refusing = threading.Event()
    record_matches = store.record_matches

    def record_or_refuse(results: list) -> int:  # the disk is full while `refusing` is set
        if refusing.is_set() and results:
            raise StoreError("no space left for database arena.db (database or disk is full)")
        return record_matches(results)

    monkeypatch.setattr(store, "record_matches", record_or_refuse)
    monkeypatch.setattr(driver, "DATABASE_RETRY_SECONDS", 0.1)
    ladder = Running(store, None)
    try:
        wait_until(lambda: store.count_matches() >= 10, "10 matches are stored")
        refusing.set()
        wait_until(lambda: ladder.ladder.account.down_since is not None, "the ladder finds the database full")
        held = store.count_matches()
        time.sleep(0.5)
        assert store.count_matches() == held and ladder.thread.is_alive(), "it waits, it does not end"
        refusing.clear()
        wait_until(lambda: store.count_matches() >= held + 10, "10 more matches are stored")
    finally:
        ladder.stop()
    [info] = store.ladders()
    matches = store.matches(tournament_id=info.id, limit=100_000)
    assert [m.match_index for m in matches] == list(range(len(matches))), "none lost, none twice"
    # A stop may fall between two rotations of a table: what is still planned is the tail after the
    # stored matches, which the next run plays first (docs/ladder.md), so nothing is lost.
    pending = [m.index for m in store.pending_ladder_matches(info.id)]
    assert pending == list(range(len(matches), len(matches) + len(pending))) and info.aborted_matches == 0
    assert "the database answers again" in info.note
