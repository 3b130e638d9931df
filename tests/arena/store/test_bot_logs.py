"""Store.bot_logs: the bot_log rows a stored match brings (arena/store/bot_logs.py), on SQLite and
PostgreSQL; and the record's private logs split off before anything is stored (split_logs)."""

from __future__ import annotations

import json
from dataclasses import replace

from arena.match.record import MatchRecord, SeatOutcome, Termination, split_logs
from arena.store import BotLog, MatchResult, SeatResult, Store
from tests.arena.postgres_server import PostgresServer, postgres_server, store_on_both  # noqa: F401 - fixtures
from tests.arena.store.test_migrations import fresh_url  # noqa: F401 - fixture
from tests.arena.store.test_store import new_tournament, result

HAND = "my hand: 7 of cups\n"


def logged(tournament_id: int, index: int) -> MatchResult:
    """A match of logger@2 (seat 0), random (seat 1) and logger unversioned (seat 2), logs on 0 and 2."""
    base = result(tournament_id, index, ("logger@2", "random", "logger#b"), (1, 2, 3))
    seats = [replace(base.seats[0], termination="crash", reason="launched bot 'logger@2' exited with status 3"),
             base.seats[1], replace(base.seats[2], spec="logger")]
    return replace(base, seats=seats, logs={0: HAND + "nul \x00 byte", 2: ""})


def match_id_of(store: Store, tournament_id: int, index: int) -> int:
    return next(m.id for m in store.matches(tournament_id=tournament_id) if m.match_index == index)


def test_a_stored_match_keeps_each_launched_seats_log(fresh_url: str) -> None:  # noqa: F811
    store = Store(fresh_url)
    tid = new_tournament(store)
    assert store.record_matches([logged(tid, 0), result(tid, 1, ("logger@2", "random"))]) == 2
    first, second = match_id_of(store, tid, 0), match_id_of(store, tid, 1)
    assert store.bot_logs(first, "logger") == [
        BotLog(first, 0, "logger", 2, "crash", "launched bot 'logger@2' exited with status 3",
               HAND + "nul \ufffd byte"),  # PostgreSQL text holds no NUL: it is replaced
        BotLog(first, 2, "logger", None, "normal", "", ""),
    ]
    assert store.bot_logs(first, "random") == [], "a built-in bot has no log"
    assert store.bot_logs(first, "logger@2") == [], "asked by the registered bot's name"
    assert store.bot_logs(second, "logger") == [], "a match without logs"
    assert store.bot_logs(999_999, "logger") == [], "no such match"


def test_writing_a_match_again_adds_no_second_log(store: Store) -> None:
    tid = new_tournament(store)
    assert store.record_matches([logged(tid, 0)]) == 1
    assert store.record_matches([logged(tid, 0), logged(tid, 1)]) == 1
    assert len(store.bot_logs(match_id_of(store, tid, 0), "logger")) == 2
    assert len(store.bot_logs(match_id_of(store, tid, 1), "logger")) == 2


def test_the_stored_record_carries_no_log(store: Store) -> None:
    tid = new_tournament(store)
    store.record_matches([logged(tid, 0)])
    stored = store.match_record(match_id_of(store, tid, 0))
    assert stored is not None and "my hand" not in json.dumps(stored)


def test_split_logs_takes_every_seats_log_out_of_the_record_json() -> None:
    record = MatchRecord("toy", "toy@1", {}, 1, [SeatOutcome("logger@2", Termination.NORMAL, log=HAND,
                                                             log_steps=[[1, 0]]),
                                                 SeatOutcome("random"), SeatOutcome("other", log="")])
    data = record.to_json()
    assert [("log" in seat) for seat in data["seats"]] == [True, False, True]
    public, logs, steps = split_logs(data)
    assert logs == {0: HAND, 2: ""} and steps == {0: [[1, 0]]}, "where each decision's part starts leaves too"
    assert all("log" not in seat and "log_steps" not in seat for seat in public["seats"])
    assert "my hand" not in json.dumps(public)
    assert "log" in data["seats"][0], "the record it came from is left as it was"
    assert MatchRecord.from_json(data).seats[0].log == HAND
    assert MatchRecord.from_json(public).seats[0].log is None
    assert split_logs({"aborted": "arena error"}) == ({"aborted": "arena error"}, {}, {})


def test_each_decisions_part_of_a_log_is_stored_with_it(fresh_url: str) -> None:  # noqa: F811
    store = Store(fresh_url)
    tid = new_tournament(store)
    text = "warming up\nstep 3: thinking\nstep 7: é\n"
    store.record_matches([replace(logged(tid, 0), logs={0: text}, log_steps={0: [[3, 11], [7, 28]]})])
    [log] = store.bot_logs(match_id_of(store, tid, 0), "logger")
    assert log.text == text and log.decisions == [(3, 11), (7, 28)]
    assert log.by_decision() == {3: "step 3: thinking\n", 7: "step 7: é\n"}
    assert text[:log.decisions[0][1]] == "warming up\n"
