"""Stored records are compressed and read back byte for byte, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from arena import record_encoding
from arena.errors import StoreError
from arena.match.record import split_logs
from arena.match.runner import run_match
from arena.record_encoding import (
    DICTIONARIES,
    DICTIONARY_FOLDER,
    GAME_DICTIONARY,
    LEVEL,
    columns_text,
    dictionary,
)
from arena.store import Store
from arena.store.record_codec import (
    COLUMNS,
    DICTIONARY,
    ONE_SEAT,
    decode_record,
    encode_record,
    encode_text,
    record_text,
)
from tests.arena.postgres_server import postgres_server, store_on_both  # noqa: F401 - fixtures
from tests.arena.store.test_store import new_tournament, result

TABLES = [("gang_of_dice", 3), ("lost_cities_rivals", 2), ("riga", 4), ("riviera", 4)]


def real_records() -> list[dict[str, Any]]:
    """One played record per game (built-in bots), as the driver stores them."""
    return [split_logs(run_match(game, ["heuristic", "random", "heuristic", "random"][:players], 11).to_json())[0]
            for game, players in TABLES]


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    return real_records()


def test_real_records_are_kept_in_columns_against_their_games_dictionary_and_read_back_exactly(
        records: list[dict[str, Any]]) -> None:
    for record in records:
        stored = encode_record(record)
        assert stored[:1] == DICTIONARY and stored[1] == GAME_DICTIONARY[record["game_id"]], record["game_id"]
        assert record_text(stored) == json.dumps(record) and decode_record(stored) == record
        assert encode_text(json.dumps(record)) == stored
        assert len(stored) < len(without_dictionary(record)), "the dictionary makes it smaller"
    assert columns_text(records[2])[:1] == ONE_SEAT, "Riga's steps: chance or one seat's decision"
    riga = json.dumps(records[2])
    assert len(encode_record(records[2])) * 24 < len(riga), "a Riga record keeps under a 24th of its text"


def without_dictionary(record: dict[str, Any]) -> bytes:
    """A record as the arena stored it before revision 0019 (no dictionary): 0x01 or 0x02, zlib level 4."""
    inner = columns_text(record)
    return inner[:1] + zlib.compress(inner[1:], LEVEL)


def test_records_stored_before_the_dictionaries_still_read_back_exactly(records: list[dict[str, Any]]) -> None:
    for record in records:
        for old in (without_dictionary(record), zlib.compress(json.dumps(record).encode(), LEVEL)):
            assert old[:1] in (ONE_SEAT, COLUMNS, b"\x78")
            assert record_text(old) == json.dumps(record) and decode_record(old) == record


def test_a_game_without_a_dictionary_keeps_the_plain_columns(records: list[dict[str, Any]]) -> None:
    other = {**records[2], "game_id": "no_such_game"}
    assert encode_record(other) == without_dictionary(other) and decode_record(encode_record(other)) == other


def test_an_unknown_or_changed_dictionary_is_one_line(records: list[dict[str, Any]], tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    stored = encode_record(records[2])
    with pytest.raises(StoreError, match="match 5 was compressed with a dictionary this arena does not have .id ff"):
        decode_record(DICTIONARY + b"\xff" + stored[2:], 5)
    game, name, _ = DICTIONARIES[stored[1]]
    (tmp_path / name).write_bytes((DICTIONARY_FOLDER / name).read_bytes() + b" ")
    monkeypatch.setattr(record_encoding, "DICTIONARY_FOLDER", tmp_path)
    dictionary.cache_clear()
    try:
        with pytest.raises(ValueError, match=f"dictionary {name} of {game} was changed"):
            decode_record(stored)
    finally:
        dictionary.cache_clear()


def test_the_released_dictionaries_are_unchanged() -> None:
    dictionary.cache_clear()
    assert {dictionary(number) for number in DICTIONARIES}, "each file matches its sha256"
    assert set(GAME_DICTIONARY) == {game for game, _ in TABLES}, "every game has one"


def test_steps_of_several_seats_at_once_are_kept_in_columns() -> None:
    both = {"game_id": "x",
            "steps": [{"chance": 4, "actions": None, "elapsed_ms": None},
                      {"chance": None, "actions": {"0": 1, "1": 2}, "elapsed_ms": {"0": 0.5, "1": 1.25}},
                      {"chance": None, "actions": {"1": 3}, "elapsed_ms": {"1": 2.0}}],
            "ranks": [1, 2]}
    stored = encode_record(both)
    assert stored[:1] == COLUMNS and record_text(stored) == json.dumps(both) and decode_record(stored) == both
    one = {**both, "steps": [both["steps"][0], both["steps"][2]]}
    stored = encode_record(one)
    assert stored[:1] == ONE_SEAT and record_text(stored) == json.dumps(one) and decode_record(stored) == one


def test_any_other_record_is_its_text_compressed() -> None:
    odd = {"aborted": "worker died", "steps": [{"actions": {"0": 1}, "chance": None, "elapsed_ms": None}]}
    stored = encode_record(odd)
    assert stored[:1] == b"\x78" and record_text(stored) == json.dumps(odd) and decode_record(stored) == odd
    spaced = '{"steps": [{"chance":1, "actions": null, "elapsed_ms": null}]}'  # not json.dumps's spacing
    assert record_text(encode_text(spaced)) == spaced, "text the columns cannot give back is kept as text"


def test_an_unknown_encoding_is_one_line() -> None:
    with pytest.raises(StoreError, match="unknown encoding .first byte 07.*newer arena"):
        decode_record(b"\x07abc", 5)


def test_a_stored_record_is_compressed_and_comes_back_exactly(store: Store, records: list[dict[str, Any]]) -> None:
    tid = new_tournament(store)
    stored = [result(tid, n) for n in range(len(records))]
    store.record_matches([type(r)(**{**vars(r), "record": rec}) for r, rec in zip(stored, records)])
    for summary, record in zip(store.matches(tournament_id=tid), records):
        assert store.match_record(summary.id) == record
        with store.engine.connect() as connection:
            blob = connection.execute(text('SELECT record FROM "match" WHERE id = :id'), {"id": summary.id}).scalar()
        assert blob is not None and record_text(blob) == json.dumps(record) and len(blob) * 5 < len(json.dumps(record))
