"""How a match's record is stored: compressed, in the BLOB `match.record`, read back exactly.

A record's text is the one the arena has always stored, `json.dumps(record)`; what is kept is one
of three encodings, told apart by the first byte, each zlib-compressed compact JSON:

- `0x02`, one seat per step: `[head, chances, seats, actions, elapsed]`, when every step is a
  chance step `{"chance": c, "actions": null, "elapsed_ms": null}` or one seat's decision
  `{"chance": null, "actions": {seat: a}, "elapsed_ms": {seat: ms}}` (seat null on a chance step;
  `actions` and `elapsed` list the decisions only). `head` is the record with `"steps": null`
  in its place. A 4-player Riga record of ~31 kB keeps ~1.5 kB.
- `0x01`, steps in columns: `[head, chances, actions, elapsed]`, when every step has exactly the
  keys `chance`, `actions`, `elapsed_ms` in that order (what `StepRecord` writes) but some step
  is neither of the above (several seats at once).
- a plain zlib stream of the text (RFC 1950: first byte 0x78): any other record.

Decoding rebuilds the same dict (keys in the same order), so `json.dumps` gives back the same
text: the keys repeated hundreds of times a match are gone. JSON turns a seat's key into a
string either way, so a record given with int keys reads back as its text did.

NULL is a pruned record (`arena store prune`): the match's row and seats stay, so its result
still counts. Every reader of a stored record goes through `decode_record` or `record_text`: the
dashboard's replay and API (`Store.match_record`), `arena store export`.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from arena.errors import StoreError

LEVEL = 4  # a Riga record: ~1.5 kB at 4, ~1.36 kB at 6 for ~25 % more CPU (two fit an SQLite page either way)
ONE_SEAT = b"\x02"
COLUMNS = b"\x01"
ZLIB_FIRST_BYTE = 0x78
STEP_KEYS = ["chance", "actions", "elapsed_ms"]
_compact = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode


class RecordPruned(StoreError):
    """The match is stored but its record was pruned: its result counts, its replay is gone."""

    def __init__(self, match_id: int) -> None:
        super().__init__(f"the record of match {match_id} was pruned (arena store prune): "
                         "its result still counts, its replay is no longer stored")
        self.match_id = match_id


def encode_record(record: dict[str, Any]) -> bytes:
    """The stored form of a record whose text is `json.dumps(record)`."""
    steps = record.get("steps")
    if not isinstance(steps, list) or not all(isinstance(step, dict) and list(step) == STEP_KEYS for step in steps):
        return zlib.compress(json.dumps(record).encode("utf-8"), LEVEL)
    head = {key: (None if key == "steps" else value) for key, value in record.items()}
    chances = [step["chance"] for step in steps]
    one_seat = _one_seat(steps)
    if one_seat is not None:
        return ONE_SEAT + zlib.compress(_compact([head, chances, *one_seat]).encode("utf-8"), LEVEL)
    columns = [head, chances, [s["actions"] for s in steps], [s["elapsed_ms"] for s in steps]]
    return COLUMNS + zlib.compress(_compact(columns).encode("utf-8"), LEVEL)


def _one_seat(steps: list[dict[str, Any]]) -> tuple[list[Any], list[Any], list[Any]] | None:
    """(seats, actions, elapsed) when every step is a chance step or one seat's decision, else None."""
    seats: list[Any] = []
    actions: list[Any] = []
    elapsed: list[Any] = []
    for step in steps:
        acted, took = step["actions"], step["elapsed_ms"]
        if acted is None and took is None and step["chance"] is not None:
            seats.append(None)
        elif (step["chance"] is None and type(acted) is dict and type(took) is dict and len(acted) == 1
              and len(took) == 1 and acted.keys() == took.keys() and type(next(iter(acted))) is str):
            ((seat, action),) = acted.items()
            seats.append(seat)
            actions.append(action)
            elapsed.append(took[seat])
        else:
            return None
    return seats, actions, elapsed


def encode_text(text: str) -> bytes:
    """The stored form of a record's JSON text (a record stored as text before revision 0014):
    in columns only when they give back exactly this text, else the text itself compressed."""
    columns = encode_record(json.loads(text))
    if columns[:1] in (ONE_SEAT, COLUMNS) and record_text(columns) == text:
        return columns
    return zlib.compress(text.encode("utf-8"), LEVEL)


def record_text(stored: bytes | str, match_id: int = 0) -> str:
    """The JSON text of a stored record, exactly as it was written (a str: text before 0014)."""
    if isinstance(stored, str):
        return stored
    data = bytes(stored)  # PostgreSQL's driver may hand back a memoryview
    if data[:1] in (ONE_SEAT, COLUMNS):
        return json.dumps(_from_columns(data))
    return zlib.decompress(_zlib(data, match_id)).decode("utf-8")


def decode_record(stored: bytes | str | None, match_id: int = 0) -> dict[str, Any]:
    """The record of a stored match; RecordPruned when its record was pruned (NULL)."""
    if stored is None:
        raise RecordPruned(match_id)
    if isinstance(stored, str):
        record: dict[str, Any] = json.loads(stored)
        return record
    data = bytes(stored)
    if data[:1] in (ONE_SEAT, COLUMNS):
        return _from_columns(data)
    record = json.loads(zlib.decompress(_zlib(data, match_id)))
    return record


def _from_columns(data: bytes) -> dict[str, Any]:
    columns = json.loads(zlib.decompress(data[1:]))
    head: dict[str, Any] = columns[0]
    if data[:1] == COLUMNS:
        _, chances, actions, elapsed = columns
        head["steps"] = [{"chance": c, "actions": a, "elapsed_ms": e} for c, a, e in zip(chances, actions, elapsed)]
        return head
    _, chances, seats, actions, elapsed = columns
    decisions = iter(zip(actions, elapsed))
    steps = []
    for chance, seat in zip(chances, seats):
        if seat is None:
            steps.append({"chance": chance, "actions": None, "elapsed_ms": None})
        else:
            action, took = next(decisions)
            steps.append({"chance": None, "actions": {seat: action}, "elapsed_ms": {seat: took}})
    head["steps"] = steps
    return head


def _zlib(data: bytes, match_id: int) -> bytes:
    if not data or data[0] != ZLIB_FIRST_BYTE:
        raise StoreError(f"the stored record of match {match_id} is in an unknown encoding "
                         f"(first byte {data[:1].hex() or 'none'}; known: 01, 02, 78): "
                         "was it written by a newer arena?")
    return data
